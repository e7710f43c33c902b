// Tiles of the HIP backend: layout, elementwise functions, creation and shape.
//
// Layout: a pure function of the element count N, TJ_THREADS and the wave size, independent of
// the element type and of how N splits into dimensions, so casts, compares, selects, reshape
// and expand_dims stay in registers. The row-major element sequence is cut into runs of VEC
// contiguous elements (the largest power of two <= 8 dividing N: one 16-byte load for 16-bit
// types). With R = N / VEC runs: if R >= TJ_THREADS, work-item t owns runs k * TJ_THREADS + t;
// otherwise every work-item holds a copy of one run (lane % R when R <= the wave size, else
// t % R; work-items t < R store), so every wave holds the same runs in the same lanes and
// reductions to scalars are bit-identical in every work-item.
#pragma once

#include "tj/types.h"

namespace tj {

template <int64_t N>
struct Layout {
  static_assert(N >= 1, "tile dimensions must be positive");
  static_assert(N <= (int64_t(1) << 24), "tile too large");
  static constexpr int kVec = (N % 8 == 0) ? 8 : (N % 4 == 0) ? 4 : (N % 2 == 0) ? 2 : 1;
  static constexpr int kRuns = int(N / kVec);
  static constexpr bool kReplicated = kRuns < TJ_THREADS;
  static constexpr bool kInWave = kReplicated && kRuns <= TJ_WAVE;
  static constexpr int kPer = kReplicated ? 1 : (kRuns + TJ_THREADS - 1) / TJ_THREADS;
  static constexpr bool kExact = kReplicated || kRuns % TJ_THREADS == 0;
  static constexpr int kRegs = kPer * kVec;

