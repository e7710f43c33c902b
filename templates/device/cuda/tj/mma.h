// Tiles in the register layout of a tensor-core dot's accumulator (#tj.mma, #tj.mma_rows;
// put on tile types by tj-assign-mma-layouts).
//
// MmaTile<T, M, N>: the m16n8 accumulator fragments of mma.sync. The tile is cut into 16x8
// units (mi, ni); MmaLayout deals them to warps exactly as dotMma computes them, so a dot
// returns (and takes) its accumulator without moving it. In a unit, lane l holds rows
// l/4 and l/4 + 8, columns 2*(l%4) and 2*(l%4) + 1: registers 4u + {0, 1, 2, 3} are
// (r, c), (r, c+1), (r+8, c), (r+8, c+1).
// MmaRows<T, M> (or [M, 1]): one value per row, in every thread that holds fragments of that
// row (replicated over the warps and the 4 lanes of a quad), so broadcasting it back over an
// MmaTile's rows is register-only. A row reduction of an MmaTile folds in registers and a quad
// of lanes, then across warps through shared memory (one barrier) when the row spans warps.
#pragma once

#include "tj/memory.h"

namespace tj {

template <int64_t M, int64_t N>
struct MmaLayout {
  static_assert(M % 16 == 0 && N % 8 == 0, "mma layout: M a multiple of 16, N of 8");
  static constexpr int kWarps = TJ_THREADS / 32;
  static constexpr int kRowUnits = int(M / 16), kColUnits = int(N / 8);
  // Every warp takes the same share of column units of every row unit when they divide
  // evenly; otherwise units are dealt round-robin (and some warps may hold fewer).
  static constexpr bool kColumnSplit = kColUnits % kWarps == 0;
  static constexpr int kUnits = (kRowUnits * kColUnits + kWarps - 1) / kWarps;
  static constexpr int kRegs = kUnits * 4;

