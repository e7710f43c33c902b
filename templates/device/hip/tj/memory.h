// Global memory of the HIP backend: masked tile loads/stores (16-byte global_load_dwordx4 /
// global_store_dwordx4 where a run is whole, in bounds and aligned), scalars, the paged
// KV-cache gather/scatter and tj.arrive. 64-bit address arithmetic throughout; masked
// elements are never read or written.
#pragma once

#include "tj/tile.h"

namespace tj {
namespace detail {

// Views hold generic pointers; global accesses go through address space 1 so the compiler
// emits global_* instructions rather than flat ones.
template <typename T>
using Global = __attribute__((address_space(1))) T;
template <typename T>
__device__ __forceinline__ Global<T>* global(T* p) {
  return (Global<T>*)p;
}

typedef unsigned Words4 __attribute__((ext_vector_type(4)));
typedef unsigned Words2 __attribute__((ext_vector_type(2)));

// Elements of one vector piece of a run: up to 16 bytes, for 2/4/8-byte elements.
template <typename T, int Vec>
struct Piece {
  static constexpr int kMax = (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) ? int(16 / sizeof(T)) : 1;
  static constexpr int kElems = Vec < kMax ? Vec : kMax;
  static constexpr int kBytes = kElems * int(sizeof(T));
  static constexpr bool kUseful = kElems > 1 && kBytes >= 4;
};

// The pieces of a paged cache's runs: Piece's, and for 8-bit codes (fp8 caches) a whole run
// of up to 16 codes (runs of 8: 8 bytes).
template <typename T, int Vec, bool Codes = sizeof(T) == 1>
struct CachePiece : Piece<T, Vec> {};
template <typename T, int Vec>
struct CachePiece<T, Vec, true> {
  static constexpr int kElems = Vec < 16 ? Vec : 16;
  static constexpr int kBytes = kElems;
  static constexpr bool kUseful = kBytes % 4 == 0;
};

template <typename X>
struct IsPacked { static constexpr bool value = false; };
template <typename T, int N>
struct IsPacked<PackedRegs<T, N>> { static constexpr bool value = true; };

template <typename T>
__device__ __forceinline__ unsigned short bitsOf(T x) {
  return __builtin_bit_cast(unsigned short, x);
}

// Loads/stores Count (a piece) elements of T between global p and registers regs[base..].
template <typename T, int Count, typename RegsT>
__device__ __forceinline__ void loadPiece(const T* p, RegsT& regs, int base) {
  constexpr int kBytes = Count * int(sizeof(T));
  unsigned w[kBytes / 4 > 0 ? kBytes / 4 : 1];
  if constexpr (kBytes == 16) {
    const Words4 v = *global(reinterpret_cast<const Words4*>(p));
    w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
  } else if constexpr (kBytes == 8) {
    const Words2 v = *global(reinterpret_cast<const Words2*>(p));
    w[0] = v.x, w[1] = v.y;
  } else {
    w[0] = *global(reinterpret_cast<const unsigned*>(p));
  }
  if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (int i = 0; i < Count / 2; ++i) {
      if constexpr (IsPacked<RegsT>::value) {
        regs.w[base / 2 + i] = w[i];  // a piece starts at an even register: the words as they are
      } else {
        regs[base + 2 * i] = __builtin_bit_cast(T, (unsigned short)(w[i] & 0xffffu));
        regs[base + 2 * i + 1] = __builtin_bit_cast(T, (unsigned short)(w[i] >> 16));
      }
    }
  } else if constexpr (sizeof(T) == 1) {
#pragma unroll
    for (int i = 0; i < Count; ++i)
      regs[base + i] = __builtin_bit_cast(T, (unsigned char)(w[i / 4] >> (8 * (i % 4))));
  } else if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < Count; ++i) regs[base + i] = __builtin_bit_cast(T, w[i]);
  } else {
#pragma unroll
    for (int i = 0; i < Count; ++i)
      regs[base + i] = __builtin_bit_cast(T, (unsigned long long)w[2 * i] | ((unsigned long long)w[2 * i + 1] << 32));
  }
}
template <typename T, int Count, typename RegsT>
__device__ __forceinline__ void storePiece(T* p, const RegsT& regs, int base) {
  constexpr int kBytes = Count * int(sizeof(T));
  unsigned w[kBytes / 4 > 0 ? kBytes / 4 : 1];
  if constexpr (sizeof(T) == 2) {
#pragma unroll
    for (int i = 0; i < Count / 2; ++i)
      w[i] = unsigned(bitsOf(T(regs[base + 2 * i]))) | (unsigned(bitsOf(T(regs[base + 2 * i + 1]))) << 16);
  } else if constexpr (sizeof(T) == 1) {
#pragma unroll
    for (int i = 0; i < Count / 4; ++i) w[i] = 0;
#pragma unroll
    for (int i = 0; i < Count; ++i)
      w[i / 4] |= unsigned(__builtin_bit_cast(unsigned char, T(regs[base + i]))) << (8 * (i % 4));
  } else if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < Count; ++i) w[i] = __builtin_bit_cast(unsigned, T(regs[base + i]));
  } else {
#pragma unroll
    for (int i = 0; i < Count; ++i) {
      const unsigned long long u = __builtin_bit_cast(unsigned long long, T(regs[base + i]));
      w[2 * i] = unsigned(u), w[2 * i + 1] = unsigned(u >> 32);
    }
  }
  if constexpr (kBytes == 16) {
    *global(reinterpret_cast<Words4*>(p)) = Words4{w[0], w[1], w[2], w[3]};
  } else if constexpr (kBytes == 8) {
    *global(reinterpret_cast<Words2*>(p)) = Words2{w[0], w[1]};
  } else {
    *global(reinterpret_cast<unsigned*>(p)) = w[0];
  }
}

