// Scalar types, views, program ids and the kernel entry of the CUDA backend. Self-contained:
// no CUDA headers (each costs nvrtc time); conversions go through inline PTX.
#pragma once

#ifndef TJ_THREADS
#error "TJ_THREADS (threads per program, a multiple of 32) must be defined before tj/device.h"
#endif
static_assert(TJ_THREADS % 32 == 0 && TJ_THREADS >= 32 && TJ_THREADS <= 1024,
              "TJ_THREADS must be a multiple of 32 in [32, 1024]");

#ifndef TJ_SMEM_BYTES
// One scratch buffer shared by every library function of a kernel; functions that need more
// work in chunks. Overridable by the translation unit.
#define TJ_SMEM_BYTES 32768
#endif

#if defined(__CUDACC_RTC__)
typedef long long int64_t;
typedef int int32_t;
typedef short int16_t;
typedef signed char int8_t;
typedef unsigned long long uint64_t;
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
typedef unsigned char uint8_t;
#else
#include <stdint.h>
#endif

#include "tj/abi.h"
#include "tj/trace.h"

namespace tj {

// ---- minimal type traits (no <type_traits> under nvrtc) --------------------------------
template <typename A, typename B>
struct IsSame { static constexpr bool value = false; };
template <typename A>
struct IsSame<A, A> { static constexpr bool value = true; };
template <bool C, typename A, typename B>
struct Cond { using type = A; };
template <typename A, typename B>
struct Cond<false, A, B> { using type = B; };

struct f16 { unsigned short bits; };
struct bf16 { unsigned short bits; };
// 8-bit float storage types (OCP FP8). e4m3fn: bias 7, no infinities, NaN = S.1111.111,
// largest finite 448. e5m2: bias 15, IEEE-like (S.11111.00 is infinity, NaNs above it).
struct f8e4m3 { unsigned char bits; };
struct f8e5m2 { unsigned char bits; };

template <typename T>
inline constexpr bool kIsHalf = IsSame<T, f16>::value || IsSame<T, bf16>::value;
template <typename T>
inline constexpr bool kIsFp8 = IsSame<T, f8e4m3>::value || IsSame<T, f8e5m2>::value;
template <typename T>
inline constexpr bool kIsFloat =
    IsSame<T, float>::value || IsSame<T, double>::value || kIsHalf<T> || kIsFp8<T>;

// The arithmetic type of an element: 16- and 8-bit floats compute in float.
template <typename T>
struct Arith { using type = T; };
template <> struct Arith<f16> { using type = float; };
template <> struct Arith<bf16> { using type = float; };
template <> struct Arith<f8e4m3> { using type = float; };
template <> struct Arith<f8e5m2> { using type = float; };

__device__ __forceinline__ float bitsToFloat(unsigned u) {
  float f;
  asm("mov.b32 %0, %1;" : "=f"(f) : "r"(u));
  return f;
}
__device__ __forceinline__ unsigned floatToBits(float f) {
  unsigned u;
  asm("mov.b32 %0, %1;" : "=r"(u) : "f"(f));
  return u;
}

// Exact float constants (inf, NaN, any literal) for the emitter, without CUDA headers.
__device__ __forceinline__ float f32_from_bits(uint32_t bits) { return bitsToFloat(bits); }
__device__ __forceinline__ double f64_from_bits(uint64_t bits) {
  double d;
  asm("mov.b64 %0, %1;" : "=d"(d) : "l"(bits));
  return d;
}

__device__ __forceinline__ float toFloat(bf16 x) { return bitsToFloat(unsigned(x.bits) << 16); }
__device__ __forceinline__ float toFloat(f16 x) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
  return f;
}
__device__ __forceinline__ bf16 toBF16(float f) {
  bf16 r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(f));
  return r;
}
__device__ __forceinline__ f16 toF16(float f) {
  f16 r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(f));
  return r;
}