  __device__ __forceinline__ static int warp() { return detail::threadId() / 32; }
  __device__ __forceinline__ static int lane() { return detail::threadId() % 32; }
  // Slots u past the last unit (round-robin deal) are invalid: they map to unit (0, 0) and
  // hold nothing, so every index stays in range.
  __device__ __forceinline__ static bool unitValid(int u) {
    if constexpr (kColumnSplit || (kRowUnits * kColUnits) % kWarps == 0) return true;
    else return u * kWarps + warp() < kRowUnits * kColUnits;
  }
  // Known at compile time with one row unit or a column split: MmaRows registers are then
  // indexed statically (a run-time index would put them in local memory).
  __host__ __device__ static constexpr bool staticRows() { return kRowUnits == 1 || kColumnSplit; }
  __device__ __forceinline__ static int unitRow(int u) {
    if constexpr (kRowUnits == 1) return 0;
    else if constexpr (kColumnSplit) return u / (kColUnits / kWarps);
    else return unitValid(u) ? (u * kWarps + warp()) / kColUnits : 0;
  }
  __device__ __forceinline__ static int unitCol(int u) {
    if constexpr (kColumnSplit) return (u % (kColUnits / kWarps)) * kWarps + warp();
    else return unitValid(u) ? (u * kWarps + warp()) % kColUnits : 0;
  }
  __device__ __forceinline__ static int row(int reg) {
    return unitRow(reg / 4) * 16 + lane() / 4 + (reg % 4 >= 2 ? 8 : 0);
  }
  __device__ __forceinline__ static int col(int reg) { return unitCol(reg / 4) * 8 + (lane() % 4) * 2 + reg % 2; }
  // Each element is held by exactly one thread.
  __device__ __forceinline__ static bool holds(int reg) { return unitValid(reg / 4); }
  __device__ __forceinline__ static bool owns(int reg) { return holds(reg); }
  __device__ __forceinline__ static int linear(int reg) { return row(reg) * int(N) + col(reg); }
  // The MmaRows register of a fragment register's row.
  __device__ __forceinline__ static int rowReg(int reg) { return unitRow(reg / 4) * 2 + (reg % 4) / 2; }
};

template <int64_t M>
struct MmaRowsLayout {
  static_assert(M % 16 == 0, "mma_rows layout: M a multiple of 16");
  static constexpr int kRegs = int(M / 16) * 2;
  // Register 2 * mi + h: row 16 * mi + lane / 4 + 8 * h.
  __device__ __forceinline__ static int row(int reg) {
    return (reg / 2) * 16 + (detail::threadId() % 32) / 4 + (reg % 2) * 8;
  }
  __device__ __forceinline__ static bool holds(int) { return true; }
  __device__ __forceinline__ static bool owns(int) {
    const int thread = detail::threadId();
    return thread < 32 && thread % 4 == 0;
  }
  __device__ __forceinline__ static int linear(int reg) { return row(reg); }
};

template <typename T, int64_t M, int64_t N>
struct MmaTile {
  static constexpr int kRank = 2;
  static constexpr int64_t kSize = M * N;
  __host__ __device__ static constexpr int dim(int d) { return d == 0 ? int(M) : int(N); }
  using Element = T;
  using L = MmaLayout<M, N>;
  template <typename U>
  using WithElement = MmaTile<U, M, N>;
  Regs<T, L::kRegs> v;
};

template <typename T, int64_t... D>
struct MmaRows {
  static_assert(sizeof...(D) == 1 || sizeof...(D) == 2, "mma_rows tiles are [M] or [M, 1]");
  static constexpr int kRank = sizeof...(D);
  static constexpr int64_t kShape[kRank] = {D...};
  static_assert(kRank == 1 || kShape[kRank - 1] == 1, "mma_rows tiles are [M] or [M, 1]");
  static constexpr int64_t kSize = kShape[0];
  __host__ __device__ static constexpr int dim(int d) {
    const int64_t dims[kRank] = {D...};
    return int(dims[d]);
  }
  using Element = T;
  using L = MmaRowsLayout<kShape[0]>;
  template <typename U>
  using WithElement = MmaRows<U, D...>;
  Regs<T, L::kRegs> v;
};

template <typename T, int64_t M, int64_t N>
struct IsTile<MmaTile<T, M, N>> { static constexpr bool value = true; };
template <typename T, int64_t... D>
struct IsTile<MmaRows<T, D...>> { static constexpr bool value = true; };
template <typename X>
struct IsMmaTile { static constexpr bool value = false; };
template <typename T, int64_t M, int64_t N>
struct IsMmaTile<MmaTile<T, M, N>> { static constexpr bool value = true; };

// ---- creation and casts -----------------------------------------------------------------

// Any tile type with every element `value`.
template <typename X, typename T>
__device__ __forceinline__ X splat(T value) {
  X out;
#pragma unroll
  for (int i = 0; i < X::L::kRegs; ++i) out.v[i] = value;
  return out;
}

template <typename U, typename T, int64_t M, int64_t N>
__device__ __forceinline__ MmaTile<U, M, N> cast(const MmaTile<T, M, N>& x) {
  MmaTile<U, M, N> out;
#pragma unroll
  for (int i = 0; i < MmaLayout<M, N>::kRegs; ++i) out.v[i] = cast<U>(x.v[i]);
  return out;
}
template <typename U, typename T, int64_t... D>
__device__ __forceinline__ MmaRows<U, D...> cast(const MmaRows<T, D...>& x) {
  MmaRows<U, D...> out;
#pragma unroll
  for (int i = 0; i < MmaRows<T, D...>::L::kRegs; ++i) out.v[i] = cast<U>(x.v[i]);
  return out;
}

// ---- shape: rows <-> fragments, all in registers -----------------------------------------

namespace detail {
// The row value of fragment register `reg`: a static register when the layout knows the row
// at compile time, else a select over the row registers (no run-time register index).
template <typename L, typename Rows>
__device__ __forceinline__ auto rowValue(const Rows& x, int reg) {
  if constexpr (L::staticRows()) {
    return x.v[L::rowReg(reg)];
  } else {
    auto value = x.v[0];
    const int wanted = L::rowReg(reg);
#pragma unroll
    for (int r = 1; r < Rows::L::kRegs; ++r)
      if (r == wanted) value = x.v[r];
    return value;
  }
}
}  // namespace detail

template <int A, typename T, int64_t M>
__device__ __forceinline__ MmaRows<T, M, 1> expand_dims(const MmaRows<T, M>& x) {
  static_assert(A == 1, "expand_dims of an mma_rows tile appends the last axis");
  MmaRows<T, M, 1> out;
#pragma unroll
  for (int i = 0; i < MmaRowsLayout<M>::kRegs; ++i) out.v[i] = x.v[i];
  return out;
}

template <int64_t M, int64_t N, typename T, int64_t S>
__device__ __forceinline__ MmaTile<T, M, N> broadcast(const MmaRows<T, S, 1>& x) {
  static_assert(S == M, "broadcast keeps the rows");
  using L = MmaLayout<M, N>;
  MmaTile<T, M, N> out;
#pragma unroll
  for (int i = 0; i < L::kRegs; ++i) out.v[i] = detail::rowValue<L>(x, i);
  return out;
}

// ---- row reductions ---------------------------------------------------------------------

// Rows exchanged between warps go through a ring of two regions of their own (not the
// scratch buffer), alternating: reduction j writes region j % 2 after reduction j - 1's
// barrier, which every thread reaches only once done reading reduction j - 2's region. So
// one barrier per reduction. The emitter declares one RowExchange per kernel and defines
// TJ_ROW_EXCHANGE_ROWS (the most rows reduced) when it does.
#ifndef TJ_ROW_EXCHANGE_ROWS
#define TJ_ROW_EXCHANGE_ROWS 0
#endif

struct RowExchange {
  int parity = 0;
};

namespace detail {

__device__ __forceinline__ double* rowExchangeRegion(int parity) {
  constexpr int kRegion = (TJ_ROW_EXCHANGE_ROWS > 0 ? TJ_ROW_EXCHANGE_ROWS : 1) * (TJ_THREADS / 32);
  __shared__ double ring[2 * kRegion];
  return ring + parity * kRegion;
}

template <typename Op, typename T, int64_t M, int64_t N>
__device__ __forceinline__ MmaRows<T, M> reduceRows(const MmaTile<T, M, N>& x, RowExchange& exchange) {
  using L = MmaLayout<M, N>;
  using R = MmaRowsLayout<M>;
  using P = typename Arith<T>::type;
  P partial[R::kRegs];
#pragma unroll
  for (int r = 0; r < R::kRegs; ++r) partial[r] = Op::template identity<P>();
#pragma unroll
  for (int i = 0; i < L::kRegs; ++i) {
    if (!L::holds(i)) continue;
    if constexpr (L::staticRows()) {
      partial[L::rowReg(i)] = Op::apply(partial[L::rowReg(i)], P(widen(x.v[i])));
    } else {
      const int wanted = L::rowReg(i);
#pragma unroll
      for (int r = 0; r < R::kRegs; ++r)
        if (r == wanted) partial[r] = Op::apply(partial[r], P(widen(x.v[i])));
    }
  }
  // The quad's lanes hold the row's other columns; combining symmetric pairs leaves the same
  // bits in all four lanes.
#pragma unroll
  for (int r = 0; r < R::kRegs; ++r) {
    partial[r] = Op::apply(partial[r], shuffleXor(partial[r], 1));
    partial[r] = Op::apply(partial[r], shuffleXor(partial[r], 2));
  }
  MmaRows<T, M> out;
  if constexpr (L::kWarps == 1) {
#pragma unroll
    for (int r = 0; r < R::kRegs; ++r) out.v[r] = cast<T>(partial[r]);
  } else {
    // Warps hold other columns of the same rows: every thread folds all warps' partials in
    // warp order, so every copy of a row is bit-identical.
    static_assert(M <= TJ_ROW_EXCHANGE_ROWS && sizeof(P) <= sizeof(double),
                  "reduce: TJ_ROW_EXCHANGE_ROWS is below the rows reduced");
    P* buf = reinterpret_cast<P*>(rowExchangeRegion(exchange.parity));
    exchange.parity ^= 1;
    if (threadId() % 4 == 0)
#pragma unroll
      for (int r = 0; r < R::kRegs; ++r) buf[L::warp() * int(M) + R::row(r)] = partial[r];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < R::kRegs; ++r) {
      P acc = buf[R::row(r)];
#pragma unroll
      for (int w = 1; w < L::kWarps; ++w) acc = Op::apply(acc, buf[w * int(M) + R::row(r)]);
      out.v[r] = cast<T>(acc);
    }
  }
  return out;
}

}  // namespace detail

