// dot of the HIP backend: acc + a @ b, accumulated in float. 16-bit operands of whole 16x16
// output blocks and whole instruction K steps go through the target's matrix instruction
// (gfx90a/gfx942 MFMA 16x16x16, gfx950 MFMA 16x16x32, gfx11 WMMA, gfx12 WMMA in its gfx12
// operand form); everything else through a plain loop. Operands are staged in LDS with K
// contiguous (b transposed there when it is [K, N]), each wave computes whole 16x16 blocks,
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

// Rows of staged operands: K elements and 16 bytes of padding (rows 16-byte aligned; the 16
// lanes of a group that read the same k of 16 rows fall on different banks).
template <typename S, int K>
inline constexpr int kStagedStride = K + int(16 / sizeof(S));

// Stages x ([Rows, Cols] row-major) at dst[row * stride + col], or transposed at
// dst[col * stride + row].
template <bool Transposed, typename S, typename T, int64_t R, int64_t C>
__device__ __forceinline__ void stage(S* dst, const Tile<T, R, C>& x, int stride) {
  using L = typename Tile<T, R, C>::L;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    if constexpr (!Transposed && IsSame<S, T>::value && IsPacked<Regs<T, L::kRegs>>::value && L::kVec == 8 &&
                  C % 8 == 0) {
      // A run of 8 16-bit elements is one 16-byte LDS store (rows are 16-byte aligned).
      const int e = L::run(k) * L::kVec;
      const unsigned* w = &x.v.w[k * L::kVec / 2];
      *reinterpret_cast<Words4*>(dst + (e / int(C)) * stride + e % int(C)) = Words4{w[0], w[1], w[2], w[3]};
    } else {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j) {
        const int e = L::run(k) * L::kVec + j;
        const int row = e / int(C), col = e % int(C);
        dst[Transposed ? col * stride + row : row * stride + col] = cast<S>(T(x.v[k * L::kVec + j]));
      }
    }
  }
}

template <typename S, int E>
__device__ __forceinline__ auto fragment(const S* rowStart) {
  using Words = unsigned __attribute__((ext_vector_type(E * int(sizeof(S)) / 4)));
  return *reinterpret_cast<const Words*>(rowStart);
}

// out = acc + a @ b^T with a [M, K] and bt [N, K] staged in LDS (K contiguous).
template <typename S, int M, int N, int K, typename Acc>
__device__ __forceinline__ Acc dotStaged(const S* as, const S* bs, const Acc& acc, float* product) {
  using MI = MatrixInstruction;
  using LO = typename Acc::L;
  constexpr int kStride = kStagedStride<S, K>;
  constexpr bool kMatrix = MI::kAvailable && kIsHalf<S> && M % 16 == 0 && N % 16 == 0 && K % MI::kK == 0;
  if constexpr (kMatrix) {
    constexpr int kBlocks = (M / 16) * (N / 16);
    constexpr int kPerWave = (kBlocks + kWaves - 1) / kWaves;
    const int lane = laneId(), wave = waveId();
    const int row = lane % 16, group = (lane / 16) % MI::kGroups;
    typename MI::Accumulator c[kPerWave];
#pragma unroll
    for (int b = 0; b < kPerWave; ++b) c[b] = typename MI::Accumulator{};
    for (int k0 = 0; k0 < K; k0 += MI::kK) {
#pragma unroll
      for (int b = 0; b < kPerWave; ++b) {
        const int block = wave + b * kWaves;
        if (kBlocks % kWaves != 0 && block >= kBlocks) continue;
        const int bm = block / (N / 16), bn = block % (N / 16);
        const int kk = k0 + group * MI::kE;
        const auto fa = fragment<S, MI::kE>(as + (bm * 16 + row) * kStride + kk);
        const auto fb = fragment<S, MI::kE>(bs + (bn * 16 + row) * kStride + kk);
        c[b] = MI::template step<S>(__builtin_bit_cast(typename MI::template Operand<S>, fa),
                                    __builtin_bit_cast(typename MI::template Operand<S>, fb), c[b]);
      }
    }
    barrier();  // every wave has read its operands: the product may overwrite them
#pragma unroll
    for (int b = 0; b < kPerWave; ++b) {
      const int block = wave + b * kWaves;
      if (kBlocks % kWaves != 0 && block >= kBlocks) continue;
      const int bm = block / (N / 16), bn = block % (N / 16);
      // gfx11: lanes 16..31 hold the odd rows; every lane writes its own elements.
#pragma unroll
      for (int v = 0; v < MI::kC; ++v) product[(bm * 16 + MI::cRow(lane, v)) * N + bn * 16 + row] = c[b][v];
    }
    barrier();
    Acc out;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k)
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) {
        const int e = LO::run(k) * LO::kVec + j;
        out.v[k * LO::kVec + j] = acc.v[k * LO::kVec + j] + (LO::valid(k) ? product[e] : 0.0f);
      }
    return out;
  } else {
    (void)product;
    Acc out;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k)
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) {
        const int e = LO::valid(k) ? LO::run(k) * LO::kVec + j : 0;
        const int i = e / N, n = e % N;
        float sum = acc.v[k * LO::kVec + j];
        for (int kk = 0; kk < K; ++kk) sum += float(widen(as[i * kStride + kk])) * float(widen(bs[n * kStride + kk]));
        out.v[k * LO::kVec + j] = sum;
      }
    return out;
  }
}

}  // namespace detail

template <bool TransB, typename Ta, typename Tb, int64_t M, int64_t K, int64_t B0, int64_t B1>
__device__ __forceinline__ Tile<float, M, (TransB ? B0 : B1)> dot(const Tile<Ta, M, K>& a, const Tile<Tb, B0, B1>& b,
                                                                 const Tile<float, M, (TransB ? B0 : B1)>& acc) {
  constexpr int64_t N = TransB ? B0 : B1;
  static_assert((TransB ? B1 : B0) == K, "dot: a's K and b's K differ");
  // 16-bit operands of one type stage as they are; anything else as float.
  using S = typename Cond<IsSame<Ta, Tb>::value && kIsHalf<Ta>, Ta, float>::type;
  constexpr int kStride = detail::kStagedStride<S, int(K)>;
  constexpr int64_t kStagedBytes = (M + N) * kStride * int64_t(sizeof(S));
  static_assert(kStagedBytes <= TJ_SMEM_BYTES && M * N * 4 <= TJ_SMEM_BYTES,
                "dot: the staged operands ((M + N) * (K + 16 B) ) or the f32 product exceed TJ_SMEM_BYTES");
  S* as = reinterpret_cast<S*>(detail::scratch());
  S* bs = as + M * kStride;
  detail::barrier();
  detail::stage<false>(as, a, kStride);
  detail::stage<!TransB>(bs, b, kStride);
  detail::barrier();
  return detail::dotStaged<S, int(M), int(N), int(K)>(as, bs, acc, reinterpret_cast<float*>(detail::scratch()));
}

}  // namespace tj
