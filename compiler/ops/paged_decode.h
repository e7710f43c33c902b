// Paged decode's C++ API lives in its op folder, the tuning rules it reads (chooseDecodeTiling,
// mergeHeadsPerProgram) in compiler/tuning; this header keeps the old include path.
#pragma once

#include "compiler/ops/paged_decode/paged_decode.h"
#include "compiler/tuning/tuning_table.h"