template <int A, typename T, int64_t M, int64_t N>
__device__ __forceinline__ MmaRows<T, M> reduce_sum(const MmaTile<T, M, N>& x, RowExchange& exchange) {
  static_assert(A == 1, "an mma tile reduces along its rows (axis 1)");
  trace::mark(trace::kEpilogue);
  return detail::reduceRows<detail::SumOp>(x, exchange);
}
template <int A, typename T, int64_t M, int64_t N>
__device__ __forceinline__ MmaRows<T, M> reduce_max(const MmaTile<T, M, N>& x, RowExchange& exchange) {
  static_assert(A == 1, "an mma tile reduces along its rows (axis 1)");
  return detail::reduceRows<detail::MaxOp>(x, exchange);
}
template <int A, typename T, int64_t M, int64_t N>
__device__ __forceinline__ MmaRows<T, M> reduce_min(const MmaTile<T, M, N>& x, RowExchange& exchange) {
  static_assert(A == 1, "an mma tile reduces along its rows (axis 1)");
  return detail::reduceRows<detail::MinOp>(x, exchange);
}

// ---- element addressing shared by store and convert_layout -------------------------------

namespace detail {

// Per register of a tile of any layout: whether this thread holds a meaningful value there,
// whether it is the one thread that writes it, and its row-major index in the tile.
template <typename X>
struct Elements {
  using L = typename X::L;
  __device__ __forceinline__ static bool holds(int reg) { return L::holds(reg); }
  __device__ __forceinline__ static bool owns(int reg) { return L::owns(reg); }
  __device__ __forceinline__ static int linear(int reg) { return L::linear(reg); }
};
template <typename T, int64_t... D>
struct Elements<Tile<T, D...>> {
  using L = typename Tile<T, D...>::L;
  __device__ __forceinline__ static bool holds(int reg) { return L::valid(reg / L::kVec); }
  __device__ __forceinline__ static bool owns(int reg) { return L::owner(reg / L::kVec); }
  __device__ __forceinline__ static int linear(int reg) { return L::run(reg / L::kVec) * L::kVec + reg % L::kVec; }
};

}  // namespace detail

