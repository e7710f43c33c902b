// Tiles of the CUDA backend.
//
// Layout: a pure function of the element count N and TJ_THREADS, independent of the element
// type and of how N splits into dimensions, so casts, compares, selects, reshape and
// expand_dims are register-only. The row-major element sequence is cut into runs of VEC
// contiguous elements (VEC = largest power of two <= 8 dividing N: 16 bytes for 16-bit types).
// With R = N / VEC runs: if R >= TJ_THREADS, thread t owns runs k * TJ_THREADS + t
// (k < PER = ceil(R / TJ_THREADS)); otherwise every thread holds a copy of one run
// (replicated: lane % R when R <= 32, else t % R; threads t < R are the owners that store), so
// small tiles and reductions to scalars are available, bit-identical, in every thread.
#pragma once

#include "tj/types.h"

namespace tj {

template <int64_t N>
struct Layout {
  static_assert(N >= 1, "tile dimensions must be positive");
  static constexpr int kVec = (N % 8 == 0) ? 8 : (N % 4 == 0) ? 4 : (N % 2 == 0) ? 2 : 1;
  static constexpr int kRuns = int(N / kVec);
  static constexpr bool kReplicated = kRuns < TJ_THREADS;
  static constexpr int kPer = kReplicated ? 1 : (kRuns + TJ_THREADS - 1) / TJ_THREADS;
  static constexpr bool kExact = kReplicated || kRuns % TJ_THREADS == 0;
  static constexpr int kRegs = kPer * kVec;
  static_assert(N <= (int64_t(1) << 24), "tile too large");