__device__ __forceinline__ bool aligned(const void* p, int bytes) {
  return (reinterpret_cast<unsigned long long>(p) & (unsigned long long)(bytes - 1)) == 0;
}

// The walk of load/store: f(k, base, allIn, anyIn, elemIn(j), elemAt(j)) per run of slot k.
template <typename TileT, typename T, int R, typename F>
__device__ __forceinline__ void forEachRun(const View<T, R>& view, const Index<R>& offset,
                                           const Index<R>& uniformLimit, bool ownersOnly, F f) {
  using L = typename TileT::L;
  constexpr int r = TileT::kRank;
  static_assert(r <= R, "tile rank exceeds the view's rank");
  constexpr int lead = R - r;
  // Strides and limits in VGPRs (see inVgpr).
  int64_t stride[R];
  Index<R> limit;
#pragma unroll
  for (int d = 0; d < R; ++d) stride[d] = inVgpr(view.stride[d]), limit.v[d] = inVgpr(uniformLimit.v[d]);
  bool leadIn = true;
  int64_t leadBase = 0;
#pragma unroll
  for (int d = 0; d < lead; ++d) {
    leadIn = leadIn && offset.v[d] >= 0 && offset.v[d] < limit.v[d];
    leadBase += offset.v[d] * stride[d];
  }
  // Element e of the tile: its view index along axis lead + d.
  auto coordinate = [&](int e, int d) {
    int stride = 1;
#pragma unroll
    for (int i = r - 1; i > d; --i) stride *= TileT::dim(i);
    return offset.v[lead + d] + int64_t(e / stride % TileT::dim(d));
  };
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (ownersOnly ? !L::owner(k) : !L::valid(k)) continue;
    const int e = L::run(k) * L::kVec;
    if constexpr (TileT::kLast % L::kVec == 0) {  // a run stays inside one row
      bool rowIn = leadIn;
      int64_t base = leadBase;
#pragma unroll
      for (int d = 0; d < r; ++d) {
        const int64_t i = coordinate(e, d);
        if (d < r - 1) rowIn = rowIn && i >= 0 && i < limit.v[lead + d];
        base += i * stride[lead + d];
      }
      const int64_t c = coordinate(e, r - 1), lim = limit.v[R - 1];
      const bool allIn = rowIn && c >= 0 && c + L::kVec <= lim;
      const bool anyIn = rowIn && c + L::kVec > 0 && c < lim;
      f(k, base, allIn, anyIn, [&](int j) { return c + j >= 0 && c + j < lim; },
        [&](int j) { return base + int64_t(j) * stride[R - 1]; });
    } else {
      f(k, int64_t(0), false, true,
        [&](int j) {
          bool in = leadIn;
#pragma unroll
          for (int d = 0; d < r; ++d) {
            const int64_t i = coordinate(e + j, d);
            in = in && i >= 0 && i < limit.v[lead + d];
          }
          return in;
        },
        [&](int j) {
          int64_t a = leadBase;
#pragma unroll
          for (int d = 0; d < r; ++d) a += coordinate(e + j, d) * stride[lead + d];
          return a;
        });
    }
  }
}

