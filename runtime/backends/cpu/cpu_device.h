// The CPU device for kernels of another backend compiled to the CPU entry ABI
// (extern "C" void entry(const void* args, const int64_t program_id[3],
// const int64_t num_programs[3]) in a shared object): it loads only kernels whose metadata
// names `backend` and `target`, and reports `target` as its own.
#pragma once

#include <memory>
#include <string>

#include "runtime/device.h"

namespace tilejit {

std::unique_ptr<Device> createHostEntryDevice(std::string backend, std::string target);

}  // namespace tilejit
