// Global memory: masked tile loads/stores, scalars, and the paged KV-cache gather/scatter.
// 64-bit address arithmetic throughout; masked elements are never read or written.
#pragma once

#include "tj/tile.h"

namespace tj {
namespace detail {

template <int Bytes>
struct alignas(Bytes) Words {
  unsigned w[Bytes / 4];
};
template <>
struct alignas(2) Words<2> {
  unsigned short h;
};

// Vector loads through the built-in vector types, which the compiler keeps as one
// ld.v4/ld.v2 (a plain struct copy gets split into 32-bit loads).
template <int Bytes>
__device__ __forceinline__ Words<Bytes> loadWords(const void* p) {
  Words<Bytes> r;
  if constexpr (Bytes == 16) {
    uint4 v = *static_cast<const uint4*>(p);
    r.w[0] = v.x, r.w[1] = v.y, r.w[2] = v.z, r.w[3] = v.w;
  } else if constexpr (Bytes == 8) {
    uint2 v = *static_cast<const uint2*>(p);
    r.w[0] = v.x, r.w[1] = v.y;
  } else if constexpr (Bytes == 4) {
    r.w[0] = *static_cast<const unsigned*>(p);
  } else {
    r.h = *static_cast<const unsigned short*>(p);
  }
  return r;
}

template <typename X>
struct IsPacked { static constexpr bool value = false; };
template <typename T, int N>
struct IsPacked<PackedRegs<T, N>> { static constexpr bool value = true; };

// Moves Count elements of T between a piece of raw words and registers out[base..] (a Regs:
// PackedRegs or a plain array); packed 16-bit registers take the words as they are.
template <typename T, int Count, typename Out>
__device__ __forceinline__ void unpack(const Words<Count * int(sizeof(T))>& in, Out& out, int base) {
  if constexpr (IsPacked<Out>::value && Count % 2 == 0) {
#pragma unroll
    for (int i = 0; i < Count / 2; ++i) out.w[base / 2 + i] = in.w[i];
  } else if constexpr (sizeof(T) == 2 && Count == 1) {
    T x;
    x.bits = in.h;
    out[base] = x;
  } else if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (int i = 0; i < Count / 2; ++i) {
      T lo, hi;
      lo.bits = (unsigned short)(in.w[i] & 0xffffu);
      hi.bits = (unsigned short)(in.w[i] >> 16);
      out[base + 2 * i] = lo;
      out[base + 2 * i + 1] = hi;
    }
  } else if constexpr (sizeof(T) == 1 && Count % 4 == 0) {
    // 8-bit codes (fp8 caches), four to a word, lowest address in the low byte.
#pragma unroll
    for (int i = 0; i < Count; ++i) {
      T x;
      x.bits = (unsigned char)(in.w[i / 4] >> (8 * (i % 4)));
      out[base + i] = x;
    }
  } else if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < Count; ++i) {
      unsigned u = in.w[i];
      out[base + i] = *reinterpret_cast<const T*>(&u);
    }
  } else {
#pragma unroll
    for (int i = 0; i < Count; ++i) {
      unsigned long long u = (unsigned long long)in.w[2 * i] | ((unsigned long long)in.w[2 * i + 1] << 32);
      out[base + i] = *reinterpret_cast<const T*>(&u);
    }
  }
}
template <typename T, int Count, typename In>
__device__ __forceinline__ Words<Count * int(sizeof(T))> pack(const In& in, int base) {
  Words<Count * int(sizeof(T))> out;
  if constexpr (IsPacked<In>::value && Count % 2 == 0) {
#pragma unroll
    for (int i = 0; i < Count / 2; ++i) out.w[i] = in.w[base / 2 + i];
  } else if constexpr (sizeof(T) == 2 && Count == 1) {
    out.h = T(in[base]).bits;
  } else if constexpr (sizeof(T) == 1 && Count % 4 == 0) {
#pragma unroll
    for (int i = 0; i < Count / 4; ++i) out.w[i] = 0;
#pragma unroll
    for (int i = 0; i < Count; ++i) out.w[i / 4] |= unsigned(T(in[base + i]).bits) << (8 * (i % 4));
  } else if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (int i = 0; i < Count / 2; ++i)
      out.w[i] = unsigned(T(in[base + 2 * i]).bits) | (unsigned(T(in[base + 2 * i + 1]).bits) << 16);
  } else if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < Count; ++i) {
      T x = in[base + i];
      out.w[i] = *reinterpret_cast<const unsigned*>(&x);
    }
  } else {
#pragma unroll
    for (int i = 0; i < Count; ++i) {
      T x = in[base + i];
      unsigned long long u = *reinterpret_cast<const unsigned long long*>(&x);
      out.w[2 * i] = unsigned(u);
      out.w[2 * i + 1] = unsigned(u >> 32);
    }
  }
  return out;
}