// Round to nearest even, the one instruction the shared fp8 conversions need.
__device__ __forceinline__ float roundToNearestEven(float x) {
  float rounded;
  asm("cvt.rni.f32.f32 %0, %1;" : "=f"(rounded) : "f"(x));
  return rounded;
}
}  // namespace tj
#include "tj/fp8_conversions.h"
namespace tj {


template <typename T>
__device__ __forceinline__ auto widen(T x) {
  if constexpr (kIsHalf<T> || kIsFp8<T>) return toFloat(x);
  else return x;
}

// Converts between every numeric type the emitter names (round to nearest even for floats,
// truncation for float -> int, 0/1 for bool -> number, != 0 for number -> bool).
template <typename U, typename T>
__device__ __forceinline__ U cast(T x) {
  if constexpr (IsSame<T, U>::value) {
    return x;
  } else if constexpr (kIsHalf<T> || kIsFp8<T>) {
    return cast<U>(toFloat(x));
  } else if constexpr (IsSame<U, f8e4m3>::value) {
    return toF8E4M3(static_cast<float>(x));  // from double: through float (see the CPU library)
  } else if constexpr (IsSame<U, f8e5m2>::value) {
    return toF8E5M2(static_cast<float>(x));
  } else if constexpr (IsSame<U, bf16>::value) {
    if constexpr (IsSame<T, double>::value) {
      bf16 r;  // one rounding step from double
      asm("cvt.rn.bf16.f64 %0, %1;" : "=h"(r.bits) : "d"(x));
      return r;
    } else {
      return toBF16(static_cast<float>(x));
    }
  } else if constexpr (IsSame<U, f16>::value) {
    if constexpr (IsSame<T, double>::value) {
      f16 r;
      asm("cvt.rn.f16.f64 %0, %1;" : "=h"(r.bits) : "d"(x));
      return r;
    } else {
      return toF16(static_cast<float>(x));
    }
  } else if constexpr (IsSame<U, bool>::value) {
    return x != T(0);
  } else {
    return static_cast<U>(x);
  }
}

template <int A>
__device__ __forceinline__ int64_t program_id() {
  static_assert(A >= 0 && A <= 2, "program_id axis must be 0, 1 or 2");
  if constexpr (A == 0) return int64_t(blockIdx.x);
  else if constexpr (A == 1) return int64_t(blockIdx.y);
  else return int64_t(blockIdx.z);
}
template <int A>
__device__ __forceinline__ int64_t num_programs() {
  static_assert(A >= 0 && A <= 2, "num_programs axis must be 0, 1 or 2");
  if constexpr (A == 0) return int64_t(gridDim.x);
  else if constexpr (A == 1) return int64_t(gridDim.y);
  else return int64_t(gridDim.z);
}

// Programmatic dependent launch (PTX griddepcontrol, sm_90+). Elsewhere kernels run in stream
// order and both are no-ops.
__device__ __forceinline__ void wait_previous_kernel() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void start_next_kernel() {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

namespace detail {
// Every kernel runs TJ_THREADS threads along x. Said to the optimizer, it bounds every lane,
// warp and layout coordinate derived from the thread: compares it can then decide at compile
// time (an mma tile's columns against the head size) go, with their code - 18 % of the decode
// kernel's PTX and 22 of its 148 registers (head 128, GQA 4).
__device__ __forceinline__ int threadId() {
  const unsigned t = threadIdx.x;
  __builtin_assume(t < unsigned(TJ_THREADS));
  return int(t);
}

// The one scratch buffer of a kernel. Protocol of every user: __syncthreads(); write;
// __syncthreads(); read. The leading barrier keeps a writer from overtaking readers of the
// previous use, whichever function that was.
__device__ __forceinline__ unsigned char* scratch() {
  __shared__ alignas(16) unsigned char buffer[TJ_SMEM_BYTES];
  return buffer;
}
}  // namespace detail

}  // namespace tj

// TJ_MIN_BLOCKS (programs resident per SM) caps registers so that many programs fit: the
// memory-bound kernels are occupancy-limited by registers otherwise (Nsight Compute, H200).
// TJ_CLUSTER_PROGRAMS > 1 runs the programs in thread-block clusters of that many along grid
// axis 2 (sm_90+, tj/cluster.h).
#if defined(TJ_CLUSTER_PROGRAMS) && TJ_CLUSTER_PROGRAMS > 1
#define TJ_CLUSTER_DIMS __cluster_dims__(1, 1, TJ_CLUSTER_PROGRAMS)
#else
#define TJ_CLUSTER_DIMS
#endif
#if defined(TJ_MIN_BLOCKS) && TJ_MIN_BLOCKS > 0
#define TJ_LAUNCH_BOUNDS __launch_bounds__(TJ_THREADS, TJ_MIN_BLOCKS)
#else
#define TJ_LAUNCH_BOUNDS __launch_bounds__(TJ_THREADS)
#endif
#if TJ_TRACE
// The body becomes an inlined function between the trace's first and last points.
#define TJ_KERNEL_ENTRY(name, Args)                                                           \
  __device__ __forceinline__ void name##_traced(const Args& args);                            \
  extern "C" __global__ void TJ_CLUSTER_DIMS TJ_LAUNCH_BOUNDS name(const Args args) {          \
    tj::trace::begin();                                                                       \
    name##_traced(args);                                                                      \
    tj::trace::end(#name);                                                                    \
  }                                                                                           \
  __device__ __forceinline__ void name##_traced(const Args& args)
#else
#define TJ_KERNEL_ENTRY(name, Args) \
  extern "C" __global__ void TJ_CLUSTER_DIMS TJ_LAUNCH_BOUNDS name(const Args args)
#endif
