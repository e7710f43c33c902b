// Tiles of the CPU backend: a row-major array owned by the one thread running the program.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "tj/types.h"

namespace tj {

template <typename T, int64_t... D>
struct Tile {
  static constexpr int kRank = sizeof...(D);
  static constexpr int64_t kSize = (D * ...);
  static constexpr int64_t kShape[kRank] = {D...};
  using Element = T;
  template <typename U>
  using WithElement = Tile<U, D...>;
  T v[kSize];
};

template <typename X>
struct IsTile : std::false_type {};
template <typename T, int64_t... D>
struct IsTile<Tile<T, D...>> : std::true_type {};

// Applies `f` elementwise to tiles of one shape, or directly to scalars.
template <typename F, typename X, typename... Rest>
inline auto mapElements(F f, const X& x, const Rest&... rest) {
  if constexpr (IsTile<X>::value) {
    using R = decltype(f(x.v[0], rest.v[0]...));
    typename X::template WithElement<R> out;
    for (int64_t i = 0; i < X::kSize; ++i) out.v[i] = f(x.v[i], rest.v[i]...);
    return out;
  } else {
    return f(x, rest...);
  }
}

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;

// Arithmetic on 16-bit floats goes through float and rounds back, as `arith` on f16/bf16 does.
template <typename T, typename F>
inline T viaFloat(F f, T a, T b) {
  if constexpr (kIsHalf<T>) return cast<T>(f(toFloat(a), toFloat(b)));
  else return f(a, b);
}
template <typename T, typename F>
inline T viaFloat1(F f, T a) {
  if constexpr (kIsHalf<T>) return cast<T>(f(toFloat(a)));
  else return f(a);
}
template <typename T>
inline auto widen(T x) {
  if constexpr (kIsHalf<T>) return toFloat(x);
  else return x;
}

#define TJ_BINARY(name, expr)                                                        \
  template <typename X>                                                             \
  inline X name(const X& x, const X& y) {                                           \
    return mapElements(                                                             \
        [](auto a, auto b) { return viaFloat([](auto p, auto q) { return expr; }, a, b); }, \
        x, y);                                                                      \
  }
TJ_BINARY(add, p + q)
TJ_BINARY(sub, p - q)
TJ_BINARY(mul, p * q)
TJ_BINARY(maxsi, p > q ? p : q)
TJ_BINARY(minsi, p < q ? p : q)
TJ_BINARY(maxnumf, std::fmax(p, q))
TJ_BINARY(minnumf, std::fmin(p, q))
TJ_BINARY(maximumf, (std::isnan(p) || std::isnan(q)) ? p + q : (p > q ? p : q))
TJ_BINARY(minimumf, (std::isnan(p) || std::isnan(q)) ? p + q : (p < q ? p : q))
TJ_BINARY(logical_and, p & q)
TJ_BINARY(logical_or, p | q)
TJ_BINARY(logical_xor, p ^ q)
#undef TJ_BINARY

template <typename X>
inline X div(const X& x, const X& y) {
  return mapElements(
      [](auto a, auto b) {
        return viaFloat([](auto p, auto q) { return p / q; }, a, b);
      },
      x, y);
}
template <typename X>
inline X rem(const X& x, const X& y) {
  return mapElements(
      [](auto a, auto b) {
        return viaFloat(
            [](auto p, auto q) {
              if constexpr (std::is_floating_point_v<decltype(p)>) return decltype(p)(std::fmod(p, q));
              else return p % q;
            },
            a, b);
      },
      x, y);
}
template <typename X>
inline X floordiv(const X& x, const X& y) {
  return mapElements(
      [](auto a, auto b) {
        auto q = a / b;
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
      },
      x, y);
}
template <typename X>
inline X ceildiv(const X& x, const X& y) {
  return mapElements(
      [](auto a, auto b) {
        auto q = a / b;
        return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
      },
      x, y);
}

#define TJ_UNARY(name, expr)                                                             \
  template <typename X>                                                                 \
  inline X name(const X& x) {                                                           \
    return mapElements([](auto a) { return viaFloat1([](auto p) { return expr; }, a); }, x); \
  }
TJ_UNARY(neg, -p)
TJ_UNARY(exp, std::exp(p))
TJ_UNARY(exp2, std::exp2(p))
TJ_UNARY(log, std::log(p))
TJ_UNARY(log2, std::log2(p))
TJ_UNARY(sqrt, std::sqrt(p))
TJ_UNARY(rsqrt, decltype(p)(1) / std::sqrt(p))
TJ_UNARY(tanh, std::tanh(p))
TJ_UNARY(abs, std::abs(p))
#undef TJ_UNARY

#define TJ_COMPARE(name, expr)                                                          \
  template <typename X>                                                                \
  inline auto name(const X& x, const X& y) {                                           \
    return mapElements([](auto a, auto b) {                                            \
      auto p = widen(a);                                                               \
      auto q = widen(b);                                                               \
      return bool(expr);                                                               \
    }, x, y);                                                                          \
  }
TJ_COMPARE(cmp_eq, p == q)
TJ_COMPARE(cmp_ne, p != q)
TJ_COMPARE(cmp_lt, p < q)
TJ_COMPARE(cmp_le, p <= q)
TJ_COMPARE(cmp_gt, p > q)
TJ_COMPARE(cmp_ge, p >= q)
TJ_COMPARE(cmp_uno, p != p || q != q)
#undef TJ_COMPARE

template <typename C, typename X>
inline X select(const C& cond, const X& a, const X& b) {
  return mapElements([](bool c, auto p, auto q) { return c ? p : q; }, cond, a, b);
}

template <typename U, typename T, int64_t... D>
inline Tile<U, D...> cast(const Tile<T, D...>& x) {
  Tile<U, D...> out;
  for (int64_t i = 0; i < out.kSize; ++i) out.v[i] = cast<U>(x.v[i]);
  return out;
}

// ---- creation and shape ---------------------------------------------------------------

template <typename T, int64_t... D>
inline Tile<T, D...> full(T value) {
  Tile<T, D...> out;
  std::fill(out.v, out.v + out.kSize, value);
  return out;
}

template <typename T, int64_t N>
inline Tile<T, N> range(T start) {
  Tile<T, N> out;
  for (int64_t i = 0; i < N; ++i) out.v[i] = T(start + i);
  return out;
}

// tj.range along `Axis` of an N-D tile: element i counts its row-major coordinate on the axis.
template <int Axis, typename X, typename T>
inline X range_along(T start) {
  static_assert(Axis >= 0 && Axis < X::kRank, "range_along: no such axis");
  int64_t stride = 1;
  for (int d = Axis + 1; d < X::kRank; ++d) stride *= X::kShape[d];
  X out;
  for (int64_t i = 0; i < X::kSize; ++i) out.v[i] = T(start + T(i / stride % X::kShape[Axis]));
  return out;
}

namespace detail {
template <int R>
inline void unravel(int64_t linear, const int64_t* shape, int64_t* index) {
  for (int d = R - 1; d >= 0; --d) {
    index[d] = linear % shape[d];
    linear /= shape[d];
  }
}
template <int R>
inline int64_t ravel(const int64_t* index, const int64_t* shape) {
  int64_t linear = 0;
  for (int d = 0; d < R; ++d) linear = linear * shape[d] + index[d];
  return linear;
}
}  // namespace detail

template <int64_t... D, typename T, int64_t... S>
inline Tile<T, D...> broadcast(const Tile<T, S...>& x) {
  static_assert(sizeof...(D) == sizeof...(S), "broadcast keeps the rank");
  using Out = Tile<T, D...>;
  using In = Tile<T, S...>;
  Out out;
  for (int64_t i = 0; i < Out::kSize; ++i) {
    int64_t index[Out::kRank];
    detail::unravel<Out::kRank>(i, Out::kShape, index);
    for (int d = 0; d < Out::kRank; ++d)
      if (In::kShape[d] == 1) index[d] = 0;
    out.v[i] = x.v[detail::ravel<In::kRank>(index, In::kShape)];
  }
  return out;
}

template <int64_t... D, typename T, int64_t... S>
inline Tile<T, D...> reshape(const Tile<T, S...>& x) {
  static_assert(Tile<T, D...>::kSize == Tile<T, S...>::kSize, "reshape keeps the element count");
  Tile<T, D...> out;
  std::copy(x.v, x.v + out.kSize, out.v);
  return out;
}

namespace detail {
template <int A, typename T, int64_t... S, size_t... I>
inline auto expandDims(const Tile<T, S...>& x, std::index_sequence<I...>) {
  constexpr int64_t in[] = {S...};
  using Out = Tile<T, (I < A ? in[I] : (I == A ? 1 : in[I - 1]))...>;
  Out out;
  std::copy(x.v, x.v + Out::kSize, out.v);
  return out;
}
}  // namespace detail

template <int A, typename T, int64_t... S>
inline auto expand_dims(const Tile<T, S...>& x) {
  return detail::expandDims<A>(x, std::make_index_sequence<sizeof...(S) + 1>());
}

// ---- reductions -----------------------------------------------------------------------

namespace detail {
template <int A, typename T, int64_t... S, size_t... I, typename F>
inline auto reduce(const Tile<T, S...>& x, T identity, F combine, std::index_sequence<I...>) {
  constexpr int64_t in[] = {S...};
  using In = Tile<T, S...>;
  if constexpr (sizeof...(S) == 1) {
    T acc = identity;
    for (int64_t i = 0; i < In::kSize; ++i) acc = combine(acc, x.v[i]);
    return acc;
  } else {
    using Out = Tile<T, in[I < A ? I : I + 1]...>;
    Out out;
    std::fill(out.v, out.v + Out::kSize, identity);
    for (int64_t i = 0; i < In::kSize; ++i) {
      int64_t index[In::kRank];
      unravel<In::kRank>(i, In::kShape, index);
      int64_t outIndex[Out::kRank];
      for (int d = 0, o = 0; d < In::kRank; ++d)
        if (d != A) outIndex[o++] = index[d];
      int64_t j = ravel<Out::kRank>(outIndex, Out::kShape);
      out.v[j] = combine(out.v[j], x.v[i]);
    }
    return out;
  }
}
}  // namespace detail

template <int A, typename T, int64_t... S>
inline auto reduce_sum(const Tile<T, S...>& x) {
  return detail::reduce<A>(x, T(0), [](T a, T b) { return a + b; },
                           std::make_index_sequence<sizeof...(S) - 1>());
}
template <int A, typename T, int64_t... S>
inline auto reduce_max(const Tile<T, S...>& x) {
  T identity = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::lowest();
  return detail::reduce<A>(x, identity, [](T a, T b) { return maximumf(a, b); },
                           std::make_index_sequence<sizeof...(S) - 1>());
}
template <int A, typename T, int64_t... S>
inline auto reduce_min(const Tile<T, S...>& x) {
  T identity = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                    : std::numeric_limits<T>::max();
  return detail::reduce<A>(x, identity, [](T a, T b) { return minimumf(a, b); },
                           std::make_index_sequence<sizeof...(S) - 1>());
}

// ---- matrix product -------------------------------------------------------------------

template <bool TransB, typename TA, typename TB, int64_t M, int64_t K, int64_t B0, int64_t B1,
          int64_t N>
inline Tile<float, M, N> dot(const Tile<TA, M, K>& a, const Tile<TB, B0, B1>& b,
                             const Tile<float, M, N>& acc) {
  static_assert(TransB ? (B0 == N && B1 == K) : (B0 == K && B1 == N),
                "dot: operand shapes do not agree");
  Tile<float, M, N> out = acc;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float sum = 0;
      for (int64_t k = 0; k < K; ++k) {
        float bv = TransB ? cast<float>(b.v[n * K + k]) : cast<float>(b.v[k * N + n]);
        sum += cast<float>(a.v[m * K + k]) * bv;
      }
      out.v[m * N + n] += sum;
    }
  return out;
}

template <typename X>
inline X convert_layout(const X& x) {
  return x;
}

}  // namespace tj
