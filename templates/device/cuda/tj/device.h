// The CUDA backend of the tilejit device library (contract: templates/device/README.md).
// Include-only, no CUDA headers: nvrtc compiles a kernel with this in well under a second.
#pragma once

#include "tj/types.h"
#include "tj/tile.h"
#include "tj/memory.h"
#include "tj/shared.h"
#include "tj/dot.h"
#include "tj/cluster.h"