template <typename T, int R>
__device__ __forceinline__ int64_t elementOffset(const View<T, R>& view, const Index<R>& idx) {
  int64_t a = 0;
#pragma unroll
  for (int d = 0; d < R; ++d) a += idx.v[d] * view.stride[d];
  return a;
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
                          [&](int k, int64_t base, bool allIn, bool anyIn, auto elemIn, auto elemAt) {
    if constexpr (Pc::kUseful) {
      if (allIn && vecOk && base % Pc::kElems == 0) {
#pragma unroll
        for (int q = 0; q < L::kVec / Pc::kElems; ++q)
          detail::loadPiece<T, Pc::kElems>(view.data + base + q * Pc::kElems, out.v, k * L::kVec + q * Pc::kElems);
        return;
      }
    }
    if (anyIn) {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j)
        if (elemIn(j)) out.v[k * L::kVec + j] = *detail::global(view.data + elemAt(j));
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
                         [&](int k, int64_t base, bool allIn, bool anyIn, auto elemIn, auto elemAt) {
    if constexpr (Pc::kUseful) {
      if (allIn && vecOk && base % Pc::kElems == 0) {
#pragma unroll
        for (int q = 0; q < L::kVec / Pc::kElems; ++q)
          detail::storePiece<T, Pc::kElems>(view.data + base + q * Pc::kElems, tile.v, k * L::kVec + q * Pc::kElems);
        return;
      }
    }
    if (anyIn) {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j)
        if (elemIn(j)) *detail::global(view.data + elemAt(j)) = T(tile.v[k * L::kVec + j]);
    }
  });
}

// A scalar is uniform: loaded by every lane from one address, then held in an SGPR.
template <typename T, int R>
__device__ __forceinline__ T load_scalar(const View<T, R>& view, const Index<R>& idx) {
  return detail::uniform(T(*detail::global(view.data + detail::elementOffset(view, idx))));
}

template <typename T, int R>
__device__ __forceinline__ void store_scalar(const View<T, R>& view, const Index<R>& idx, T value) {
  if (detail::threadId() != 0) return;  // scalars are uniform: one work-item writes
  *detail::global(view.data + detail::elementOffset(view, idx)) = value;
}

// tj.prefetch: a hint. gfx9/gfx11/gfx12 have no global prefetch instruction short of a load
// whose result is used; the clip is checked and nothing is issued.
template <typename T, int R>
__device__ __forceinline__ void prefetch(const View<T, R>&, const Index<R>&, int64_t) {}

