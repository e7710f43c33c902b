/* tilejit C ABI: the JIT for serving engines written in C, Python (ctypes) or anything with a
 * C FFI. Every function returning int gives 0 on success and -1 on failure (counts and sizes:
 * -1), pointers give NULL on failure; tj_last_error() then says why (per thread). A NULL,
 * destroyed or mistyped handle, or a handle used with a device it was not made for, is such a
 * failure, never a crash: the library keeps the set of handles it gave out. A handle is not
 * destroyed while others depend on it (the destroy call sets tj_last_error and keeps it).
 *
 * Versioning: tj_abi_version() is TJ_ABI_VERSION of the header the library was built from; a
 * caller built against another version should refuse to run. Structs passed in or out begin
 * with `struct_size`, which the caller sets to sizeof the struct it was compiled with
 * (`tj_paged_decode_args args = {sizeof args};`): a mismatch is an error naming both sizes,
 * not a silent misread of a struct that gained a field. */
#ifndef TILEJIT_C_H
#define TILEJIT_C_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TJ_ABI_VERSION 2

typedef struct tj_jit tj_jit;
typedef struct tj_device tj_device;
typedef struct tj_kernel tj_kernel;
typedef struct tj_bundle tj_bundle;

/* Element types, in runtime order: f16, bf16, f32, f64, i8, i32, i64, u8, i1. */
enum { TJ_F16 = 0, TJ_BF16, TJ_F32, TJ_F64, TJ_I8, TJ_I32, TJ_I64, TJ_U8, TJ_BOOL, TJ_F8E4M3FN, TJ_F8E5M2 };

typedef struct {
  void* data;
  int32_t dtype;
  int32_t rank;
  int64_t shape[6];
  int64_t strides[6]; /* in elements */
} tj_tensor;

typedef struct {
  int32_t is_scalar; /* 0: tensor, 1: scalar */
  int32_t scalar_dtype;
  double float_value;
  int64_t int_value;
  tj_tensor tensor;
} tj_arg;

typedef struct {
  uint32_t struct_size; /* sizeof(tj_compile_info) */
  int32_t cache_hit;
  double specialize_seconds;
  double toolchain_seconds;
  double total_seconds;
  int32_t registers;
  int32_t threads_per_program;
} tj_compile_info;

const char* tj_last_error(void);
int tj_abi_version(void);

tj_jit* tj_jit_create(int use_disk_cache);
void tj_jit_destroy(tj_jit* jit);

/* The best device present (the current CUDA device's primary context, else the CPU). */
tj_device* tj_device_create_best(void);
tj_device* tj_device_create_cpu(void);
const char* tj_device_target(const tj_device* device);
void tj_device_destroy(tj_device* device);

/* Compiles (or finds in the cache) and loads a template for the device. `templ` is a shipped
 * template name or a path to a .mlir file; params are "name=value" strings. The kernel lives
 * as long as the jit. `info` may be NULL. */
const tj_kernel* tj_kernel_load(tj_jit* jit, tj_device* device, const char* templ,
                                const char* const* params, int num_params,
                                tj_compile_info* info);

/* A loaded kernel's arguments in launch order. dims[d] is a fixed extent (>= 0) or -1 for a
 * shape symbol bound from the tensor at launch, named in dim_symbols[d] (NULL for fixed ones);
 * the strings live as long as the kernel. */
typedef struct {
  uint32_t struct_size; /* sizeof(tj_argument_info) */
  const char* name;
  int32_t is_scalar;
  int32_t dtype;        /* TJ_F32, ... */
  int32_t rank;         /* tensors */
  int64_t dims[6];
  const char* dim_symbols[6];
  int32_t writes;       /* the kernel stores into it */
  int32_t contiguous;   /* every stride must be the dense row-major one */
} tj_argument_info;

int tj_kernel_num_arguments(const tj_kernel* kernel);
int tj_kernel_argument(const tj_kernel* kernel, int index, tj_argument_info* out);

/* Checks arguments against the signature, computes the grid from their shapes and launches
 * on `stream` (a CUstream; NULL = default). No allocation, no synchronisation. */
int tj_launch(tj_device* device, const tj_kernel* kernel, const tj_arg* args, int num_args,
              void* stream);

/* Paged decode as one call: the split-K kernel and the merge of its partitions
 * (compiler/ops/paged_decode.h; the op "paged_decode" with a fixed struct). The op lives until tj_paged_decode_destroy and must not
 * outlive its jit and device. */
typedef struct tj_paged_decode tj_paged_decode;

typedef struct {
  uint32_t struct_size;  /* sizeof(tj_paged_decode_config) */
  const char* dtype;     /* "bf16" (NULL) or "f16" */
  int64_t head_size;
  int64_t block_size;
  int64_t gqa_ratio;     /* q heads per kv head */
  const char* kv_layout; /* "standard" (NULL) or "shuffled" */
  int32_t soft_cap;      /* compile the logit soft-cap in */
  int32_t alibi;         /* compile ALiBi in */
  /* The grid the op will serve, 0 = unknown: with all three the target's measured tiling. */
  int64_t num_seqs;
  int64_t num_kv_heads;
  int64_t max_model_len;
  /* "name=value" tiling parameters (partition_size, block_n, ...); "reduce_<name>=value" for
   * the merge kernel. */
  const char* const* tuning;
  int32_t num_tuning;
} tj_paged_decode_config;