  // Run held in slot k by the calling thread.
  __device__ __forceinline__ static int run(int k) {
    // Replicated: every warp holds the same runs in the same lanes, so warp-level reductions
    // round identically in every warp and scalars are bit-identical in all threads.
    if constexpr (kReplicated && kRuns <= 32) return (detail::threadId() % 32) % kRuns;
    else if constexpr (kReplicated) return detail::threadId() % kRuns;
    else return k * TJ_THREADS + detail::threadId();
  }
  __device__ __forceinline__ static bool valid(int k) {
    if constexpr (kExact) return true;
    else return run(k) < kRuns;
  }
  // Whether this thread is the one that writes slot k (no duplicate stores).
  __device__ __forceinline__ static bool owner(int k) {
    if constexpr (kReplicated) return detail::threadId() < kRuns;
    else return valid(k);
  }
};

// Registers of a tile: a plain array, or for 16-bit floats, packed two to a 32-bit word (the
// natural form for 16-byte loads, shared-memory staging and mma operands; halves the
// registers). A struct with accessors in place of the array cost 4.8 % of a decode kernel's
// compile (instructions executed, bench/nvrtc_compile_cost.py): every access was a call for
// the front end to instantiate and NVVM to inline and clean up.
template <typename T, int N>
struct PackedRegs {
  unsigned w[N / 2];
  struct Ref {
    unsigned& word;
    int hi;
    __device__ __forceinline__ operator T() const {
      T x;
      x.bits = (unsigned short)(hi ? word >> 16 : word & 0xffffu);
      return x;
    }
    __device__ __forceinline__ Ref& operator=(T x) {
      word = hi ? ((word & 0xffffu) | (unsigned(x.bits) << 16)) : ((word & 0xffff0000u) | x.bits);
      return *this;
    }
    __device__ __forceinline__ Ref& operator=(const Ref& r) { return *this = T(r); }
  };
  __device__ __forceinline__ Ref operator[](int i) { return Ref{w[i / 2], i % 2}; }
  __device__ __forceinline__ T operator[](int i) const {
    T x;
    x.bits = (unsigned short)(i % 2 ? w[i / 2] >> 16 : w[i / 2] & 0xffffu);
    return x;
  }
};
namespace detail {
template <typename T, int N, bool Packed = kIsHalf<T> && N % 2 == 0>
struct RegsOf { using type = T[N]; };
template <typename T, int N>
struct RegsOf<T, N, true> { using type = PackedRegs<T, N>; };
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
  // Usable with a run-time (unrolled) index in device code, unlike kShape.
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

namespace detail {

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float lg2(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float tanhApprox(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float rsqrtApprox(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ float maxNaN(float a, float b) {
  float y;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
}
__device__ __forceinline__ float minNaN(float a, float b) {
  float y;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
}
__device__ __forceinline__ double maxNaN(double a, double b) {
  return (a != a || b != b) ? a + b : (a > b ? a : b);
}
__device__ __forceinline__ double minNaN(double a, double b) {
  return (a != a || b != b) ? a + b : (a < b ? a : b);
}
__device__ __forceinline__ bool isNaN(float a) { return a != a; }
__device__ __forceinline__ bool isNaN(double a) { return a != a; }

template <typename P>
__device__ __forceinline__ P expImpl(P p) {
  if constexpr (IsSame<P, float>::value) return ex2(p * 1.4426950408889634f);
  else return ::exp(p);
}
template <typename P>
__device__ __forceinline__ P exp2Impl(P p) {
  if constexpr (IsSame<P, float>::value) return ex2(p);
  else return ::exp2(p);
}
template <typename P>
__device__ __forceinline__ P logImpl(P p) {
  if constexpr (IsSame<P, float>::value) return lg2(p) * 0.6931471805599453f;
  else return ::log(p);
}
template <typename P>
__device__ __forceinline__ P log2Impl(P p) {
  if constexpr (IsSame<P, float>::value) return lg2(p);
  else return ::log2(p);
}
template <typename P>
__device__ __forceinline__ P sqrtImpl(P p) {
  if constexpr (IsSame<P, float>::value) return sqrtf(p);
  else return ::sqrt(p);
}
template <typename P>
__device__ __forceinline__ P rsqrtImpl(P p) {
  if constexpr (IsSame<P, float>::value) return rsqrtApprox(p);
  else return 1.0 / ::sqrt(p);
}
template <typename P>
__device__ __forceinline__ P tanhImpl(P p) {
  if constexpr (IsSame<P, float>::value) return tanhApprox(p);
  else return ::tanh(p);
}
template <typename P>
__device__ __forceinline__ P absImpl(P p) {
  if constexpr (IsSame<P, float>::value) return fabsf(p);
  else if constexpr (IsSame<P, double>::value) return ::fabs(p);
  else return p < 0 ? P(-p) : p;
}
template <typename P>
__device__ __forceinline__ P remImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value) return fmodf(p, q);
  else if constexpr (IsSame<P, double>::value) return ::fmod(p, q);
  else return p % q;
}
template <typename P>
__device__ __forceinline__ P maximumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value || IsSame<P, double>::value) return maxNaN(p, q);
  else return p > q ? p : q;
}
template <typename P>
__device__ __forceinline__ P minimumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value || IsSame<P, double>::value) return minNaN(p, q);
  else return p < q ? p : q;
}
template <typename P>
__device__ __forceinline__ P maxnumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value) return fmaxf(p, q);
  else if constexpr (IsSame<P, double>::value) return ::fmax(p, q);
  else return p > q ? p : q;
}
template <typename P>
__device__ __forceinline__ P minnumImpl(P p, P q) {
  if constexpr (IsSame<P, float>::value) return fminf(p, q);
  else if constexpr (IsSame<P, double>::value) return ::fmin(p, q);
  else return p < q ? p : q;
}

}  // namespace detail

// ---- elementwise ------------------------------------------------------------------------

// Each op is one function whose unrolled loop computes the elements in place: no lambdas, no
// helper per element. nvrtc's front end instantiates and NVVM optimizes every function before
// inlining it, each with its own copies of arguments and results; the generic form (a lambda
// per op through mapElements and viaFloat: five functions per op) and then a helper per
// element cost 4.1 % and 1.1 % of a decode kernel's compile (instructions executed, callgrind).
// 16-bit floats compute in float and round back, as arith on f16/bf16 does. `p` and `q` are
// the operands as computed (`auto` keeps a discarded branch's types dependent).
#define TJ_ELEMENT_BINARY(dst, a, b, T, expr)                    \
  if constexpr (kIsHalf<T>) {                                    \
    const auto p = toFloat(a), q = toFloat(b);                   \
    dst = cast<T>(decltype(p)(expr));                            \
  } else {                                                       \
    const T p = a, q = b;                                        \
    dst = T(expr);                                               \
  }
#define TJ_ELEMENT_UNARY(dst, a, T, expr)                        \
  if constexpr (kIsHalf<T>) {                                    \
    const auto p = toFloat(a);                                   \
    dst = cast<T>(decltype(p)(expr));                            \
  } else {                                                       \
    const T p = a;                                               \
    dst = T(expr);                                               \
  }