// tj.arrive: work-item 0 counts the program in after a barrier (every work-item's writes
// issued) with an agent-scope acquire-release add; the last program resets the counter, and
// the LDS flag plus a barrier tell every work-item, whose later loads see the other programs'
// writes (the acquire fence after the barrier is at agent scope).
template <int R>
__device__ __forceinline__ bool arrive(const View<int32_t, R>& view, const Index<R>& idx, int64_t count) {
  int* counter = reinterpret_cast<int*>(view.data + detail::elementOffset(view, idx));
  __shared__ int last;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  detail::barrier();
  if (detail::threadId() == 0) {
    const int before = __hip_atomic_fetch_add(counter, 1, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
    const bool done = int64_t(before) + 1 == count;
    if (done) __hip_atomic_store(counter, 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    last = done;
  }
  detail::barrier();
  const bool done = detail::uniform(last) != 0;
  if (done) __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
  return done;
}

// ---- paged KV cache ---------------------------------------------------------------------

namespace detail {

// Where (token slot, head, dim) of one block lives, per layout (README "Layouts").
template <CacheLayout Layout, typename T>
struct CacheAddress {
  static constexpr int kRank = Layout == CacheLayout::Standard ? 4 : 5;
  static constexpr int kX = int(16 / sizeof(T));
  __device__ __forceinline__ static int64_t blockSize(const View<T, kRank>& c) {
    if constexpr (Layout == CacheLayout::Standard) return c.shape[1];
    else if constexpr (Layout == CacheLayout::ShuffledK) return c.shape[3];
    else return c.shape[2] * kX;
  }
  __device__ __forceinline__ static int64_t heads(const View<T, kRank>& c) {
    return Layout == CacheLayout::Standard ? c.shape[2] : c.shape[1];
  }
  __device__ __forceinline__ static int64_t at(const View<T, kRank>& c, int64_t block, int64_t slot,
                                               int64_t head, int64_t d) {
    int64_t s[kRank];
#pragma unroll
    for (int i = 0; i < kRank; ++i) s[i] = inVgpr(c.stride[i]);
    if constexpr (Layout == CacheLayout::Standard)
      return block * s[0] + slot * s[1] + head * s[2] + d * s[3];
    else if constexpr (Layout == CacheLayout::ShuffledK)
      return block * s[0] + head * s[1] + (d / kX) * s[2] + slot * s[3] + (d % kX) * s[4];
    else
      return block * s[0] + head * s[1] + (slot / kX) * s[2] + d * s[3] + (slot % kX) * s[4];
  }
  // Whether every piece of Elems dims of a token (Elems dividing the run, at most kX) is Elems
  // consecutive elements at an aligned address: one uniform answer for the whole tile, so
  // the choice between vector and element accesses is a scalar branch.
  template <int Elems>
  __device__ __forceinline__ static bool piecesAligned(const View<T, kRank>& c) {
    const int64_t* s = c.stride;
    if (!aligned(c.data, Elems * int(sizeof(T)))) return false;
    if constexpr (Layout == CacheLayout::Standard)
      return s[3] == 1 && (s[0] | s[1] | s[2]) % Elems == 0;
    else if constexpr (Layout == CacheLayout::ShuffledK)
      return s[4] == 1 && c.shape[4] == kX && (s[0] | s[1] | s[2] | s[3]) % Elems == 0;
    else
      return false;
  }
};

}  // namespace detail

// paged_load: each run of a row is one token's VEC dims; its block-table entry is read only
// for tokens before `limit` (rows past it are 0, never read), then 16-byte pieces where the
// layout keeps the dims contiguous (Standard, ShuffledK), single elements otherwise (ShuffledV
// keeps 16 bytes of one dim over X tokens).
template <CacheLayout Layout, int64_t BN, int64_t D, typename T, int RC, typename TI>
__device__ __forceinline__ Tile<T, BN, D> paged_load(const View<T, RC>& cache, const View<TI, 2>& table,
                                                     int64_t seq, int64_t token_start, int64_t limit,
                                                     int64_t head) {
  using A = detail::CacheAddress<Layout, T>;
  using Out = Tile<T, BN, D>;
  using L = typename Out::L;
  using Pc = detail::CachePiece<T, L::kVec>;
  static_assert(RC == A::kRank, "paged_load: Standard caches have rank 4, shuffled ones rank 5");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "paged_load: 8-, 16- or 32-bit cache elements");
  static_assert(IsSame<TI, int32_t>::value || IsSame<TI, int64_t>::value, "paged_load: the block table is int32 or int64");
  static_assert(D % L::kVec == 0, "paged_load: a run must stay inside one token's row");
  const int64_t blockSize = A::blockSize(cache);
  const int64_t tableRow = seq * table.stride[0], tableStride = table.stride[1];
  // One division per tile (uniform), not one per run; 32-bit: a sequence's tokens are below
  // 2^31 (sequence lengths are int32), and so is a token start one tile past them.
  const unsigned firstSteps = unsigned(token_start) / unsigned(blockSize);
  const int64_t firstEntry = int64_t(firstSteps);
  const unsigned firstSlot = unsigned(token_start) - firstSteps * unsigned(blockSize);
  const bool vecOk = Pc::kUseful && A::template piecesAligned<Pc::kElems>(cache);
  Out out;
#pragma unroll
  for (int i = 0; i < L::kRegs; ++i) out.v[i] = cast<T>(0.0f);
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::valid(k)) continue;
    const int e = L::run(k) * L::kVec;
    const int64_t t = token_start + e / int(D), d = e % int(D);
    if (t >= limit) continue;
    // Past the first token, a row is fewer than blockSize + BN slots on: 32-bit arithmetic.
    const unsigned within = firstSlot + unsigned(e / int(D)), steps = within / unsigned(blockSize);
    const int64_t entry = firstEntry + int64_t(steps);
    const int64_t block = int64_t(*detail::global(table.data + tableRow + entry * tableStride));
    const int64_t slot = int64_t(within - steps * unsigned(blockSize));
    // A piece (at most 16 bytes) never straddles a shuffled layout's X-element group.
    if (vecOk) {
#pragma unroll
      for (int q = 0; q < L::kVec / Pc::kElems; ++q)
        detail::loadPiece<T, Pc::kElems>(cache.data + A::at(cache, block, slot, head, d + q * Pc::kElems), out.v,
                                         k * L::kVec + q * Pc::kElems);
    } else {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j) out.v[k * L::kVec + j] = *detail::global(cache.data + A::at(cache, block, slot, head, d + j));
    }
  }
  return out;
}

