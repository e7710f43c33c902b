// Scalar types, program ids, wave-level operations and the kernel entry of the HIP backend.
// Self-contained: no HIP runtime headers and no device libraries (compiled with -nogpuinc
// -nogpulib), so every attribute, intrinsic and math function used is defined here.
#pragma once

#ifndef TJ_THREADS
#error "TJ_THREADS (threads per program, a multiple of the wave size) must be defined before tj/device.h"
#endif

// What the HIP headers would define; clang's HIP mode knows the attributes themselves.
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif

// The wave size is the target's (gfx9: 64; gfx11/gfx12 compile wave32 by default), as the
// compiler says through its target macros; a target that states none is refused.
#if defined(__AMDGCN_WAVEFRONT_SIZE__)
#define TJ_WAVE __AMDGCN_WAVEFRONT_SIZE__
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define TJ_WAVE __AMDGCN_WAVEFRONT_SIZE
#elif defined(__GFX9__)
#define TJ_WAVE 64
#elif defined(__GFX11__) || defined(__GFX12__)
#define TJ_WAVE 32
#elif defined(__HIP_DEVICE_COMPILE__)
#error "tj/device.h (HIP): unknown AMDGPU target family: no wave size (gfx9, gfx11, gfx12 are known)"
#else
#define TJ_WAVE 64  // the host pass of a single-source compile sees no target
#endif

static_assert(TJ_THREADS % TJ_WAVE == 0 && TJ_THREADS >= TJ_WAVE && TJ_THREADS <= 1024,
              "TJ_THREADS must be a multiple of the wave size in [wave, 1024]");

#ifndef TJ_SMEM_BYTES
// One LDS scratch buffer shared by every library function of a kernel (reductions,
// broadcasts, dot staging). Overridable by the translation unit (the backend prelude).
#define TJ_SMEM_BYTES 32768
#endif
#if defined(__gfx950__)
static_assert(TJ_SMEM_BYTES <= 160 * 1024, "TJ_SMEM_BYTES exceeds gfx950's 160 KB of LDS");
#else
static_assert(TJ_SMEM_BYTES <= 64 * 1024, "TJ_SMEM_BYTES exceeds the 64 KB of LDS per workgroup");
#endif

typedef __INT64_TYPE__ int64_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT8_TYPE__ int8_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT8_TYPE__ uint8_t;

#include "tj/abi.h"

