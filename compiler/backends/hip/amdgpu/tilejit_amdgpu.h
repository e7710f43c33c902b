/* The C entry point of libtilejit_amdgpu.so: clang's and lld's AMDGPU code generation, linked
 * statically with every other symbol hidden, so that its LLVM never meets the one tilejit
 * links. The toolchain dlopens it (compiler/backends/hip/llvm_amdgpu_toolchain.cpp). */
#ifndef TILEJIT_AMDGPU_H
#define TILEJIT_AMDGPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILEJIT_AMDGPU_ABI_VERSION 1

enum TilejitAmdgpuOutput {
  TILEJIT_AMDGPU_CODE_OBJECT = 0,
  TILEJIT_AMDGPU_ASSEMBLY = 1,
  TILEJIT_AMDGPU_LOG = 2,
};

struct TilejitAmdgpuRequest {
  int abi_version; /* TILEJIT_AMDGPU_ABI_VERSION */
  const char* target; /* "gfx942" */
  const char* source;
  size_t source_size;
  const char* source_name;
  size_t header_count; /* in-memory headers, found by include name */
  const char* const* header_names;
  const char* const* header_contents;
  const size_t* header_sizes;
  int code_object_version;
  int want_assembly;
  /* Receives each output (and the log); called on the compiling thread. */
  void (*sink)(void* context, int output, const char* bytes, size_t size);
  void* context;
};

/* "llvm-amdgpu 22.1.8": the compiler's name and version, for cache keys. */
const char* tilejit_amdgpu_version(void);

/* 1 when LLVM's AMDGPU target knows `target` ("gfx942"), else 0. */
int tilejit_amdgpu_knows_target(const char* target);

/* 0 on success; otherwise the log explains. Thread-safe. */
int tilejit_amdgpu_compile(const struct TilejitAmdgpuRequest* request);

#ifdef __cplusplus
}
#endif

#endif