// paged_store: row h of one token's [heads, head_size] tile to kv head `head + h` at (block,
// slot); rows past the cache's kv heads are skipped.
template <CacheLayout Layout, typename T, int RC, int64_t H, int64_t D>
__device__ __forceinline__ void paged_store(const View<T, RC>& cache, const Tile<T, H, D>& rows,
                                            int64_t block, int64_t slot, int64_t head) {
  using A = detail::CacheAddress<Layout, T>;
  using In = Tile<T, H, D>;
  using L = typename In::L;
  using Pc = detail::CachePiece<T, L::kVec>;
  static_assert(RC == A::kRank, "paged_store: Standard caches have rank 4, shuffled ones rank 5");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                "paged_store: 8-, 16- or 32-bit cache elements");
  static_assert(D % L::kVec == 0, "paged_store: a run must stay inside one head's row");
  const int64_t heads = detail::inVgpr(A::heads(cache));
  const bool vecOk = Pc::kUseful && A::template piecesAligned<Pc::kElems>(cache);
#pragma unroll
  for (int k = 0; k < L::kPer; ++k) {
    if (!L::owner(k)) continue;
    const int e = L::run(k) * L::kVec;
    const int64_t h = head + e / int(D), d = e % int(D);
    if (h >= heads) continue;
    if (vecOk) {
#pragma unroll
      for (int q = 0; q < L::kVec / Pc::kElems; ++q)
        detail::storePiece<T, Pc::kElems>(cache.data + A::at(cache, block, slot, h, d + q * Pc::kElems), rows.v,
                                          k * L::kVec + q * Pc::kElems);
    } else {
#pragma unroll
      for (int j = 0; j < L::kVec; ++j) *detail::global(cache.data + A::at(cache, block, slot, h, d + j)) = T(rows.v[k * L::kVec + j]);
    }
  }
}

}  // namespace tj