// tj.range along `Axis` in X's layout (a canonical tile, mma or mma_rows): each register's
// coordinate along the axis from its row-major index, so no layout exchange is needed.
template <int Axis, typename X, typename T>
__device__ __forceinline__ X range_along(T start) {
  static_assert(Axis >= 0 && Axis < X::kRank, "range_along: no such axis");
  constexpr int kStride = [] {
    int stride = 1;
    for (int d = Axis + 1; d < X::kRank; ++d) stride *= X::dim(d);
    return stride;
  }();
  using E = detail::Elements<X>;
  X out;
#pragma unroll
  for (int i = 0; i < X::L::kRegs; ++i) out.v[i] = T(start + T(E::linear(i) / kStride % X::dim(Axis)));
  return out;
}

// The coordinate along tile axis `a` of register `reg` of an mma or mma_rows tile (never
// negative).
template <typename X>
__device__ __forceinline__ int elementCoordinate(int reg, int a) {
  if constexpr (IsMmaTile<X>::value) return a == 0 ? X::L::row(reg) : X::L::col(reg);
  else return a == 0 ? X::L::row(reg) : 0;
}

// Stores an mma_rows tile over the view's last axes, element by element (once per program,
// at the end of a kernel: not worth the vector paths of canonical stores). The
// offsets' part of the address and each axis's range of in-bounds coordinates are worked out
// once; an element then costs two compares per axis and its coordinates' part of the address
// (the innermost stride is 1: the launch check requires dense rows).
template <typename X, typename T, int R>
__device__ __forceinline__ void storeElements(const View<T, R>& view, const Index<R>& offset,
                                              const Index<R>& limit, const X& tile) {
  constexpr int kRank = X::kRank;
  static_assert(kRank <= R, "store: tile rank exceeds the view's");
  using E = detail::Elements<X>;
  bool leadIn = true;
  long long base = 0;
#pragma unroll
  for (int d = 0; d < R - kRank; ++d) {
    leadIn = leadIn && offset.v[d] >= 0 && offset.v[d] < limit.v[d];
    base += offset.v[d] * view.stride[d];
  }
  if (!leadIn) return;
  // Coordinate c along tile axis a is in bounds when 0 <= offset + c < limit, i.e. c in
  // [lo[a], hi[a]) (clamped to the tile: coordinates are never negative).
  int lo[kRank], hi[kRank];
  long long stride[kRank];
#pragma unroll
  for (int a = 0; a < kRank; ++a) {
    const int d = R - kRank + a;
    const long long extent = X::dim(a);
    lo[a] = int(min(max(-offset.v[d], 0LL), extent));
    hi[a] = int(min(max(limit.v[d] - offset.v[d], 0LL), extent));
    stride[a] = a == kRank - 1 ? 1 : view.stride[d];
    base += offset.v[d] * view.stride[d];
  }
  T* const origin = view.data + base;
#pragma unroll
  for (int i = 0; i < X::L::kRegs; ++i) {
    if (!E::owns(i)) continue;
    long long at = 0;
    bool in = true;
#pragma unroll
    for (int a = 0; a < kRank; ++a) {
      const int c = elementCoordinate<X>(i, a);
      in = in && c >= lo[a] && c < hi[a];
      at += c * stride[a];
    }
    if (in) origin[at] = tile.v[i];
  }
}

