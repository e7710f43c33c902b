// dot of the HIP backend: acc + a @ b, accumulated in float. 16-bit operands of whole 16x16
// output blocks and whole instruction K steps go through the target's matrix instruction
// (gfx90a/gfx942 MFMA 16x16x16, gfx950 MFMA 16x16x32, gfx11 WMMA, gfx12 WMMA in its gfx12
// operand form); everything else through a plain loop. Operands are staged in LDS with K
// contiguous (b transposed there when it is [K, N]; in chunks of K when all of it exceeds the
// scratch), each wave computes whole 16x16 blocks,
// and the product returns through LDS to the accumulator's layout. Operand and accumulator
// lane layouts: README.md (the same bases as compiler/backends/hip/matrix_instructions.cpp).
#pragma once

#include "tj/memory.h"

namespace tj {
namespace detail {

// One matrix instruction of the target, for 16-bit operands: per lane, kE consecutive k of one
// row of A (and one column of B) from lane group (lane / 16) % kGroups; kC accumulator
// elements of column lane % 16, element v in row cRow(lane, v).
struct MatrixInstruction {
#if defined(__gfx950__)
  static constexpr bool kAvailable = true;
  static constexpr int kK = 32, kE = 8, kC = 4;
  __device__ __forceinline__ static int cRow(int lane, int v) { return 4 * (lane / 16) + v; }
#elif defined(__GFX9__)
  static constexpr bool kAvailable = true;
  static constexpr int kK = 16, kE = 4, kC = 4;
  __device__ __forceinline__ static int cRow(int lane, int v) { return 4 * (lane / 16) + v; }
#elif defined(__GFX12__)
  static constexpr bool kAvailable = true;
  static constexpr int kK = 16, kE = 8, kC = 8;
  __device__ __forceinline__ static int cRow(int lane, int v) { return 8 * (lane / 16) + v; }
#elif defined(__GFX11__)
  static constexpr bool kAvailable = true;
  static constexpr int kK = 16, kE = 16, kC = 8;  // lanes 16..31 repeat lanes 0..15's operands
  __device__ __forceinline__ static int cRow(int lane, int v) { return 2 * v + lane / 16; }
#else
  static constexpr bool kAvailable = false;
  static constexpr int kK = 16, kE = 4, kC = 4;
  __device__ __forceinline__ static int cRow(int lane, int v) { return 4 * (lane / 16) + v; }
#endif
  static constexpr int kGroups = kK / kE;
  static_assert(kGroups * 16 <= TJ_WAVE, "a matrix instruction's operand groups fill at most one wave");

  template <typename T>
  using Operand = typename Cond<IsSame<T, bf16>::value,
#if defined(__gfx950__)
                                __bf16 __attribute__((ext_vector_type(kE))),
#else
                                short __attribute__((ext_vector_type(kE))),
#endif
                                _Float16 __attribute__((ext_vector_type(kE)))>::type;
  using Accumulator = float __attribute__((ext_vector_type(kC)));

  template <typename T>
  __device__ __forceinline__ static Accumulator step(Operand<T> a, Operand<T> b, Accumulator c) {
    constexpr bool kBf16 = IsSame<T, bf16>::value;
#if defined(__gfx950__)
    if constexpr (kBf16) return __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0);
    else return __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, 0, 0, 0);
#elif defined(__GFX9__)
    if constexpr (kBf16) return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
    else return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
#elif defined(__GFX12__)
    if constexpr (kBf16) return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, c);
    else return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c);
#elif defined(__GFX11__)
    if constexpr (kBf16) return __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, c);
    else return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);
#else
    (void)a, (void)b;
    return c;
#endif
  }
};

// Rows of staged operands: a chunk of KC k values and 16 bytes of padding (rows 16-byte
// aligned; the 16 lanes of a group that read the same k of 16 rows fall on different banks).
template <typename S, int KC>
inline constexpr int kStagedStride = KC + int(16 / sizeof(S));