#define TJ_ELEMENT_COMPARE(dst, a, b, T, expr)                   \
  if constexpr (kIsHalf<T>) {                                    \
    const auto p = toFloat(a), q = toFloat(b);                   \
    dst = bool(expr);                                            \
  } else {                                                       \
    const T p = a, q = b;                                        \
    dst = bool(expr);                                            \
  }

#define TJ_BINARY(name, expr)                                                    \
  template <typename X>                                                         \
  __device__ __forceinline__ X name(const X& x, const X& y) {                   \
    X out;                                                                      \
    if constexpr (IsTile<X>::value) {                                           \
      using T = typename X::Element;                                            \
      _Pragma("unroll") for (int i = 0; i < X::L::kRegs; ++i) {                 \
        TJ_ELEMENT_BINARY(out.v[i], x.v[i], y.v[i], T, expr)                    \
      }                                                                         \
    } else {                                                                    \
      TJ_ELEMENT_BINARY(out, x, y, X, expr)                                     \
    }                                                                           \
    return out;                                                                 \
  }
#include "tj/gpu_elementwise_ops.h"
#undef TJ_BINARY

#define TJ_UNARY(name, expr)                                                     \
  template <typename X>                                                         \
  __device__ __forceinline__ X name(const X& x) {                               \
    X out;                                                                      \
    if constexpr (IsTile<X>::value) {                                           \
      using T = typename X::Element;                                            \
      _Pragma("unroll") for (int i = 0; i < X::L::kRegs; ++i) {                 \
        TJ_ELEMENT_UNARY(out.v[i], x.v[i], T, expr)                             \
      }                                                                         \
    } else {                                                                    \
      TJ_ELEMENT_UNARY(out, x, X, expr)                                         \
    }                                                                           \
    return out;                                                                 \
  }
#include "tj/gpu_elementwise_ops.h"
#undef TJ_UNARY

#define TJ_COMPARE(name, expr)                                                   \
  template <typename X>                                                         \
  __device__ __forceinline__ auto name(const X& x, const X& y) {                \
    if constexpr (IsTile<X>::value) {                                           \
      using T = typename X::Element;                                            \
      typename X::template WithElement<bool> out;                               \
      _Pragma("unroll") for (int i = 0; i < X::L::kRegs; ++i) {                 \
        TJ_ELEMENT_COMPARE(out.v[i], x.v[i], y.v[i], T, expr)                   \
      }                                                                         \
      return out;                                                               \
    } else {                                                                    \
      bool out;                                                                 \
      TJ_ELEMENT_COMPARE(out, x, y, X, expr)                                    \
      return out;                                                               \
    }                                                                           \
  }
#include "tj/gpu_elementwise_ops.h"
#undef TJ_COMPARE
#undef TJ_ELEMENT_BINARY
#undef TJ_ELEMENT_UNARY
#undef TJ_ELEMENT_COMPARE

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
  for (int i = 0; i < Tile<T, D...>::L::kRegs; ++i) out.v[i] = cast<U>(x.v[i]);
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

// ---- shape --------------------------------------------------------------------------------

namespace detail {

template <typename T>
using Storage = typename Cond<IsSame<T, bool>::value, unsigned char, T>::type;

// Writes every element this thread owns to scratch at its linear index (as type S).
template <typename S, typename T, int64_t... D>
__device__ __forceinline__ void spill(S* dst, const Tile<T, D...>& x) {
  using L = typename Tile<T, D...>::L;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    S* p = dst + L::run(k) * L::kVec;
#pragma unroll
    for (int j = 0; j < L::kVec; ++j) p[j] = S(x.v[k * L::kVec + j]);
  }
}

// Writes element e of the row-major shape at position e in a padded row layout: rows of
// `Cols` elements stored with stride `Stride`.
template <typename T, int64_t... D>
__device__ __forceinline__ void spillPadded(T* dst, const Tile<T, D...>& x, int cols, int stride) {
  using L = typename Tile<T, D...>::L;
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    int e = L::run(k) * L::kVec;
#pragma unroll
    for (int j = 0; j < L::kVec; ++j) {
      int f = e + j;
      dst[(f / cols) * stride + f % cols] = x.v[k * L::kVec + j];
    }
  }
}

