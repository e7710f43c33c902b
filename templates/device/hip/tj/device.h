// The HIP backend of the tilejit device library (contract: templates/device/README.md; this
// backend: templates/device/hip/README.md). Include-only, no HIP runtime headers and no
// device libraries: the kernel compiles with -nogpuinc -nogpulib.
#pragma once

#include "tj/types.h"
#include "tj/tile.h"
#include "tj/reduce.h"
#include "tj/memory.h"
#include "tj/dot.h"