// Elements per vector piece of a run: at most 16 bytes, and only for 2/4/8-byte types.
template <typename T, int Vec>
struct Piece {
  static constexpr int kMax = (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) ? int(16 / sizeof(T)) : 1;
  static constexpr int kElems = (sizeof(T) == 1) ? 1 : (Vec < kMax ? Vec : kMax);
  static constexpr int kBytes = kElems * int(sizeof(T));
  static constexpr bool kUseful = kElems > 1 || sizeof(T) >= 4;
};

template <typename T, int Vec, typename Out>
__device__ __forceinline__ void loadRun(const T* p, Out& out, int base) {
  using Pc = Piece<T, Vec>;
  if constexpr (sizeof(T) == 1 || Pc::kElems == 1) {
#pragma unroll
    for (int j = 0; j < Vec; ++j) out[base + j] = p[j];
  } else {
#pragma unroll
    for (int q = 0; q < Vec / Pc::kElems; ++q)
      unpack<T, Pc::kElems>(loadWords<Pc::kBytes>(p + q * Pc::kElems), out,
                            base + q * Pc::kElems);
  }
}
template <typename T, int Vec, typename In>
__device__ __forceinline__ void storeRun(T* p, const In& in, int base) {
  using Pc = Piece<T, Vec>;
  if constexpr (sizeof(T) == 1 || Pc::kElems == 1) {
#pragma unroll
    for (int j = 0; j < Vec; ++j) p[j] = in[base + j];
  } else {
#pragma unroll
    for (int q = 0; q < Vec / Pc::kElems; ++q)
      *reinterpret_cast<Words<Pc::kBytes>*>(p + q * Pc::kElems) = pack<T, Pc::kElems>(in, base + q * Pc::kElems);
  }
}

__device__ __forceinline__ bool aligned(const void* p, int bytes) {
  return (reinterpret_cast<unsigned long long>(p) & (unsigned long long)(bytes - 1)) == 0;
}