  __device__ __forceinline__ static int run(int k) {
    if constexpr (kInWave) return detail::laneId() % kRuns;
    else if constexpr (kReplicated) return detail::threadId() % kRuns;
    else return k * TJ_THREADS + detail::threadId();
  }
  __device__ __forceinline__ static bool valid(int k) {
    if constexpr (kExact) return true;
    else return run(k) < kRuns;
  }
  // Whether this work-item writes slot k (no duplicate stores of replicated runs).
  __device__ __forceinline__ static bool owner(int k) {
    if constexpr (kReplicated) return detail::threadId() < kRuns;
    else return valid(k);
  }
  // Whether slot k is a distinct contribution to a reduction over the wave: lanes < R of each
  // wave (R <= wave size) or work-items < R.
  __device__ __forceinline__ static bool contributes(int k) {
    if constexpr (kInWave) return detail::laneId() < kRuns;
    else if constexpr (kReplicated) return detail::threadId() < kRuns;
    else return valid(k);
  }
};

// Registers of a tile: 16-bit floats two to a 32-bit VGPR (gfx9 has no 16-bit register
// halves; unpacked they would take a VGPR each), everything else a plain array.
template <typename T, int N>
struct PackedRegs {
  unsigned w[N / 2];
  struct Ref {
    unsigned& word;
    int hi;
    __device__ __forceinline__ operator T() const { return T{(unsigned short)(hi ? word >> 16 : word & 0xffffu)}; }
    __device__ __forceinline__ Ref& operator=(T x) {
      word = hi ? ((word & 0xffffu) | (unsigned(x.bits) << 16)) : ((word & 0xffff0000u) | x.bits);
      return *this;
    }
    __device__ __forceinline__ Ref& operator=(const Ref& r) { return *this = T(r); }
  };
  __device__ __forceinline__ Ref operator[](int i) { return Ref{w[i / 2], i % 2}; }
  __device__ __forceinline__ T operator[](int i) const {
    return T{(unsigned short)(i % 2 ? w[i / 2] >> 16 : w[i / 2] & 0xffffu)};
  }
};
namespace detail {
template <typename T, int N, bool Packed = kIsHalf<T> && N % 2 == 0>
struct RegsOf { using type = T[N]; };
template <typename T, int N>
struct RegsOf<T, N, true> { using type = PackedRegs<T, N>; };
// Bools as bytes: an i1 value stored and reloaded as its i8 memory form defeats SROA (the
// tile then lives in scratch).
template <int N>
struct RegsOf<bool, N, false> { using type = unsigned char[N]; };
}  // namespace detail
template <typename T, int N>
using Regs = typename detail::RegsOf<T, N>::type;

template <typename T, int64_t... D>
struct Tile {
  static_assert(sizeof...(D) >= 1 && sizeof...(D) <= 3, "tiles have rank 1..3");
  static constexpr int kRank = sizeof...(D);
  static constexpr int64_t kSize = (D * ...);
  static constexpr int64_t kShape[kRank] = {D...};
  static constexpr int64_t kLast = kShape[kRank - 1];
  __host__ __device__ static constexpr int dim(int d) {
    const int64_t dims[kRank] = {D...};
    return int(dims[d]);
  }
  using Element = T;
  using L = Layout<kSize>;
  template <typename U>
  using WithElement = Tile<U, D...>;
  Regs<T, L::kRegs> v;
};

template <typename X>
struct IsTile { static constexpr bool value = false; };
template <typename T, int64_t... D>
struct IsTile<Tile<T, D...>> { static constexpr bool value = true; };

// ---- scalar math without device libraries ------------------------------------------------
namespace detail {

template <typename P>
__device__ __forceinline__ void requireFloat() {
  static_assert(IsSame<P, float>::value, "HIP library: this function is provided for f32 (and "
                                         "16-bit floats through f32) only; f64 would need ocml");
}

// v_exp_f32 / v_log_f32 (base 2), as the CUDA library's ex2/lg2.approx.
template <typename P>
__device__ __forceinline__ P exp2Impl(P p) { requireFloat<P>(); return __builtin_amdgcn_exp2f(p); }
template <typename P>
__device__ __forceinline__ P expImpl(P p) { requireFloat<P>(); return __builtin_amdgcn_exp2f(p * 1.4426950408889634f); }
template <typename P>
__device__ __forceinline__ P log2Impl(P p) { requireFloat<P>(); return __builtin_amdgcn_logf(p); }
template <typename P>
__device__ __forceinline__ P logImpl(P p) { requireFloat<P>(); return __builtin_amdgcn_logf(p) * 0.6931471805599453f; }
template <typename P>
__device__ __forceinline__ P sqrtImpl(P p) {
  if constexpr (IsSame<P, float>::value) return __builtin_sqrtf(p);
  else return __builtin_sqrt(p);
}
template <typename P>
__device__ __forceinline__ P rsqrtImpl(P p) {
  if constexpr (IsSame<P, float>::value) return __builtin_amdgcn_rsqf(p);
  else return 1.0 / __builtin_sqrt(p);
}
// tanh (no libcall without ocml): 1 - 2 / (e^2|x| + 1) with the sign, an odd polynomial near
// 0 where that cancels; saturates to +-1 and keeps NaN.
template <typename P>
__device__ __forceinline__ P tanhImpl(P p) {
  requireFloat<P>();
  const float a = __builtin_fabsf(p);
  float r;
  if (a < 0.125f) {
    const float x2 = p * p;
    r = a * (1.0f + x2 * (-0.33333333f + x2 * (0.13333333f + x2 * -0.053968254f)));
  } else {
    const float e = __builtin_amdgcn_exp2f(a * 2.8853900817779268f);  // e^(2a)
    r = 1.0f - 2.0f / (e + 1.0f);
  }
  return p != p ? p : __builtin_copysignf(r, p);
}
template <typename P>
__device__ __forceinline__ P absImpl(P p) {
  if constexpr (IsSame<P, float>::value) return __builtin_fabsf(p);
  else if constexpr (IsSame<P, double>::value) return __builtin_fabs(p);
  else return p < 0 ? P(-p) : p;
}
template <typename P>
__device__ __forceinline__ P remImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value) return __builtin_fmodf(p, q);
  else if constexpr (IsSame<P, double>::value) return __builtin_fmod(p, q);
  else return p % q;
}
// NaN-propagating (arith.maximumf): llvm.maximum (v_maximum_f32 where the target has it).
template <typename P>
__device__ __forceinline__ P maximumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value || IsSame<P, double>::value) return __builtin_elementwise_maximum(p, q);
  else return p > q ? p : q;
}
template <typename P>
__device__ __forceinline__ P minimumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value || IsSame<P, double>::value) return __builtin_elementwise_minimum(p, q);
  else return p < q ? p : q;
}
template <typename P>
__device__ __forceinline__ P maxnumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value) return __builtin_fmaxf(p, q);
  else if constexpr (IsSame<P, double>::value) return __builtin_fmax(p, q);
  else return p > q ? p : q;
}
template <typename P>
__device__ __forceinline__ P minnumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value) return __builtin_fminf(p, q);
  else if constexpr (IsSame<P, double>::value) return __builtin_fmin(p, q);
  else return p < q ? p : q;
}

}  // namespace detail

