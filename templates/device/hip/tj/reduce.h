// Reductions of the HIP backend: cross-lane butterflies inside a wave (DPP, ds_swizzle,
// ds_bpermute), LDS between waves and for axes whose elements are not lane neighbours.
#pragma once

#include "tj/tile.h"

namespace tj {
namespace detail {

struct SumOp {
  template <typename P>
  __device__ __forceinline__ static P apply(P a, P b) { return a + b; }
  template <typename P>
  __device__ __forceinline__ static P identity() { return P(0); }
};
struct MaxOp {
  template <typename P>
  __device__ __forceinline__ static P apply(P a, P b) { return maximumImpl(a, b); }
  template <typename P>
  __device__ __forceinline__ static P identity() {
    if constexpr (IsSame<P, float>::value) return bitsToFloat(0xff800000u);
    else if constexpr (IsSame<P, double>::value) return f64_from_bits(0xfff0000000000000ull);
    else if constexpr (IsSame<P, bool>::value) return false;
    else return P(P(1) << (sizeof(P) * 8 - 1));  // lowest signed value
  }
};
struct MinOp {
  template <typename P>
  __device__ __forceinline__ static P apply(P a, P b) { return minimumImpl(a, b); }
  template <typename P>
  __device__ __forceinline__ static P identity() {
    if constexpr (IsSame<P, float>::value) return bitsToFloat(0x7f800000u);
    else if constexpr (IsSame<P, double>::value) return f64_from_bits(0x7ff0000000000000ull);
    else if constexpr (IsSame<P, bool>::value) return true;
    else return P(~(P(1) << (sizeof(P) * 8 - 1)));  // highest signed value
  }
};

// Butterfly over aligned groups of Width lanes: both partners of every step combine the same
// two values, so every lane of a group ends with the bit-identical result.
template <typename Op, int Width, typename P>
__device__ __forceinline__ P waveReduce(P v) {
  if constexpr (Width >= 2) {
    v = waveReduce<Op, Width / 2>(v);
    return Op::apply(v, xorLane<Width / 2>(v));
  } else {
    return v;
  }
}

template <int64_t A, int64_t... S>
struct DropAxis;
template <int64_t A, int64_t S0, int64_t S1>
struct DropAxis<A, S0, S1> {
  template <typename T>
  using Out = typename Cond<A == 0, Tile<T, S1>, Tile<T, S0>>::type;
};
template <int64_t A, int64_t S0, int64_t S1, int64_t S2>
struct DropAxis<A, S0, S1, S2> {
  template <typename T>
  using Out = typename Cond<A == 0, Tile<T, S1, S2>,
                            typename Cond<A == 1, Tile<T, S0, S2>, Tile<T, S0, S1>>::type>::type;
};

// 1-D tile -> scalar in every work-item (bit-identical: one order of combination everywhere).
template <typename Op, typename T, int64_t N>
__device__ __forceinline__ T reduceAll(const Tile<T, N>& x) {
  using L = Layout<N>;
  using P = typename Arith<T>::type;
  P acc = Op::template identity<P>();
  if constexpr (L::kRuns == 1) {
#pragma unroll
    for (int j = 0; j < L::kVec; ++j) acc = Op::apply(acc, P(widen(T(x.v[j]))));
    return cast<T>(acc);
  } else {
#pragma unroll
    for (int k = 0; k < L::kPer; ++k) {
      const bool use = L::contributes(k);
#pragma unroll
      for (int j = 0; j < L::kVec; ++j)
        if (use) acc = Op::apply(acc, P(widen(T(x.v[k * L::kVec + j]))));
    }
    acc = waveReduce<Op, kWave>(acc);
    if constexpr (!L::kInWave && kWaves > 1) {
      P* buf = reinterpret_cast<P*>(scratch());
      barrier();
      if (laneId() == 0) buf[threadId() / kWave] = acc;
      barrier();
      acc = buf[0];
#pragma unroll
      for (int w = 1; w < kWaves; ++w) acc = Op::apply(acc, buf[w]);
    }
    return cast<T>(acc);
  }
}

// Along the last axis when a row's runs sit in an aligned group of lanes: a butterfly in the
// group, then one LDS exchange to the result's layout.
template <typename Op, typename Out, typename T, int64_t... S>
__device__ __forceinline__ Out reduceLastInWave(const Tile<T, S...>& x) {
  using In = Tile<T, S...>;
  using LI = typename In::L;
  using LO = typename Out::L;
  using P = typename Arith<T>::type;
  constexpr int kRowRuns = int(In::kLast / LI::kVec);
  static_assert(Out::kSize * sizeof(P) <= TJ_SMEM_BYTES, "reduce: result larger than TJ_SMEM_BYTES");
  P* buf = reinterpret_cast<P*>(scratch());
  P partial[LI::kPer];
#pragma unroll
  for (int k = 0; k < LI::kPer; ++k) {
    P acc = P(widen(T(x.v[k * LI::kVec])));
#pragma unroll
    for (int j = 1; j < LI::kVec; ++j) acc = Op::apply(acc, P(widen(T(x.v[k * LI::kVec + j]))));
    partial[k] = waveReduce<Op, kRowRuns>(acc);
  }
  barrier();
#pragma unroll
  for (int k = 0; k < LI::kPer; ++k)
    if (LI::owner(k) && laneId() % kRowRuns == 0) buf[LI::run(k) / kRowRuns] = partial[k];
  barrier();
  Out out;
#pragma unroll
  for (int k = 0; k < LO::kPer; ++k) {
    const int e = LO::run(k) * LO::kVec;
#pragma unroll
    for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = cast<T>(buf[e + j]);
  }
  return out;
}

// Any axis: the input goes to LDS in slabs along the axis; every work-item folds its own
// output elements over each slab.
template <typename Op, int A, typename Out, typename T, int64_t... S>
__device__ __forceinline__ Out reduceThroughLds(const Tile<T, S...>& x) {
  using In = Tile<T, S...>;
  using LI = typename In::L;
  using LO = typename Out::L;
  using P = typename Arith<T>::type;
  constexpr int kAxis = In::dim(A);
  constexpr int kOther = int(In::kSize / kAxis);
  constexpr int kSlab0 = int(TJ_SMEM_BYTES / sizeof(P)) / kOther;
  static_assert(kSlab0 >= 1, "reduce: one slab exceeds TJ_SMEM_BYTES");
  constexpr int kSlab = kSlab0 < kAxis ? kSlab0 : kAxis;
  int inner = 1;
#pragma unroll
  for (int d = A + 1; d < In::kRank; ++d) inner *= In::dim(d);
  P* buf = reinterpret_cast<P*>(scratch());
  P acc[LO::kRegs];
#pragma unroll
  for (int i = 0; i < LO::kRegs; ++i) acc[i] = Op::template identity<P>();
  for (int a0 = 0; a0 < kAxis; a0 += kSlab) {
    barrier();
#pragma unroll
    for (int k = 0; k < LI::kPer; ++k) {
      if (!LI::owner(k)) continue;
#pragma unroll
      for (int j = 0; j < LI::kVec; ++j) {
        const int e = LI::run(k) * LI::kVec + j;
        const int outer = e / (kAxis * inner), a = (e / inner) % kAxis, in = e % inner;
        if (a >= a0 && a < a0 + kSlab) buf[(a - a0) * kOther + outer * inner + in] = P(widen(T(x.v[k * LI::kVec + j])));
      }
    }
    barrier();
    const int count = kAxis - a0 < kSlab ? kAxis - a0 : kSlab;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k)
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) {
        const int o = LO::run(k) * LO::kVec + j;
        if (o >= kOther) continue;
        P v = acc[k * LO::kVec + j];
        for (int a = 0; a < count; ++a) v = Op::apply(v, buf[a * kOther + o]);
        acc[k * LO::kVec + j] = v;
      }
  }
  Out out;
#pragma unroll
  for (int i = 0; i < LO::kRegs; ++i) out.v[i] = cast<T>(acc[i]);
  return out;
}