// Shared walk of load/store: calls f(k, base, allIn, anyIn, elemIn(j), elemOffset(j)) per run.
template <typename TileT, typename T, int R, typename F>
__device__ __forceinline__ void forEachRun(const View<T, R>& view, const Index<R>& offset,
                                           const Index<R>& limit, bool ownersOnly, F f) {
  using L = typename TileT::L;
  constexpr int r = TileT::kRank;
  static_assert(r <= R, "tile rank exceeds the view's rank");
  constexpr int lead = R - r;
  // Leading view axes use the offset only.
  bool leadIn = true;
  long long leadBase = 0;
#pragma unroll
  for (int d = 0; d < lead; ++d) {
    leadIn = leadIn && offset.v[d] >= 0 && offset.v[d] < limit.v[d];
    leadBase += offset.v[d] * view.stride[d];
  }
  constexpr bool kRowRuns = TileT::kLast % L::kVec == 0;  // a run stays inside one row
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (ownersOnly ? !L::owner(k) : !L::valid(k)) continue;
    int e = L::run(k) * L::kVec;
    if constexpr (kRowRuns) {
      int rest = e;
      long long idx[R];
#pragma unroll
      for (int d = r - 1; d >= 0; --d) {
        idx[lead + d] = offset.v[lead + d] + rest % TileT::dim(d);
        rest /= TileT::dim(d);
      }
      bool rowIn = leadIn;
      long long base = leadBase;
#pragma unroll
      for (int d = lead; d < R; ++d) {
        if (d < R - 1) rowIn = rowIn && idx[d] >= 0 && idx[d] < limit.v[d];
        base += idx[d] * view.stride[d];
      }
      long long c = idx[R - 1], lim = limit.v[R - 1];
      bool allIn = rowIn && c >= 0 && c + L::kVec <= lim;
      bool anyIn = rowIn && c + L::kVec > 0 && c < lim;
      f(k, base, allIn, anyIn, [&](int j) { return c + j >= 0 && c + j < lim; },
        [&](int j) { return base + (long long)j * view.stride[R - 1]; });
    } else {
      f(k, 0ll, false, true,
        [&](int j) {
          int rest = e + j;
          bool in = leadIn;
#pragma unroll
          for (int d = r - 1; d >= 0; --d) {
            long long i = offset.v[lead + d] + rest % TileT::dim(d);
            rest /= TileT::dim(d);
            in = in && i >= 0 && i < limit.v[lead + d];
          }
          return in;
        },
        [&](int j) {
          int rest = e + j;
          long long a = leadBase;
#pragma unroll
          for (int d = r - 1; d >= 0; --d) {
            a += (offset.v[lead + d] + rest % TileT::dim(d)) * view.stride[lead + d];
            rest /= TileT::dim(d);
          }
          return a;
        });
    }
  }
}

}  // namespace detail

template <int64_t... D, typename T, int R>
__device__ __forceinline__ Tile<T, D...> load(const View<T, R>& view, const Index<R>& offset,
                                              const Index<R>& limit, T other) {
  using Out = Tile<T, D...>;
  using L = typename Out::L;
  using Pc = detail::Piece<T, L::kVec>;
  Out out;
  const bool vecOk = view.stride[R - 1] == 1 && detail::aligned(view.data, Pc::kBytes);
#pragma unroll
  for (int i = 0; i < L::kRegs; ++i) out.v[i] = other;
  detail::forEachRun<Out>(view, offset, limit, false,
                          [&](int k, long long base, bool allIn, bool anyIn, auto elemIn, auto elemAt) {
    bool vec = Pc::kUseful && allIn && vecOk && (base % Pc::kElems) == 0;
    if (vec) {
      detail::loadRun<T, L::kVec>(view.data + base, out.v, k * L::kVec);
    } else if (anyIn) {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j)
        if (elemIn(j)) out.v[k * L::kVec + j] = view.data[elemAt(j)];
    }
  });
  return out;
}

template <typename T, int R, int64_t... D>
__device__ __forceinline__ void store(const View<T, R>& view, const Index<R>& offset,
                                      const Index<R>& limit, const Tile<T, D...>& tile) {
  using In = Tile<T, D...>;
  using L = typename In::L;
  using Pc = detail::Piece<T, L::kVec>;
  const bool vecOk = view.stride[R - 1] == 1 && detail::aligned(view.data, Pc::kBytes);
  detail::forEachRun<In>(view, offset, limit, true,
                         [&](int k, long long base, bool allIn, bool anyIn, auto elemIn, auto elemAt) {
    bool vec = Pc::kUseful && allIn && vecOk && (base % Pc::kElems) == 0;
    if (vec) {
      detail::storeRun<T, L::kVec>(view.data + base, tile.v, k * L::kVec);
    } else if (anyIn) {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j)
        if (elemIn(j)) view.data[elemAt(j)] = tile.v[k * L::kVec + j];
    }
  });
}

namespace detail {
// Element offset of index `idx` in the view (the ops on one element share it).
template <typename T, int R>
__device__ __forceinline__ long long elementOffset(const View<T, R>& view, const Index<R>& idx) {
  long long a = 0;
#pragma unroll
  for (int d = 0; d < R; ++d) a += idx.v[d] * view.stride[d];
  return a;
}
}  // namespace detail

