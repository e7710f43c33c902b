// What the C ABI's translation units share: the handle structs, the per-thread error, and
// the argument helpers. Not installed: callers see tilejit_c.h only.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/jit_compiler.h"
#include "compiler/ops/op.h"
#include "compiler/ops/paged_decode.h"
#include "runtime/bundle.h"
#include "tools/capi/handle_registry.h"
#include "tools/capi/tilejit_c.h"

#define TJ_EXPORT extern "C" __attribute__((visibility("default")))

struct tj_jit {
  std::unique_ptr<tilejit::JitCompiler> compiler;
};
struct tj_device {
  std::unique_ptr<tilejit::Device> device;
  std::string target;
};
struct tj_kernel {
  const tilejit::LoadedKernel* loaded;
};
struct tj_paged_decode {
  tilejit::PagedDecode op;
};
struct tj_op {
  std::unique_ptr<tilejit::Op> op;
};
struct tj_bundle {
  tilejit::Bundle bundle;
  std::vector<std::string> parameterTexts;  // per entry, for tj_bundle_entry_parameters
  std::vector<std::unique_ptr<tilejit::LoadedKernel>> loaded;
};

namespace tilejit::capi {

extern thread_local std::string lastError;

inline HandleRegistry& handles() { return HandleRegistry::instance(); }

template <typename T>
T fail(const absl::Status& status, T value) {
  lastError = std::string(status.message());
  return value;
}

inline absl::Status missing(const char* function, const char* what) {
  return absl::InvalidArgumentError(std::string(function) + ": " + what + " is NULL");
}

// Takes `handle` back and deletes it, unless it is not a live handle of `kind` or others use
// it (then the error is set and nothing is freed: a leak, never a use after free).
template <typename Handle>
void destroyHandle(Handle* handle, HandleKind kind, const char* function) {
  if (handle == nullptr) return;
  if (absl::Status released = handles().release(handle, kind, function); !released.ok()) {
    fail(released, 0);
    return;
  }
  delete handle;
}

// "name=value" strings into a map; an entry without '=' is an error naming it.
absl::StatusOr<std::map<std::string, std::string>> parseAssignments(const char* const* items,
                                                                    int count);

}  // namespace tilejit::capi
