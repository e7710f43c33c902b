// The CPU backend of the tilejit device library (the reference semantics; see
// templates/device/README.md).
#pragma once

#include "tj/types.h"
#include "tj/tile.h"
#include "tj/memory.h"
