// The HIP device library over the CPU wave model (tj_wave_model/lanes.h): the library's own
// headers unchanged, with the kernel entry replaced by the CPU backend's ABI
//   extern "C" void entry(const void* args, const int64_t program_id[3],
//                         const int64_t num_programs[3])
// which runs one workgroup of TJ_THREADS lanes (a failure: tilejit_entry_error, report.h).
#pragma once

#include "tj_wave_model/lanes.h"
#include "tj/types.h"

static_assert(TJ_WAVE == TJ_WAVE_MODEL_WAVE,
              "the library's wave size (from the target's family macro) is not the target description's");

#undef TJ_KERNEL_ENTRY
#define TJ_KERNEL_ENTRY(name, Args)                                                        \
  static void name##_body(const Args args);                                                \
  static void name##_lanes(const void* rawArgs) {                                          \
    name##_body(*static_cast<const Args*>(rawArgs));                                       \
  }                                                                                        \
  extern "C" void name(const void* rawArgs, const int64_t* programId,                      \
                       const int64_t* numPrograms) {                                       \
    ::wave_model::runBlock(#name, &name##_lanes, rawArgs, TJ_THREADS, programId, numPrograms); \
  }                                                                                        \
  static void name##_body(const Args args)

#include "tj/tile.h"
#include "tj/reduce.h"
#include "tj/memory.h"
#include "tj/dot.h"