// ---- elementwise ------------------------------------------------------------------------
// 16-bit floats compute in float and round back, as arith on f16/bf16 does; `p` and `q` are
// the operands as computed.
#define TJ_ELEMENT(dst, T, expr, ...)                                  \
  if constexpr (kIsNarrowFloat<T>) {                                   \
    const auto p = toFloat(__VA_ARGS__);                               \
    dst = cast<T>(decltype(p)(expr));                                  \
  } else {                                                             \
    const T p = __VA_ARGS__;                                           \
    dst = T(expr);                                                     \
  }
#define TJ_ELEMENT2(dst, R, T, expr, a, b)                             \
  if constexpr (kIsNarrowFloat<T>) {                                   \
    const auto p = toFloat(a), q = toFloat(b);                         \
    dst = R(expr);                                                     \
  } else {                                                             \
    const T p = a, q = b;                                              \
    dst = R(expr);                                                     \
  }

#define TJ_BINARY(name, expr)                                                       \
  template <typename X>                                                            \
  __device__ __forceinline__ X name(const X& x, const X& y) {                      \
    X out;                                                                         \
    if constexpr (IsTile<X>::value) {                                              \
      using T = typename X::Element;                                               \
      using Math = typename Arith<T>::type;                                        \
      _Pragma("unroll") for (int i = 0; i < X::L::kRegs; ++i) {                    \
        Math r;                                                                    \
        TJ_ELEMENT2(r, Math, T, expr, x.v[i], y.v[i])                              \
        out.v[i] = cast<T>(r);                                                     \
      }                                                                            \
    } else {                                                                       \
      using Math = typename Arith<X>::type;                                        \
      Math r;                                                                      \
      TJ_ELEMENT2(r, Math, X, expr, x, y)                                          \
      out = cast<X>(r);                                                            \
    }                                                                              \
    return out;                                                                    \
  }
#include "tj/gpu_elementwise_ops.h"
#undef TJ_BINARY

#define TJ_UNARY(name, expr)                                                        \
  template <typename X>                                                            \
  __device__ __forceinline__ X name(const X& x) {                                  \
    X out;                                                                         \
    if constexpr (IsTile<X>::value) {                                              \
      using T = typename X::Element;                                               \
      _Pragma("unroll") for (int i = 0; i < X::L::kRegs; ++i) {                    \
        TJ_ELEMENT(out.v[i], T, expr, x.v[i])                                      \
      }                                                                            \
    } else {                                                                       \
      TJ_ELEMENT(out, X, expr, x)                                                  \
    }                                                                              \
    return out;                                                                    \
  }
#include "tj/gpu_elementwise_ops.h"
#undef TJ_UNARY

#define TJ_COMPARE(name, expr)                                                      \
  template <typename X>                                                            \
  __device__ __forceinline__ auto name(const X& x, const X& y) {                   \
    if constexpr (IsTile<X>::value) {                                              \
      using T = typename X::Element;                                               \
      typename X::template WithElement<bool> out;                                  \
      _Pragma("unroll") for (int i = 0; i < X::L::kRegs; ++i) {                    \
        TJ_ELEMENT2(out.v[i], bool, T, expr, x.v[i], y.v[i])                       \
      }                                                                            \
      return out;                                                                  \
    } else {                                                                       \
      bool out;                                                                    \
      TJ_ELEMENT2(out, bool, X, expr, x, y)                                        \
      return out;                                                                  \
    }                                                                              \
  }
#include "tj/gpu_elementwise_ops.h"
#undef TJ_COMPARE
#undef TJ_ELEMENT
#undef TJ_ELEMENT2