// The k values staged at once: all of K if the operands fit the scratch, else the largest
// divisor of K, a multiple of Step, that does.
template <typename S, int M, int N, int K, int Step>
constexpr int stagedChunk() {
  for (int kc = K; kc >= Step; kc -= Step)
    if (K % kc == 0 && kc % Step == 0 &&
        int64_t(M + N) * (kc + int(16 / sizeof(S))) * int64_t(sizeof(S)) <= TJ_SMEM_BYTES)
      return kc;
  return 0;
}

// Stages the k values [k0, k0 + KC) of x ([Rows, Cols] row-major): KAlongCols (a, and b as
// [N, K]) at dst[row * stride + col - k0], else (b as [K, N]) transposed at
// dst[col * stride + row - k0].
template <bool KAlongCols, int KC, typename S, typename T, int64_t R, int64_t C>
__device__ __forceinline__ void stage(S* dst, const Tile<T, R, C>& x, int stride, int k0) {
  using L = typename Tile<T, R, C>::L;
  constexpr bool kWhole = KC == (KAlongCols ? C : R);
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    if constexpr (KAlongCols && IsSame<S, T>::value && IsPacked<Regs<T, L::kRegs>>::value && L::kVec == 8 &&
                  C % 8 == 0 && KC % 8 == 0) {
      // A run of 8 16-bit elements is one 16-byte LDS store (rows are 16-byte aligned).
      const int e = L::run(k) * L::kVec, col = e % int(C) - k0;
      if (!kWhole && (col < 0 || col >= KC)) continue;
      const unsigned* w = &x.v.w[k * L::kVec / 2];
      *reinterpret_cast<Words4*>(dst + (e / int(C)) * stride + col) = Words4{w[0], w[1], w[2], w[3]};
    } else {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j) {
        const int e = L::run(k) * L::kVec + j;
        const int row = e / int(C), col = e % int(C);
        const int kk = (KAlongCols ? col : row) - k0;
        if (!kWhole && (kk < 0 || kk >= KC)) continue;
        dst[KAlongCols ? row * stride + kk : col * stride + kk] = cast<S>(T(x.v[k * L::kVec + j]));
      }
    }
  }
}

template <typename S, int E>
__device__ __forceinline__ auto fragment(const S* rowStart) {
  using Words = unsigned __attribute__((ext_vector_type(E * int(sizeof(S)) / 4)));
  return *reinterpret_cast<const Words*>(rowStart);
}

}  // namespace detail