// Register `reg` of lane `lane`, each thread naming its own lane and register. Runtime register indices are resolved with
// selects, so the registers stay registers.
template <typename T, int Vec, typename RegsT>
__device__ __forceinline__ T gatherFromWarp(const RegsT& regs, int lane, int reg) {
  T value = regs[0];
#pragma unroll
  for (int j = 0; j < Vec; ++j) {
    T mine = regs[j];
    unsigned bits;
    if constexpr (sizeof(T) == 4) bits = __float_as_uint(*reinterpret_cast<const float*>(&mine));
    else if constexpr (sizeof(T) == 2) bits = *reinterpret_cast<const unsigned short*>(&mine);
    else bits = (unsigned)*reinterpret_cast<const unsigned char*>(&mine);
    bits = __shfl_sync(0xffffffffu, bits, lane);
    T got;
    if constexpr (sizeof(T) == 4) *reinterpret_cast<unsigned*>(&got) = bits;
    else if constexpr (sizeof(T) == 2) *reinterpret_cast<unsigned short*>(&got) = (unsigned short)bits;
    else *reinterpret_cast<unsigned char*>(&got) = (unsigned char)bits;
    if (j == reg) value = got;
  }
  return value;
}

template <int64_t... D>
struct ShapeOf {
  static constexpr int kRank = sizeof...(D);
  static constexpr int64_t kDims[kRank] = {D...};
};

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
template <int A, int R, int64_t... S>
struct ExpandShape;
template <int A, int64_t... S>
struct ExpandShape<A, 1, S...> {
  static constexpr int64_t in[] = {S...};
  template <typename T>
  using Out = Cond<A == 0, Tile<T, 1, in[0]>, Tile<T, in[0], 1>>;
};
template <int A, int64_t... S>
struct ExpandShape<A, 2, S...> {
  static constexpr int64_t in[] = {S...};
  template <typename T>
  using Out = Cond<A == 0, Tile<T, 1, in[0], in[1]>,
                   typename Cond<A == 1, Tile<T, in[0], 1, in[1]>, Tile<T, in[0], in[1], 1>>::type>;
};
}  // namespace detail

template <int A, typename T, int64_t... S>
__device__ __forceinline__ auto expand_dims(const Tile<T, S...>& x) {
  static_assert(sizeof...(S) <= 2, "expand_dims: result rank must be <= 3");
  static_assert(A >= 0 && A <= int(sizeof...(S)), "expand_dims: axis out of range");
  using Out = typename detail::ExpandShape<A, sizeof...(S), S...>::template Out<T>::type;
  Out out;
#pragma unroll
  for (int i = 0; i < Out::L::kRegs; ++i) out.v[i] = x.v[i];
  return out;
}

// broadcast: through scratch, except when nothing is repeated. Reads of a run are collapsed
// to one scalar (last axis broadcast) or one contiguous copy (last axis kept) when possible.
template <int64_t... D, typename T, int64_t... S>
__device__ __forceinline__ Tile<T, D...> broadcast(const Tile<T, S...>& x) {
  static_assert(sizeof...(D) == sizeof...(S), "broadcast keeps the rank");
  using Out = Tile<T, D...>;
  using In = Tile<T, S...>;
  constexpr int R = Out::kRank;
  static_assert(((S == D || S == 1) && ...), "broadcast: each input dim must be 1 or equal");
  using LI = typename In::L;
  using LO = typename Out::L;
  // Source linear index of output element f.
  auto source = [](int f) {
    int idx[R];
#pragma unroll
    for (int d = R - 1; d >= 0; --d) {
      idx[d] = f % Out::dim(d);
      f /= Out::dim(d);
    }
    int s = 0;
#pragma unroll
    for (int d = 0; d < R; ++d) s = s * In::dim(d) + (In::dim(d) == 1 ? 0 : idx[d]);
    return s;
  };
  if constexpr (Out::kSize == In::kSize) {
    return reshape<D...>(x);
  } else if constexpr (LI::kReplicated && LI::kRuns <= 32 && In::kLast == 1 && Out::kLast % LO::kVec == 0 &&
                       sizeof(T) <= 4 && LO::kPer <= 2) {
    // Every warp holds the whole input (run r in lane r) and each output run repeats one
    // input element: fetch it with shuffles, no shared memory, no barrier. Each output run
    // costs one shuffle per input register, so beyond two runs per thread the exchange
    // through scratch is cheaper (merge_attn_states: 4 runs, 8% slower with shuffles).
    Out out;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k) {
      int e = LO::valid(k) ? LO::run(k) * LO::kVec : 0;
      int s = source(e);
      T value = detail::gatherFromWarp<T, LI::kVec>(x.v, s / LI::kVec, s % LI::kVec);
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = value;
    }
    return out;
  } else {
    using St = detail::Storage<T>;
    static_assert(In::kSize * sizeof(St) <= TJ_SMEM_BYTES,
                  "broadcast: input tile larger than TJ_SMEM_BYTES");
    St* buf = reinterpret_cast<St*>(detail::scratch());
    __syncthreads();
    detail::spill(buf, x);
    __syncthreads();
    constexpr bool lastBroadcast = In::kLast == 1 && Out::kLast % LO::kVec == 0;
    constexpr bool lastKept = In::kLast == Out::kLast && Out::kLast % LO::kVec == 0;
    Out out;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k) {
      int e = LO::run(k) * LO::kVec;
      if constexpr (lastBroadcast) {
        T value = T(buf[source(e)]);
#pragma unroll
        for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = value;
      } else if constexpr (lastKept) {
        int s = source(e);
#pragma unroll
        for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = T(buf[s + j]);
      } else {
#pragma unroll
        for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = T(buf[source(e + j)]);
      }
    }
    return out;
  }
}