template <typename C, typename X>
__device__ __forceinline__ X select(const C& cond, const X& a, const X& b) {
  if constexpr (IsTile<X>::value) {
    X out;
#pragma unroll
    for (int i = 0; i < X::L::kRegs; ++i) {
      if constexpr (IsTile<C>::value) out.v[i] = cond.v[i] ? a.v[i] : b.v[i];
      else out.v[i] = cond ? a.v[i] : b.v[i];
    }
    return out;
  } else {
    return cond ? a : b;
  }
}

template <typename U, typename T, int64_t... D>
__device__ __forceinline__ Tile<U, D...> cast(const Tile<T, D...>& x) {
  Tile<U, D...> out;
#pragma unroll
  for (int i = 0; i < Tile<T, D...>::L::kRegs; ++i) out.v[i] = cast<U>(T(x.v[i]));
  return out;
}

// ---- creation -----------------------------------------------------------------------------

template <typename T, int64_t... D>
__device__ __forceinline__ Tile<T, D...> full(T value) {
  Tile<T, D...> out;
#pragma unroll
  for (int i = 0; i < Tile<T, D...>::L::kRegs; ++i) out.v[i] = value;
  return out;
}

template <typename X>
__device__ __forceinline__ X splat(typename X::Element value) {
  X out;
#pragma unroll
  for (int i = 0; i < X::L::kRegs; ++i) out.v[i] = value;
  return out;
}

// Element e's index along axis Axis of X (row-major), for range and range_along.
template <typename X>
__device__ __forceinline__ int elementIndexAlong(int e, int axis) {
  int stride = 1;
#pragma unroll
  for (int d = X::kRank - 1; d > axis; --d) stride *= X::dim(d);
  return e / stride % X::dim(axis);
}

template <typename T, int64_t N>
__device__ __forceinline__ Tile<T, N> range(T start) {
  using L = Layout<N>;
  Tile<T, N> out;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k)
#pragma unroll
    for (int j = 0; j < L::kVec; ++j) out.v[k * L::kVec + j] = T(start + T(L::run(k) * L::kVec + j));
  return out;
}

template <int Axis, typename X, typename T>
__device__ __forceinline__ X range_along(T start) {
  static_assert(Axis >= 0 && Axis < X::kRank, "range_along: no such axis");
  using L = typename X::L;
  X out;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k)
#pragma unroll
    for (int j = 0; j < L::kVec; ++j)
      out.v[k * L::kVec + j] = T(start + T(elementIndexAlong<X>(L::run(k) * L::kVec + j, Axis)));
  return out;
}

// ---- shape --------------------------------------------------------------------------------

namespace detail {

template <typename T>
using Storage = typename Cond<IsSame<T, bool>::value, unsigned char, T>::type;

// Writes every element this work-item owns to LDS at its row-major index (as type S).
template <typename S, typename T, int64_t... D>
__device__ __forceinline__ void spill(S* dst, const Tile<T, D...>& x) {
  using L = typename Tile<T, D...>::L;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    S* p = dst + L::run(k) * L::kVec;
#pragma unroll
    for (int j = 0; j < L::kVec; ++j) p[j] = S(T(x.v[k * L::kVec + j]));
  }
}

}  // namespace detail

template <int64_t... D, typename T, int64_t... S>
__device__ __forceinline__ Tile<T, D...> reshape(const Tile<T, S...>& x) {
  static_assert(Tile<T, D...>::kSize == Tile<T, S...>::kSize, "reshape keeps the element count");
  Tile<T, D...> out;  // same element count: same layout
#pragma unroll
  for (int i = 0; i < Tile<T, D...>::L::kRegs; ++i) out.v[i] = x.v[i];
  return out;
}

namespace detail {
template <int A, int64_t... S>
struct Expanded;
template <int A, int64_t S0>
struct Expanded<A, S0> {
  template <typename T>
  using Out = typename Cond<A == 0, Tile<T, 1, S0>, Tile<T, S0, 1>>::type;
};
template <int A, int64_t S0, int64_t S1>
struct Expanded<A, S0, S1> {
  template <typename T>
  using Out = typename Cond<A == 0, Tile<T, 1, S0, S1>,
                            typename Cond<A == 1, Tile<T, S0, 1, S1>, Tile<T, S0, S1, 1>>::type>::type;
};
}  // namespace detail