template <typename T, int R>
__device__ __forceinline__ T load_scalar(const View<T, R>& view, const Index<R>& idx) {
  const long long a = detail::elementOffset(view, idx);
  const T value = view.data[a];
  trace::mark(trace::kFirstScalar, unsigned(value));
  return value;
}

template <typename T, int R>
__device__ __forceinline__ void store_scalar(const View<T, R>& view, const Index<R>& idx, T value) {
  if (detail::threadId() != 0) return;  // scalars are uniform: one thread writes
  const long long a = detail::elementOffset(view, idx);
  view.data[a] = value;
}

// tj.prefetch: element i of the range goes to thread i % TJ_THREADS, which asks L2 for its
// line unless the element before it lies on the same 128-byte line (one request per line for
// a dense row, one per element for a strided one). The clip keeps every address in the view.
// TJ_PREFETCH_L1=1 (for measurements) asks the program's own L1 instead: its later reads of
// the lines then skip the trip to L2.
#ifndef TJ_PREFETCH_L1
#define TJ_PREFETCH_L1 0
#endif
template <typename T, int R>
__device__ __forceinline__ void prefetch(const View<T, R>& view, const Index<R>& idx,
                                         int64_t count) {
  long long a = 0;  // the element offset, summed with the bounds check
#pragma unroll
  for (int d = 0; d < R; ++d) {
    if (idx.v[d] < 0 || idx.v[d] >= view.shape[d]) return;
    a += idx.v[d] * view.stride[d];
  }
  const long long n = min(count, view.shape[R - 1] - idx.v[R - 1]);
  const long long step = view.stride[R - 1];
  // Rounds of one element per thread, counted from `count` (a constant once inlined: the
  // emitter passes the table's width), so the loop unrolls away; a loop bounded by `n`
  // stays a loop (1.4 % of a decode kernel's compile, in instructions executed).
  const long long rounds = (count + TJ_THREADS - 1) / TJ_THREADS;
  for (long long r = 0; r < rounds; ++r) {
    const long long i = detail::threadId() + r * TJ_THREADS;
    if (i >= n) return;
    const T* p = view.data + a + i * step;
    const unsigned long long line = reinterpret_cast<unsigned long long>(p) >> 7;
    if (i > 0 && reinterpret_cast<unsigned long long>(p - step) >> 7 == line) continue;
    if constexpr (TJ_PREFETCH_L1) asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
    else asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
  }
}

// tj.arrive: thread 0 counts the program in after a barrier (every thread's writes issued)
// and a fence (they reach the GPU's scope before the add); the last program resets the
// counter and fences again before the barrier that tells every thread (__syncthreads_or), so
// its loads after it see the other programs' writes.
template <int R>
__device__ __forceinline__ bool arrive(const View<int32_t, R>& view, const Index<R>& idx, int64_t count) {
  const long long a = detail::elementOffset(view, idx);
  __syncthreads();
  int last = 0;
  if (detail::threadId() == 0) {
    __threadfence();
    last = atomicAdd(view.data + a, 1) + 1 == int(count);
    if (last) {
      atomicExch(view.data + a, 0);
      __threadfence();
    }
  }
  return __syncthreads_or(last) != 0;
}

// ---- paged KV cache ---------------------------------------------------------------------