// ---- reductions ---------------------------------------------------------------------------

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
    if constexpr (IsSame<P, float>::value) return __int_as_float(int(0xff800000u));
    else if constexpr (IsSame<P, double>::value) return __longlong_as_double((long long)0xfff0000000000000ull);
    else if constexpr (IsSame<P, bool>::value) return false;
    else return P(P(1) << (sizeof(P) * 8 - 1));  // lowest signed value
  }
};
struct MinOp {
  template <typename P>
  __device__ __forceinline__ static P apply(P a, P b) { return minimumImpl(a, b); }
  template <typename P>
  __device__ __forceinline__ static P identity() {
    if constexpr (IsSame<P, float>::value) return __int_as_float(0x7f800000);
    else if constexpr (IsSame<P, double>::value) return __longlong_as_double(0x7ff0000000000000ll);
    else if constexpr (IsSame<P, bool>::value) return true;
    else return P(~(P(1) << (sizeof(P) * 8 - 1)));  // highest signed value
  }
};

template <typename P>
__device__ __forceinline__ P shuffleXor(P v, int lanes) {
  if constexpr (sizeof(P) < 4) {
    return P(__shfl_xor_sync(0xffffffffu, int(v), lanes));
  } else {
    return __shfl_xor_sync(0xffffffffu, v, lanes);
  }
}

template <typename Op, int Width, typename P>
__device__ __forceinline__ P warpReduce(P v) {
#pragma unroll
  for (int o = Width / 2; o >= 1; o /= 2) v = Op::apply(v, shuffleXor(v, o));
  return v;
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

// 1-D tile -> scalar in every thread.
template <typename Op, typename T, int64_t N>
__device__ __forceinline__ T reduceAll(const Tile<T, N>& x) {
  using L = Layout<N>;
  using P = typename Arith<T>::type;
  P acc = Op::template identity<P>();
  if constexpr (L::kRuns == 1) {  // every thread holds the whole tile
#pragma unroll
    for (int j = 0; j < L::kVec; ++j) acc = Op::apply(acc, P(widen(x.v[j])));
    return cast<T>(acc);
  } else {
    // Contributors hold distinct runs: in a replicated tile any kRuns consecutive threads
    // hold all runs, so lanes < kRuns of every warp (kRuns <= 32) or threads < kRuns.
#pragma unroll
    for (int k = 0; k < L::kPer; ++k) {
      bool use;
      if constexpr (L::kReplicated) use = L::kRuns <= 32 ? (threadId() % 32) < L::kRuns : threadId() < L::kRuns;
      else use = L::valid(k);
#pragma unroll
      for (int j = 0; j < L::kVec; ++j)
        if (use) acc = Op::apply(acc, P(widen(x.v[k * L::kVec + j])));
    }
    acc = warpReduce<Op, 32>(acc);
    if constexpr (L::kRuns > 32) {
      constexpr int kWarps = TJ_THREADS / 32;
      P* buf = reinterpret_cast<P*>(scratch());
      __syncthreads();
      if (threadId() % 32 == 0) buf[threadId() / 32] = acc;
      __syncthreads();
      acc = buf[0];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) acc = Op::apply(acc, buf[w]);
    }
    return cast<T>(acc);
  }
}