template <int A, typename T, int64_t... S>
__device__ __forceinline__ auto expand_dims(const Tile<T, S...>& x) {
  static_assert(sizeof...(S) <= 2, "expand_dims: result rank must be <= 3");
  static_assert(A >= 0 && A <= int(sizeof...(S)), "expand_dims: axis out of range");
  using Out = typename detail::Expanded<A, S...>::template Out<T>;
  Out out;  // same element count: same layout
#pragma unroll
  for (int i = 0; i < Out::L::kRegs; ++i) out.v[i] = x.v[i];
  return out;
}

// broadcast: nothing repeated is a copy; an input every wave holds whole (lane r: run r) is
// read with ds_bpermute, no LDS allocated and no barrier, while each output run takes one
// value; otherwise through the scratch.
template <int64_t... D, typename T, int64_t... S>
__device__ __forceinline__ Tile<T, D...> broadcast(const Tile<T, S...>& x) {
  static_assert(sizeof...(D) == sizeof...(S), "broadcast keeps the rank");
  static_assert(((S == D || S == 1) && ...), "broadcast: each input dim must be 1 or equal");
  using Out = Tile<T, D...>;
  using In = Tile<T, S...>;
  using LI = typename In::L;
  using LO = typename Out::L;
  constexpr int R = Out::kRank;
  auto source = [](int f) {
    int s = 0, scale = 1;
#pragma unroll
    for (int d = R - 1; d >= 0; --d) {
      const int i = f % Out::dim(d);
      f /= Out::dim(d);
      if (In::dim(d) != 1) s += i * scale;
      scale *= In::dim(d);
    }
    return s;
  };
  constexpr bool kLastBroadcast = In::kLast == 1 && Out::kLast % LO::kVec == 0;
  if constexpr (Out::kSize == In::kSize) {
    return reshape<D...>(x);
  } else if constexpr (LI::kRuns == 1 && kLastBroadcast) {
    // Every lane holds the whole input: a chain of selects in registers.
    Out out;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k) {
      const int reg = source(LO::valid(k) ? LO::run(k) * LO::kVec : 0);
      T value = x.v[0];
#pragma unroll
      for (int j = 1; j < LI::kVec; ++j) value = reg == j ? T(x.v[j]) : value;
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = value;
    }
    return out;
  } else if constexpr (LI::kInWave && kLastBroadcast && sizeof(detail::Storage<T>) <= 4) {
    // Every wave holds the whole input: it goes through the wave's own LDS slice (in-order
    // LDS accesses of one wave, no workgroup barrier), each lane reads its value by index.
    // Selecting among the source lane's registers instead costs a lane mask (an SGPR pair on
    // wave64) per register, hoisted out of loops: the decode kernel spilled SGPRs that way.
    using St = detail::Storage<T>;
    St* buf = reinterpret_cast<St*>(detail::waveScratch());
    detail::waveSync();
    if (detail::laneId() < LI::kRuns) {
#pragma unroll
      for (int j = 0; j < LI::kVec; ++j) buf[detail::laneId() * LI::kVec + j] = St(T(x.v[j]));
    }
    detail::waveSync();
    Out out;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k) {
      const T value = T(buf[source(LO::valid(k) ? LO::run(k) * LO::kVec : 0)]);
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = value;
    }
    return out;
  } else {
    using St = detail::Storage<T>;
    static_assert(In::kSize * sizeof(St) <= TJ_SMEM_BYTES, "broadcast: input tile larger than TJ_SMEM_BYTES");
    St* buf = reinterpret_cast<St*>(detail::scratch());
    detail::barrier();
    detail::spill(buf, x);
    detail::barrier();
    Out out;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k) {
      const int e = LO::run(k) * LO::kVec;
      if constexpr (kLastBroadcast) {
        const T value = T(buf[source(e)]);
#pragma unroll
        for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = value;
      } else {
#pragma unroll
        for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = T(buf[source(e + j)]);
      }
    }
    return out;
  }
}

}  // namespace tj