namespace detail {

template <CacheLayout Layout, typename T>
struct CacheAddress {
  static constexpr int kX = int(16 / sizeof(T));
  static constexpr int kRank = Layout == CacheLayout::Standard ? 4 : 5;
  __device__ __forceinline__ static long long blockSize(const View<T, kRank>& c) {
    if constexpr (Layout == CacheLayout::Standard) return c.shape[1];
    else if constexpr (Layout == CacheLayout::ShuffledK) return c.shape[3];
    else return c.shape[2] * c.shape[4];
  }
  // Offset of (block, slot, head, dim).
  __device__ __forceinline__ static long long at(const View<T, kRank>& c, long long block,
                                                 long long slot, long long head, long long d) {
    if constexpr (Layout == CacheLayout::Standard)
      return block * c.stride[0] + slot * c.stride[1] + head * c.stride[2] + d * c.stride[3];
    else if constexpr (Layout == CacheLayout::ShuffledK)
      return block * c.stride[0] + head * c.stride[1] + (d / kX) * c.stride[2] + slot * c.stride[3] +
             (d % kX) * c.stride[4];
    else
      return block * c.stride[0] + head * c.stride[1] + (slot / kX) * c.stride[2] + d * c.stride[3] +
             (slot % kX) * c.stride[4];
  }
  // Whether 16-byte pieces along the head dim (Standard, ShuffledK) or along slots
  // (ShuffledV) are contiguous and aligned.
  __device__ __forceinline__ static bool vectorizable(const View<T, kRank>& c) {
    bool ok = aligned(c.data, 16) && c.stride[kRank - 1] == 1;
#pragma unroll
    for (int d = 0; d < kRank - 1; ++d) ok = ok && c.stride[d] % kX == 0;
    if constexpr (Layout != CacheLayout::Standard) ok = ok && c.shape[4] == kX;
    return ok;
  }
};

template <typename TI>
__device__ __forceinline__ long long tableAt(const View<TI, 2>& table, long long seq, long long logical) {
  return (long long)table.data[seq * table.stride[0] + logical * table.stride[1]];
}

// Element-by-element gather into the canonical layout: any stride or alignment. One table
// lookup per run (a run is VEC dims of one token).
template <CacheLayout Layout, int64_t BN, int64_t D, typename T, int RC, typename TI>
__device__ __forceinline__ void pagedGatherScalar(Tile<T, BN, D>& out, const View<T, RC>& cache,
                                                  const View<TI, 2>& table, long long seq,
                                                  long long tokenStart, long long limit, long long head) {
  using A = CacheAddress<Layout, T>;
  using L = typename Tile<T, BN, D>::L;
  constexpr int kRowRuns = int(D / L::kVec);
  const unsigned bs = unsigned(A::blockSize(cache));
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::valid(k)) continue;
    int run = L::run(k);
    int row = run / kRowRuns, c = (run % kRowRuns) * L::kVec;
    long long t = tokenStart + row;
    if (t >= 0 && t < limit) {
      unsigned ut = unsigned(t), logical = ut / bs, slot = ut - logical * bs;
      long long blk = tableAt(table, seq, logical);
#pragma unroll
      for (int j = 0; j < L::kVec; ++j) out.v[k * L::kVec + j] = cache.data[A::at(cache, blk, slot, head, c + j)];
    }
  }
}

}  // namespace detail

template <CacheLayout Layout, int64_t BN, int64_t D, typename T, int RC, typename TI>
__device__ __forceinline__ Tile<T, BN, D> paged_load(const View<T, RC>& cache, const View<TI, 2>& table,
                                                     int64_t seq, int64_t token_start, int64_t limit,
                                                     int64_t head) {
  using A = detail::CacheAddress<Layout, T>;
  static_assert(RC == A::kRank, "paged_load: Standard caches have rank 4, shuffled ones rank 5");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "paged_load: 8-, 16- or 32-bit cache elements");
  static_assert(IsSame<TI, int32_t>::value || IsSame<TI, int64_t>::value,
                "paged_load: the block table is int32 or int64");
  static_assert(D % tj::Layout<BN * D>::kVec == 0 && D % 8 == 0, "paged_load: head size must be a multiple of 8");
  using Out = Tile<T, BN, D>;
  using L = typename Out::L;
  constexpr int X = A::kX;
  Out out;
