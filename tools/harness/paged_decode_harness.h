// Paged decode's reference check lives in its op folder; this header keeps the old path.
#pragma once

#include "compiler/ops/paged_decode/reference.h"