template <typename Op, int A, typename T, int64_t... S>
__device__ __forceinline__ auto reduce(const Tile<T, S...>& x) {
  using In = Tile<T, S...>;
  static_assert(A >= 0 && A < In::kRank, "reduce: axis out of range");
  if constexpr (In::kRank == 1) {
    return reduceAll<Op>(x);
  } else {
    using Out = typename DropAxis<A, S...>::template Out<T>;
    using LI = typename In::L;
    constexpr int64_t kRowRuns = In::kLast / LI::kVec;
    constexpr bool kInWave = A == In::kRank - 1 && In::kLast % LI::kVec == 0 && kRowRuns <= kWave &&
                             (kRowRuns & (kRowRuns - 1)) == 0;
    if constexpr (kInWave) return reduceLastInWave<Op, Out>(x);
    else return reduceThroughLds<Op, A, Out>(x);
  }
}

}  // namespace detail

template <int A, typename T, int64_t... S>
__device__ __forceinline__ auto reduce_sum(const Tile<T, S...>& x) {
  return detail::reduce<detail::SumOp, A>(x);
}
template <int A, typename T, int64_t... S>
__device__ __forceinline__ auto reduce_max(const Tile<T, S...>& x) {
  return detail::reduce<detail::MaxOp, A>(x);
}
template <int A, typename T, int64_t... S>
__device__ __forceinline__ auto reduce_min(const Tile<T, S...>& x) {
  return detail::reduce<detail::MinOp, A>(x);
}

}  // namespace tj