#pragma unroll
  for (int i = 0; i < L::kRegs; ++i) out.v[i] = T{};
  const long long bs = A::blockSize(cache);
  if constexpr (Layout != CacheLayout::ShuffledV) {
    // Each run (VEC dims of one token) is 16-byte pieces; each thread keeps all its runs'
    // loads in flight. 32-bit token arithmetic: contexts stay below 2^31 tokens.
    // A piece is 16 bytes, or for 8-bit codes a whole run (8 codes: 8 bytes).
    constexpr int kPiece = L::kVec < X ? L::kVec : X;
    static_assert((D % L::kVec == 0 && L::kVec % kPiece == 0) || D % X == 0,
                  "paged_load: head size must be a multiple of 16 bytes");
    constexpr bool kFast = D % L::kVec == 0 && L::kVec % kPiece == 0 && kPiece % 4 == 0;
    if (kFast && A::vectorizable(cache) && bs > 0) {
      constexpr int kRowRuns = int(D / L::kVec);
      const unsigned ubs = unsigned(bs);
#pragma unroll
      for (int k = 0; k < L::kPer; ++k) {
        if (!L::valid(k)) continue;
        int run = L::run(k);
        int row = run / kRowRuns, c = (run % kRowRuns) * L::kVec;
        long long t = token_start + row;
        if (t >= 0 && t < limit) {
          unsigned ut = unsigned(t);
          unsigned logical = ut / ubs, slot = ut - logical * ubs;
          long long blk = detail::tableAt(table, seq, logical);
#pragma unroll
          for (int q = 0; q < L::kVec / kPiece; ++q) {
            long long a = A::at(cache, blk, slot, head, c + q * kPiece);
            detail::unpack<T, kPiece>(detail::loadWords<kPiece * int(sizeof(T))>(cache.data + a),
                                      out.v, k * L::kVec + q * kPiece);
          }
        }
      }
    } else {
      detail::pagedGatherScalar<Layout>(out, cache, table, seq, token_start, limit, head);
    }
  } else {
    // ShuffledV: 16 contiguous bytes hold X tokens of one dim. Gather X-token groups with
    // 16-byte loads (consecutive threads: consecutive dims, contiguous), transpose through
    // scratch into [rows][D + pad], then read the canonical runs.
    constexpr int kPad = (int(D * sizeof(T)) / 16) % 2 == 0 ? int(16 / sizeof(T)) : 0;
    constexpr int kStride = int(D) + kPad;
    constexpr int kRowsFit = int(TJ_SMEM_BYTES / (kStride * sizeof(T))) / X * X;
    constexpr int kChunk = kRowsFit < int(BN) ? kRowsFit : int(BN);
    constexpr bool kFast = BN % X == 0 && D % L::kVec == 0 && kChunk >= X;
    if (kFast && A::vectorizable(cache) && bs % X == 0 && token_start % X == 0) {
      T* buf = reinterpret_cast<T*>(detail::scratch());
      constexpr int kRowRuns = int(D / L::kVec);
      for (int r0 = 0; r0 < int(BN); r0 += kChunk) {
        const int rows = int(BN) - r0 < kChunk ? int(BN) - r0 : kChunk;
        const int units = rows / X * int(D);
        __syncthreads();
        constexpr int kUnitsMax = kChunk / X * int(D);
#pragma unroll
        for (int m = 0; m < (kUnitsMax + TJ_THREADS - 1) / TJ_THREADS; ++m) {
          int u = m * TJ_THREADS + detail::threadId();
          if (u >= units) continue;
          int g = u / int(D), d = u % int(D);
          long long t0 = token_start + r0 + g * X;
          T vals[X];
#pragma unroll
          for (int x = 0; x < X; ++x) vals[x] = T{};
          if (t0 + X <= limit) {
            unsigned ut = unsigned(t0);
            unsigned logical = ut / unsigned(bs), slot = ut - logical * unsigned(bs);
            long long blk = detail::tableAt(table, seq, logical);
            detail::unpack<T, X>(detail::loadWords<16>(cache.data + A::at(cache, blk, slot, head, d)),
                                 vals, 0);
          } else if (t0 < limit) {
            unsigned ut = unsigned(t0);
            unsigned logical = ut / unsigned(bs), slot = ut - logical * unsigned(bs);
            long long blk = detail::tableAt(table, seq, logical);
            long long a = A::at(cache, blk, slot, head, d);
#pragma unroll
            for (int x = 0; x < X; ++x)
              if (t0 + x < limit) vals[x] = cache.data[a + x];
          }
#pragma unroll
          for (int x = 0; x < X; ++x) buf[(g * X + x) * kStride + d] = vals[x];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < L::kPer; ++k) {
          if (!L::valid(k)) continue;
          int run = L::run(k);
          int row = run / kRowRuns - r0, c = (run % kRowRuns) * L::kVec;
          if (row >= 0 && row < rows) detail::loadRun<T, L::kVec>(buf + row * kStride + c, out.v, k * L::kVec);
        }
      }
    } else {
      detail::pagedGatherScalar<Layout>(out, cache, table, seq, token_start, limit, head);
    }
  }
  return out;
}