typedef struct {
  uint32_t struct_size;   /* sizeof(tj_paged_decode_args) */
  tj_tensor output;       /* [num_seqs, num_q_heads, head_size] */
  tj_tensor query;        /* [num_seqs, num_q_heads, head_size] */
  tj_tensor key_cache;    /* [num_blocks, block_size, num_kv_heads, head_size] (standard) */
  tj_tensor value_cache;
  tj_tensor block_tables; /* [num_seqs, max_blocks_per_seq] i32 */
  tj_tensor seq_lens;     /* [num_seqs] i32 */
  tj_tensor alibi_slopes; /* [num_q_heads] f32 (read only with alibi) */
  tj_tensor partial_out;  /* [num_seqs, max_partitions, num_q_heads, head_size] f32 */
  tj_tensor partial_lse;  /* [num_seqs, max_partitions, num_q_heads] f32 */
  tj_tensor arrivals;     /* [num_seqs, num_kv_heads] i32, zeroed once before the first run
                           * (used and left zeroed with the tuning merge_in_kernel=1; one
                           * launch at a time per buffer; re-zero it after a failed launch). */
  float scale;
  float soft_cap_value;
  int32_t sliding_window; /* 0 = the whole context */
} tj_paged_decode_args;

tj_paged_decode* tj_paged_decode_create(tj_jit* jit, tj_device* device,
                                        const tj_paged_decode_config* config);
void tj_paged_decode_destroy(tj_paged_decode* op);
int64_t tj_paged_decode_partition_size(const tj_paged_decode* op);
/* max_partitions (the workspace's second extent) for contexts up to max_model_len. */
int64_t tj_paged_decode_max_partitions(const tj_paged_decode* op, int64_t max_model_len);
/* Its launches (two; one with merge_in_kernel=1 or where the workspace has one partition) on
 * `stream` (NULL = default); no allocation, no synchronisation. */
int tj_paged_decode_run(const tj_paged_decode* op, const tj_paged_decode_args* args, void* stream);

/* Ops by name (compiler/ops/README.md): a composition of kernels with typed parameters,
 * workspaces the caller allocates once (outside graph capture) and a launch sequence. An op
 * lives until tj_op_destroy and must not outlive its jit and device. */
typedef struct tj_op tj_op;

typedef struct {
  uint32_t struct_size; /* sizeof(tj_workspace) */
  int32_t dtype; /* TJ_F32, ... */
  int32_t rank;
  int64_t shape[6];
  int64_t bytes;
  int32_t zero_once; /* zero it once before the first run; the op leaves it zeroed */
} tj_workspace;

/* params: "name=value" strings, each name once, parsed by the op's schema (an unknown name or
 * a bad value fails naming it and the legal values). */
tj_op* tj_op_create(tj_jit* jit, tj_device* device, const char* name, const char* const* params,
                    int num_params);
void tj_op_destroy(tj_op* op);
/* The op's arguments in tj_op_run order, and its workspaces (each passed as the argument of
 * the same name): the count, and the name at `index` (NULL past the end). */
int tj_op_num_arguments(const tj_op* op);
const char* tj_op_argument_name(const tj_op* op, int index);
int tj_op_num_workspaces(const tj_op* op);
const char* tj_op_workspace_name(const tj_op* op, int index);
/* The workspace's bytes for the problem sizes given as "name=value" strings ("num_seqs=64",
 * "max_model_len=16384", ...; a size it needs that is missing fails naming it), -1 on error;
 * `out` (may be NULL) receives its dtype, shape and bytes. */
int64_t tj_op_workspace_size(const tj_op* op, const char* workspace, const char* const* sizes,
                             int num_sizes, tj_workspace* out);
/* Its launches on `stream` (NULL = default), arguments in tj_op_argument_name order; no
 * allocation, no synchronisation. */
int tj_op_run(const tj_op* op, const tj_arg* args, int num_args, void* stream);

/* Bundles written by `tilejit aot`: opened and verified whole (a damaged file fails naming the
 * entry), listed, and loaded without compiling. Kernels loaded from a bundle live as long as
 * the bundle; launch them with tj_launch on the device they were loaded for. */
tj_bundle* tj_bundle_open(const char* path);
void tj_bundle_destroy(tj_bundle* bundle);
int tj_bundle_num_entries(const tj_bundle* bundle);
/* The entry's template name, target, and parameters as "name=value" lines (NULL past the end). */
const char* tj_bundle_entry_template(const tj_bundle* bundle, int index);
const char* tj_bundle_entry_target(const tj_bundle* bundle, int index);
const char* tj_bundle_entry_parameters(const tj_bundle* bundle, int index);
/* The entry of `templ` for the device's target whose parameters include every "name=value"
 * given (one match, else an error listing what tells the candidates apart), loaded. */
const tj_kernel* tj_bundle_load(tj_bundle* bundle, tj_device* device, const char* templ,
                                const char* const* params, int num_params);

#ifdef __cplusplus
}
#endif

#endif /* TILEJIT_C_H */