namespace tj {

// ---- minimal type traits (no standard headers) -------------------------------------------
template <typename A, typename B>
struct IsSame { static constexpr bool value = false; };
template <typename A>
struct IsSame<A, A> { static constexpr bool value = true; };
template <bool C, typename A, typename B>
struct Cond { using type = A; };
template <typename A, typename B>
struct Cond<false, A, B> { using type = B; };
template <typename T>
inline constexpr bool kFalse = false;

struct f16 { unsigned short bits; };
struct bf16 { unsigned short bits; };
// 8-bit float storage types (OCP FP8). e4m3fn: bias 7, no infinities, NaN = S.1111.111,
// largest finite 448. e5m2: bias 15, IEEE-like.
struct f8e4m3 { unsigned char bits; };
struct f8e5m2 { unsigned char bits; };

template <typename T>
inline constexpr bool kIsHalf = IsSame<T, f16>::value || IsSame<T, bf16>::value;
template <typename T>
inline constexpr bool kIsFp8 = IsSame<T, f8e4m3>::value || IsSame<T, f8e5m2>::value;
template <typename T>
inline constexpr bool kIsNarrowFloat = kIsHalf<T> || kIsFp8<T>;

template <typename T>
struct Arith { using type = T; };
template <> struct Arith<f16> { using type = float; };
template <> struct Arith<bf16> { using type = float; };
template <> struct Arith<f8e4m3> { using type = float; };
template <> struct Arith<f8e5m2> { using type = float; };

__device__ __forceinline__ float bitsToFloat(unsigned u) { return __builtin_bit_cast(float, u); }
__device__ __forceinline__ unsigned floatToBits(float f) { return __builtin_bit_cast(unsigned, f); }

__device__ __forceinline__ float f32_from_bits(uint32_t bits) { return bitsToFloat(bits); }
__device__ __forceinline__ double f64_from_bits(uint64_t bits) { return __builtin_bit_cast(double, bits); }

// The compiler's own 16-bit float types convert with round-to-nearest-even (native
// instructions where the target has them: v_cvt_f16_f32, gfx950's v_cvt_pk_bf16_f32).
__device__ __forceinline__ float toFloat(bf16 x) { return bitsToFloat(unsigned(x.bits) << 16); }
__device__ __forceinline__ float toFloat(f16 x) { return float(__builtin_bit_cast(_Float16, x.bits)); }
__device__ __forceinline__ bf16 toBF16(float f) { return bf16{__builtin_bit_cast(unsigned short, (__bf16)f)}; }
__device__ __forceinline__ f16 toF16(float f) { return f16{__builtin_bit_cast(unsigned short, (_Float16)f)}; }

// Round to nearest even (v_rndne_f32), the one instruction the shared fp8 conversions need.
__device__ __forceinline__ float roundToNearestEven(float x) { return __builtin_rintf(x); }
}  // namespace tj
#include "tj/fp8_conversions.h"
namespace tj {

template <typename T>
__device__ __forceinline__ auto widen(T x) {
  if constexpr (kIsNarrowFloat<T>) return toFloat(x);
  else return x;
}

// Converts between every numeric type the emitter names (round to nearest even for floats,
// truncation for float -> int, 0/1 for bool -> number, != 0 for number -> bool).
template <typename U, typename T>
__device__ __forceinline__ U cast(T x) {
  if constexpr (IsSame<T, U>::value) {
    return x;
  } else if constexpr (kIsNarrowFloat<T>) {
    return cast<U>(toFloat(x));
  } else if constexpr (IsSame<U, f8e4m3>::value) {
    return toF8E4M3(static_cast<float>(x));
  } else if constexpr (IsSame<U, f8e5m2>::value) {
    return toF8E5M2(static_cast<float>(x));
  } else if constexpr (IsSame<U, bf16>::value) {
    if constexpr (IsSame<T, double>::value) return bf16{__builtin_bit_cast(unsigned short, (__bf16)x)};
    else return toBF16(static_cast<float>(x));
  } else if constexpr (IsSame<U, f16>::value) {
    if constexpr (IsSame<T, double>::value) return f16{__builtin_bit_cast(unsigned short, (_Float16)x)};
    else return toF16(static_cast<float>(x));
  } else if constexpr (IsSame<U, bool>::value) {
    return x != T(0);
  } else {
    return static_cast<U>(x);
  }
}

// Grid coordinates: workgroup ids (SGPRs); the grid's extent from the dispatch packet's
// work-item counts (HSA's packet, the same in every code object version) over TJ_THREADS.
template <int A>
__device__ __forceinline__ int64_t program_id() {
  static_assert(A >= 0 && A <= 2, "program_id axis must be 0, 1 or 2");
  if constexpr (A == 0) return int64_t(__builtin_amdgcn_workgroup_id_x());
  else if constexpr (A == 1) return int64_t(__builtin_amdgcn_workgroup_id_y());
  else return int64_t(__builtin_amdgcn_workgroup_id_z());
}
template <int A>
__device__ __forceinline__ int64_t num_programs() {
  static_assert(A >= 0 && A <= 2, "num_programs axis must be 0, 1 or 2");
  if constexpr (A == 0) return int64_t(__builtin_amdgcn_grid_size_x() / unsigned(TJ_THREADS));
  else if constexpr (A == 1) return int64_t(__builtin_amdgcn_grid_size_y());
  else return int64_t(__builtin_amdgcn_grid_size_z());
}

// Kernels run in stream order on AMD (no programmatic dependent launch): both are no-ops.
__device__ __forceinline__ void wait_previous_kernel() {}
__device__ __forceinline__ void start_next_kernel() {}

namespace detail {
constexpr int kWave = TJ_WAVE;
constexpr int kWaves = TJ_THREADS / TJ_WAVE;

// Every kernel runs TJ_THREADS work-items along x (the entry says so to the compiler too).
__device__ __forceinline__ int threadId() {
  const unsigned t = __builtin_amdgcn_workitem_id_x();
  __builtin_assume(t < unsigned(TJ_THREADS));
  return int(t);
}
// Waves are consecutive work-items of the one-dimensional workgroup.
__device__ __forceinline__ int laneId() { return threadId() % kWave; }
__device__ __forceinline__ int waveId() {
  return __builtin_amdgcn_readfirstlane(threadId() / kWave);
}

// A workgroup barrier whose LDS and global writes before it are seen by every work-item
// after it (what HIP's __syncthreads is). One wave: a wave barrier is enough.
__device__ __forceinline__ void barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  if constexpr (kWaves > 1) __builtin_amdgcn_s_barrier();
  else __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// The one LDS scratch buffer of a kernel. Protocol of every user: barrier(); write;
// barrier(); read. The leading barrier keeps a writer from overtaking readers of the
// previous use, whichever function that was.
__device__ __forceinline__ unsigned char* scratch() {
  __shared__ alignas(16) unsigned char buffer[TJ_SMEM_BYTES];
  return buffer;
}

// Each wave's own LDS slice for exchanges inside the wave (a wave's whole-tile broadcast):
// one 32-bit word per element of a tile that a wave holds whole (wave size x 8 at most).
constexpr int kWaveScratchBytes = kWave * 8 * 4;
__device__ __forceinline__ unsigned char* waveScratch() {
  __shared__ alignas(16) unsigned char buffer[kWaves * kWaveScratchBytes];
  return buffer + waveId() * kWaveScratchBytes;
}
// Orders one wave's LDS accesses around an exchange inside the wave (its lanes run in
// lockstep and its LDS operations complete in order; this keeps the compiler from moving
// them).
__device__ __forceinline__ void waveSync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

// ---- cross-lane operations on 32-bit words --------------------------------------------
// The word of lane `lane ^ Mask` (Mask < wave size): quad permutes through DPP for 1 and 2,
// ds_swizzle's bit-mask mode (and 0x1f, xor Mask, within 32 lanes) for 4..16, and the LDS
// crossbar (ds_bpermute, no LDS allocated) across the halves of a wave64.
template <int Mask>
__device__ __forceinline__ int xorLaneWord(int v) {
  static_assert(Mask >= 1 && Mask < kWave && (Mask & (Mask - 1)) == 0, "xor lane mask: a power of two below the wave size");
  if constexpr (Mask == 1) return __builtin_amdgcn_update_dpp(v, v, 0xb1, 0xf, 0xf, false);  // quad_perm [1,0,3,2]
  else if constexpr (Mask == 2) return __builtin_amdgcn_update_dpp(v, v, 0x4e, 0xf, 0xf, false);  // [2,3,0,1]
  else if constexpr (Mask <= 16) return __builtin_amdgcn_ds_swizzle(v, 0x1f | (Mask << 10));
  else return __builtin_amdgcn_ds_bpermute((laneId() ^ Mask) << 2, v);
}
// The word of any lane of the wave (each lane names its own source).
__device__ __forceinline__ int laneWord(int v, int lane) { return __builtin_amdgcn_ds_bpermute(lane << 2, v); }

// Values of up to 8 bytes through 32-bit words.
template <typename P, typename WordOp>
__device__ __forceinline__ P viaWords(P v, WordOp op) {
  if constexpr (sizeof(P) == 8) {
    const unsigned long long u = __builtin_bit_cast(unsigned long long, v);
    const unsigned lo = unsigned(op(int(unsigned(u)))), hi = unsigned(op(int(unsigned(u >> 32))));
    return __builtin_bit_cast(P, (unsigned long long)lo | ((unsigned long long)hi << 32));
  } else if constexpr (sizeof(P) == 4) {
    return __builtin_bit_cast(P, op(__builtin_bit_cast(int, v)));
  } else if constexpr (IsSame<P, bool>::value) {
    return op(int(v)) != 0;
  } else if constexpr (sizeof(P) == 2) {
    return __builtin_bit_cast(P, (unsigned short)op(int(__builtin_bit_cast(unsigned short, v))));
  } else {
    return __builtin_bit_cast(P, (unsigned char)op(int(__builtin_bit_cast(unsigned char, v))));
  }
}
template <int Mask, typename P>
__device__ __forceinline__ P xorLane(P v) {
  return viaWords(v, [](int w) { return xorLaneWord<Mask>(w); });
}
template <typename P>
__device__ __forceinline__ P fromLane(P v, int lane) {
  return viaWords(v, [lane](int w) { return laneWord(w, lane); });
}
// A uniform value kept in a vector register: address arithmetic of many views would otherwise
// hold every stride in SGPRs (102 on gfx9) and spill them to VGPR lanes.
template <typename P>
__device__ __forceinline__ P inVgpr(P v) {
  asm("" : "+v"(v));
  return v;
}
// A value the program holds the same in every lane, moved to a scalar register.
template <typename P>
__device__ __forceinline__ P uniform(P v) {
  return viaWords(v, [](int w) { return __builtin_amdgcn_readfirstlane(w); });
}
}  // namespace detail

}  // namespace tj

