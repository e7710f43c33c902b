// The bundle reader on arbitrary bytes: a DataLoss error naming what is wrong, never a crash; a
// bundle that decodes re-encodes to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<tilejit::Bundle> bundle = tilejit::Bundle::decode(bytes, "fuzz.tjb");
  if (!bundle.ok()) return 0;
  tilejit::BundleWriter writer;
  for (const tilejit::BundleEntry& entry : bundle->entries())
    if (!writer.add(entry).ok()) std::abort();  // what the reader accepts, the writer must
  if (writer.encode() != bytes) std::abort();
  (void)tilejit::parseBundleParameters(bytes);
  return 0;
}