template <CacheLayout Layout, typename T, int RC, int64_t H, int64_t D>
__device__ __forceinline__ void paged_store(const View<T, RC>& cache, const Tile<T, H, D>& rows,
                                            int64_t block, int64_t slot, int64_t head) {
  using A = detail::CacheAddress<Layout, T>;
  // Rows past the cache's kv heads (a partial last head tile) are skipped.
  const int64_t heads = Layout == CacheLayout::Standard ? cache.shape[2] : cache.shape[1];
  static_assert(RC == A::kRank, "paged_store: Standard caches have rank 4, shuffled ones rank 5");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "paged_store: 8-, 16- or 32-bit cache elements");
  using L = typename Tile<T, H, D>::L;
  constexpr int X = A::kX;
  // A piece is 16 bytes, or for 8-bit codes a whole run (8 codes: 8 bytes).
  constexpr int kPiece = L::kVec < X ? L::kVec : X;
  constexpr bool kPieces = Layout != CacheLayout::ShuffledV && D % L::kVec == 0 &&
                           L::kVec % kPiece == 0 && kPiece * int(sizeof(T)) % 4 == 0;
  const bool vec = kPieces && A::vectorizable(cache);
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    int e = L::run(k) * L::kVec;
    if (vec) {
      int h = e / int(D), c = e % int(D);
      if (head + h >= heads) continue;
#pragma unroll
      for (int q = 0; q < (kPieces ? L::kVec / kPiece : 1); ++q)
        *reinterpret_cast<detail::Words<kPiece * int(sizeof(T))>*>(
            cache.data + A::at(cache, block, slot, head + h, c + q * kPiece)) =
            detail::pack<T, kPiece>(rows.v, k * L::kVec + q * kPiece);
    } else {
      // Element j of the run, where its row is one of the cache's heads.
      auto storeElement = [&](int j, T value) {
        int h = (e + j) / int(D);
        if (head + h < heads) cache.data[A::at(cache, block, slot, head + h, (e + j) % int(D))] = value;
      };
      if constexpr (kPieces && Layout == CacheLayout::Standard) {
        // A standard cache that is not vectorizable (rare: a strided or unaligned view):
        // element by element through a staging array in a rolled loop. kVec unrolled copies of
        // the index arithmetic were most of reshape_and_cache's compile (36 % of its
        // instructions, bench/results/2026-12-02, s19). Not for shuffled K: the changed code
        // around its vector path made it 1.2 % slower (s19-c4). Not in load and store: there
        // the slow path is hot for some tiles (a merge's LSE gathers and scatters), and a
        // rolled loop of loads waits out each load's latency in turn (s19-c1: the reduce
        // kernel 9 % slower at batch 1 x 16K).
        T staged[L::kVec];
#pragma unroll
        for (int j = 0; j < L::kVec; ++j) staged[j] = rows.v[k * L::kVec + j];
#pragma unroll 1
        for (int j = 0; j < L::kVec; ++j) storeElement(j, staged[j]);
      } else {
        // Shuffled caches: for V (a row's elements lie a slot stride apart) this is every
        // store, unrolled.
#pragma unroll
        for (int j = 0; j < L::kVec; ++j) storeElement(j, rows.v[k * L::kVec + j]);
      }
    }
  }
}

}  // namespace tj
