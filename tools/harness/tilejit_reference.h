/* tilejit_reference.h: the C interface of a reference a kernel author supplies in C or C++,
 *   tilejit run FILE --reference my_reference.cpp
 * tilejit compiles the file with the host C++ compiler (the CPU backend's: $TILEJIT_HOST_CXX, else
 * c++) into a shared object, with this header on the include path, and calls it in a child
 * process (a crash or an exception is reported naming the file, not taken down with tilejit).
 *
 * The reference gets the op's arguments as the op's reference check filled them for its first
 * run, and computes what the op must write:
 *   inputs:  every argument the op does not write (tensors and scalars), in the op's order
 *   outputs: every argument the op writes, in the op's order, their data holding what was
 *            there before the run (an in-place argument such as a paged cache starts as the
 *            op found it; a pure output as the check poisoned it, usually NaN)
 * Every element crosses as a double, whatever the kernel's dtype (bf16, fp8 codes and integer
 * indices read as their values), row-major; a scalar is a tensor of rank 0 holding one value.
 * The op's workspaces (split-K partials, counters) are not arguments here.
 *
 * Return 0 when the outputs are filled; anything else is an error, reported with the text of
 * tilejit_reference_error() where the file defines it. tilejit compares each output with the
 * kernel's (relative L-inf over the elements where they are not both NaN) and fails the run
 * past the op check's tolerance.
 */
#ifndef TILEJIT_REFERENCE_H
#define TILEJIT_REFERENCE_H

#include <stdint.h>

#define TILEJIT_REFERENCE_ABI_VERSION 1

typedef struct tj_host_tensor {
  const char* name;      /* the op argument's name: "output", "prefix_lse", "key_cache" */
  const char* dtype;     /* the kernel's element type: "bf16", "f32", "i32", "f8E4M3FN" */
  int rank;              /* 0 for a scalar */
  const int64_t* shape;  /* rank extents */
  int64_t numel;         /* the product of the extents (1 for a scalar) */
  double* data;          /* numel values, row-major: read the inputs', fill the outputs' */
} tj_host_tensor;

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by the reference file. */
int tilejit_reference(const tj_host_tensor* inputs, int n_in, tj_host_tensor* outputs,
                      int n_out);

/* Optionally defined by the reference file: why tilejit_reference returned nonzero. */
const char* tilejit_reference_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TILEJIT_REFERENCE_H */