// Reduction along the last axis with each row's runs in a group of consecutive lanes.
template <typename Op, typename Out, typename T, int64_t... S>
__device__ __forceinline__ Out reduceLastShuffle(const Tile<T, S...>& x) {
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
    P acc = P(widen(x.v[k * LI::kVec]));
#pragma unroll
    for (int j = 1; j < LI::kVec; ++j) acc = Op::apply(acc, P(widen(x.v[k * LI::kVec + j])));
    partial[k] = warpReduce<Op, kRowRuns>(acc);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < LI::kPer; ++k)
    if (LI::owner(k) && threadId() % kRowRuns == 0) buf[LI::run(k) / kRowRuns] = partial[k];
  __syncthreads();
  Out out;
#pragma unroll
  for (int k = 0; k < LO::kPer; ++k) {
    int e = LO::run(k) * LO::kVec;
#pragma unroll
    for (int j = 0; j < LO::kVec; ++j) out.v[k * LO::kVec + j] = cast<T>(buf[e + j]);
  }
  return out;
}

__host__ __device__ constexpr int64_t prefixProduct(const int64_t* dims, int count) {
  int64_t p = 1;
  for (int d = 0; d < count; ++d) p *= dims[d];
  return p;
}

// Any axis: the input goes to scratch in slabs along the axis; every thread folds its own
// output elements over each slab.
template <typename Op, int A, typename Out, typename T, int64_t... S>
__device__ __forceinline__ Out reduceGeneric(const Tile<T, S...>& x) {
  using In = Tile<T, S...>;
  using LI = typename In::L;
  using LO = typename Out::L;
  using P = typename Arith<T>::type;
  constexpr int R = In::kRank;
  constexpr int kAxis = int(In::kShape[A]);
  constexpr int kOther = int(In::kSize / kAxis);
  constexpr int kSlab0 = int(TJ_SMEM_BYTES / sizeof(P)) / kOther;
  static_assert(kSlab0 >= 1, "reduce: one slab exceeds TJ_SMEM_BYTES");
  constexpr int kSlab = kSlab0 < kAxis ? kSlab0 : kAxis;
  // inner = product of dims after A
  constexpr int kInner = int(In::kSize / prefixProduct(In::kShape, A + 1));
  P* buf = reinterpret_cast<P*>(scratch());
  P acc[LO::kRegs];
#pragma unroll
  for (int i = 0; i < LO::kRegs; ++i) acc[i] = Op::template identity<P>();
  for (int a0 = 0; a0 < kAxis; a0 += kSlab) {
    __syncthreads();
#pragma unroll
    for (int k = 0; k < LI::kPer; ++k) {
      if (!LI::owner(k)) continue;
#pragma unroll
      for (int j = 0; j < LI::kVec; ++j) {
        int e = LI::run(k) * LI::kVec + j;
        int outer = e / (kAxis * kInner), a = (e / kInner) % kAxis, inner = e % kInner;
        if (a >= a0 && a < a0 + kSlab) buf[(a - a0) * kOther + outer * kInner + inner] = P(widen(x.v[k * LI::kVec + j]));
      }
    }
    __syncthreads();
    int count = kAxis - a0 < kSlab ? kAxis - a0 : kSlab;
#pragma unroll
    for (int k = 0; k < LO::kPer; ++k)
#pragma unroll
      for (int j = 0; j < LO::kVec; ++j) {
        int o = LO::run(k) * LO::kVec + j;
        if (o >= kOther) continue;
        P v = acc[k * LO::kVec + j];
        for (int a = 0; a < count; ++a) v = Op::apply(v, buf[a * kOther + o]);
        acc[k * LO::kVec + j] = v;
      }
  }
  (void)R;
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
    constexpr bool kShuffle = A == In::kRank - 1 && In::kLast % LI::kVec == 0 && kRowRuns <= 32 &&
                              (kRowRuns & (kRowRuns - 1)) == 0;
    if constexpr (kShuffle) return reduceLastShuffle<Op, Out>(x);
    else return reduceGeneric<Op, A, Out>(x);
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