// The entry: the argument struct by value in the kernarg segment; the workgroup is exactly
// TJ_THREADS work-items (the launch's blockDim.x), which bounds the registers the compiler
// may give each. TJ_MIN_BLOCKS (programs per CU) asks for exactly the waves per SIMD they
// make (the attribute's minimum and maximum): a hint for the compiler's register budget and
// scheduling, no limit on the hardware. With the minimum alone the compiler aims higher where
// the LDS allows it (gfx950's 160 KB) and spills SGPRs to VGPR lanes (paged_decode).
#if defined(TJ_MIN_BLOCKS) && TJ_MIN_BLOCKS > 0
#define TJ_WAVES_PER_SIMD ((TJ_MIN_BLOCKS * TJ_THREADS / TJ_WAVE + 3) / 4)
#define TJ_WAVES_PER_EU __attribute__((amdgpu_waves_per_eu(TJ_WAVES_PER_SIMD, TJ_WAVES_PER_SIMD)))
#else
#define TJ_WAVES_PER_EU
#endif
#define TJ_KERNEL_ENTRY(name, Args)                                                 \
  extern "C" __global__ void                                                        \
  __attribute__((amdgpu_flat_work_group_size(TJ_THREADS, TJ_THREADS))) TJ_WAVES_PER_EU \
  name(const Args args)