template <bool TransB, typename Ta, typename Tb, int64_t M, int64_t K, int64_t B0, int64_t B1>
__device__ __forceinline__ Tile<float, M, (TransB ? B0 : B1)> dot(const Tile<Ta, M, K>& a, const Tile<Tb, B0, B1>& b,
                                                                 const Tile<float, M, (TransB ? B0 : B1)>& acc) {
  using MI = detail::MatrixInstruction;
  using Acc = Tile<float, M, (TransB ? B0 : B1)>;
  using LO = typename Acc::L;
  constexpr int N = int(TransB ? B0 : B1);
  static_assert((TransB ? B1 : B0) == K, "dot: a's K and b's K differ");
  // 16-bit operands of one type stage as they are; anything else as float.
  using S = typename Cond<IsSame<Ta, Tb>::value && kIsHalf<Ta>, Ta, float>::type;
  constexpr bool kMatrix = MI::kAvailable && kIsHalf<S> && M % 16 == 0 && N % 16 == 0 && K % MI::kK == 0;
  constexpr int kChunk = detail::stagedChunk<S, int(M), N, int(K), kMatrix ? MI::kK : (K % 8 == 0 ? 8 : 1)>();
  static_assert(kChunk > 0, "dot: not even one K step of the operands ((M + N) x (step + 16 B)) fits TJ_SMEM_BYTES");
  static_assert(M * N * 4 <= TJ_SMEM_BYTES, "dot: the f32 product (M x N) exceeds TJ_SMEM_BYTES");
  constexpr int kStride = detail::kStagedStride<S, kChunk>;
  S* as = reinterpret_cast<S*>(detail::scratch());
  S* bs = as + M * kStride;
  float* product = reinterpret_cast<float*>(detail::scratch());
  Acc out;
  if constexpr (kMatrix) {
    // Each wave computes whole 16x16 blocks, dealt round-robin; its accumulators persist
    // over the chunks.
    constexpr int kBlocks = int(M / 16) * (N / 16);
    constexpr int kPerWave = (kBlocks + detail::kWaves - 1) / detail::kWaves;
    const int lane = detail::laneId(), wave = detail::waveId();
    const int row = lane % 16, group = (lane / 16) % MI::kGroups;
    typename MI::Accumulator c[kPerWave];
#pragma unroll
    for (int q = 0; q < kPerWave; ++q) c[q] = typename MI::Accumulator{};
    for (int k0 = 0; k0 < int(K); k0 += kChunk) {
      detail::barrier();
      detail::stage<true, kChunk>(as, a, kStride, k0);
      detail::stage<TransB, kChunk>(bs, b, kStride, k0);
      detail::barrier();
      for (int kk = 0; kk < kChunk; kk += MI::kK) {
#pragma unroll
        for (int q = 0; q < kPerWave; ++q) {
          const int block = wave + q * detail::kWaves;
          if (kBlocks % detail::kWaves != 0 && block >= kBlocks) continue;
          const int bm = block / (N / 16), bn = block % (N / 16), k = kk + group * MI::kE;
          const auto fa = detail::fragment<S, MI::kE>(as + (bm * 16 + row) * kStride + k);
          const auto fb = detail::fragment<S, MI::kE>(bs + (bn * 16 + row) * kStride + k);
          c[q] = MI::template step<S>(__builtin_bit_cast(typename MI::template Operand<S>, fa),
                                      __builtin_bit_cast(typename MI::template Operand<S>, fb), c[q]);
        }
      }
    }
    detail::barrier();  // every wave has read its operands: the product may overwrite them
#pragma unroll
    for (int q = 0; q < kPerWave; ++q) {
      const int block = wave + q * detail::kWaves;
      if (kBlocks % detail::kWaves != 0 && block >= kBlocks) continue;
      const int bm = block / (N / 16), bn = block % (N / 16);
#pragma unroll
      for (int v = 0; v < MI::kC; ++v) product[(bm * 16 + MI::cRow(lane, v)) * N + bn * 16 + row] = c[q][v];
    }
    detail::barrier();
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k)
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j)
        out.v[k * LO::kVec + j] = acc.v[k * LO::kVec + j] + (LO::valid(k) ? product[LO::run(k) * LO::kVec + j] : 0.0f);
  } else {
    // The plain loop: every work-item its own accumulator elements over the staged chunks.
#pragma unroll
    for (int i = 0; i < LO::kRegs; ++i) out.v[i] = acc.v[i];
    for (int k0 = 0; k0 < int(K); k0 += kChunk) {
      detail::barrier();
      detail::stage<true, kChunk>(as, a, kStride, k0);
      detail::stage<TransB, kChunk>(bs, b, kStride, k0);
      detail::barrier();
#pragma unroll
      for (int k = 0; k < LO::kPer; ++k)
#pragma unroll
        for (int j = 0; j < LO::kVec; ++j) {
          const int e = LO::valid(k) ? LO::run(k) * LO::kVec + j : 0;
          const int i = e / N, n = e % N;
          float sum = out.v[k * LO::kVec + j];
          for (int kk = 0; kk < kChunk; ++kk) sum += float(widen(as[i * kStride + kk])) * float(widen(bs[n * kStride + kk]));
          out.v[k * LO::kVec + j] = sum;
        }
    }
  }
  return out;
}

}  // namespace tj