// An mma tile's store walks its fragments: per unit, one column pair and two rows of the
// calling lane, the bounds worked out once per row and per column (storeElements' general
// per-element form was ~4x the IR after inlining, in clang's, and ~3x the PTX of a decode
// kernel's epilogue).
template <typename T, int R, int64_t M, int64_t N>
__device__ __forceinline__ void store(const View<T, R>& view, const Index<R>& offset, const Index<R>& limit,
                                      const MmaTile<T, M, N>& tile) {
  static_assert(R >= 2, "store: an mma tile needs a view of rank >= 2");
  using L = MmaLayout<M, N>;
  long long base = 0;
  bool leadIn = true;
#pragma unroll
  for (int d = 0; d < R - 2; ++d) {
    leadIn = leadIn && offset.v[d] >= 0 && offset.v[d] < limit.v[d];
    base += offset.v[d] * view.stride[d];
  }
  if (!leadIn) return;
  // Tile rows [rowsOut, rowsIn) and columns [colsOut, colsIn) are in bounds (the innermost
  // stride is 1: the launch check requires dense rows).
  const long long rowOffset = offset.v[R - 2], colOffset = offset.v[R - 1];
  const long long rowLimit = limit.v[R - 2] - rowOffset, colLimit = limit.v[R - 1] - colOffset;
  const int rowsIn = int(rowLimit < M ? rowLimit : M), colsIn = int(colLimit < N ? colLimit : N);
  const int rowsOut = int(rowOffset >= 0 ? 0 : -rowOffset < M ? -rowOffset : M);
  const int colsOut = int(colOffset >= 0 ? 0 : -colOffset < N ? -colOffset : N);
  const long long rowStride = view.stride[R - 2];
  T* const origin = view.data + base + rowOffset * rowStride + colOffset;
  const int lane = detail::threadId() % 32;
  // The pairs of unit u in row half h of the calling lane, from the row's first element.
  auto storePairs = [&](T* rowAt, int u, int h) {
    const int col = L::unitCol(u) * 8 + (lane % 4) * 2;
#pragma unroll
    for (int j = 0; j < 2; ++j)
      if (col + j >= colsOut && col + j < colsIn) rowAt[col + j] = tile.v[4 * u + 2 * h + j];
  };
  if constexpr (L::staticRows()) {
    // A unit's row unit is known at compile time: one bounds check per row of the lane.
#pragma unroll
    for (int mi = 0; mi < L::kRowUnits; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = mi * 16 + lane / 4 + 8 * h;
        if (row < rowsOut || row >= rowsIn) continue;
        T* const rowAt = origin + row * rowStride;
#pragma unroll
        for (int u = 0; u < L::kUnits; ++u)
          if (L::unitValid(u) && L::unitRow(u) == mi) storePairs(rowAt, u, h);
      }
  } else {
#pragma unroll
    for (int u = 0; u < L::kUnits; ++u) {
      if (!L::unitValid(u)) continue;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = L::unitRow(u) * 16 + lane / 4 + 8 * h;
        if (row >= rowsOut && row < rowsIn) storePairs(origin + row * rowStride, u, h);
      }
    }
  }
}
template <typename T, int R, int64_t... D>
__device__ __forceinline__ void store(const View<T, R>& view, const Index<R>& offset, const Index<R>& limit,
                                      const MmaRows<T, D...>& tile) {
  storeElements(view, offset, limit, tile);
}

// Moves a tile to another layout through the scratch buffer (two barriers); the same layout
// is a copy.
template <typename Out, typename In>
__device__ __forceinline__ Out convert_layout(const In& x) {
  if constexpr (IsSame<Out, In>::value) {
    return x;
  } else {
    static_assert(In::kSize == Out::kSize, "convert_layout keeps the shape");
    using T = typename In::Element;
    using St = detail::Storage<T>;
    static_assert(In::kSize * sizeof(St) <= TJ_SMEM_BYTES, "convert_layout: tile larger than TJ_SMEM_BYTES");
    St* buf = reinterpret_cast<St*>(detail::scratch());
    using EI = detail::Elements<In>;
    using EO = detail::Elements<Out>;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < In::L::kRegs; ++i)
      if (EI::owns(i)) buf[EI::linear(i)] = St(x.v[i]);
    __syncthreads();
    Out out;
#pragma unroll
    for (int i = 0; i < Out::L::kRegs; ++i) out.v[i] = EO::holds(i) ? T(buf[EO::linear(i)]) : T{};
    return out;
  }
}

}  // namespace tj
