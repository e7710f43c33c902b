// Global-memory access of the CPU backend. Masked elements are never read, so values past a
// sequence's end (NaN in a last block's tail) cannot reach arithmetic.
#pragma once

#include "tj/tile.h"

namespace tj {

namespace detail {
// Visits every element of a rank-r tile placed at the last r axes of a rank-R view.
template <int R, typename Tl, typename F>
inline void forEachPlaced(const Index<R>& offset, const Index<R>& limit, F f) {
  constexpr int r = Tl::kRank;
  static_assert(r <= R, "a tile cannot have more axes than its view");
  bool leadingInside = true;
  for (int d = 0; d < R - r; ++d)
    leadingInside &= offset.v[d] >= 0 && offset.v[d] < limit.v[d];
  for (int64_t i = 0; i < Tl::kSize; ++i) {
    int64_t tileIndex[r];
    unravel<r>(i, Tl::kShape, tileIndex);
    int64_t index[R];
    bool inside = leadingInside;
    for (int d = 0; d < R; ++d) {
      index[d] = offset.v[d] + (d >= R - r ? tileIndex[d - (R - r)] : 0);
      inside &= index[d] >= 0 && index[d] < limit.v[d];
    }
    f(i, index, inside);
  }
}
template <typename T, int R>
inline int64_t elementOffset(const View<T, R>& view, const int64_t* index) {
  int64_t offset = 0;
  for (int d = 0; d < R; ++d) offset += index[d] * view.stride[d];
  return offset;
}
}  // namespace detail

template <int64_t... D, typename T, int R>
inline Tile<T, D...> load(const View<T, R>& view, Index<R> offset, Index<R> limit, T other) {
  Tile<T, D...> out;
  detail::forEachPlaced<R, Tile<T, D...>>(offset, limit, [&](int64_t i, const int64_t* index,
                                                             bool inside) {
    out.v[i] = inside ? view.data[detail::elementOffset(view, index)] : other;
  });
  return out;
}

template <typename T, int R, int64_t... D>
inline void store(const View<T, R>& view, Index<R> offset, Index<R> limit,
                  const Tile<T, D...>& tile) {
  detail::forEachPlaced<R, Tile<T, D...>>(offset, limit, [&](int64_t i, const int64_t* index,
                                                             bool inside) {
    if (inside) view.data[detail::elementOffset(view, index)] = tile.v[i];
  });
}

template <typename T, int R>
inline T load_scalar(const View<T, R>& view, Index<R> index) {
  return view.data[detail::elementOffset(view, index.v)];
}
template <typename T, int R>
inline void store_scalar(const View<T, R>& view, Index<R> index, T value) {
  view.data[detail::elementOffset(view, index.v)] = value;
}

// tj.prefetch: a hint; the host's caches get each element's line (the clip keeps every
// address inside the view).
template <typename T, int R>
inline void prefetch(const View<T, R>& view, Index<R> index, int64_t count) {
  for (int d = 0; d < R; ++d)
    if (index.v[d] < 0 || index.v[d] >= view.shape[d]) return;
  const int64_t first = index.v[R - 1];
  const int64_t end = first + count < view.shape[R - 1] ? first + count : view.shape[R - 1];
  for (int64_t i = first; i < end; ++i) {
    index.v[R - 1] = i;
    __builtin_prefetch(view.data + detail::elementOffset(view, index.v));
  }
}

// tj.arrive: a program is one host thread; programs run on several threads at once, so the
// count is an atomic read-modify-write (acquire-release: the last program sees what the
// others wrote before arriving).
template <int R>
inline bool arrive(const View<int32_t, R>& view, Index<R> index, int64_t count) {
  int32_t* counter = view.data + detail::elementOffset(view, index.v);
  if (__atomic_add_fetch(counter, 1, __ATOMIC_ACQ_REL) != int32_t(count)) return false;
  __atomic_store_n(counter, 0, __ATOMIC_RELAXED);
  return true;
}

namespace detail {
// Element offset of (block, slot, head, d) in a paged cache of the given layout.
template <CacheLayout L, typename T, int R>
inline int64_t cacheOffset(const View<T, R>& cache, int64_t block, int64_t slot, int64_t head,
                           int64_t d) {
  constexpr int64_t X = 16 / int64_t(sizeof(T));
  if constexpr (L == CacheLayout::Standard) {
    static_assert(R == 4, "standard cache layout is [blocks, block_size, kv_heads, head_size]");
    return block * cache.stride[0] + slot * cache.stride[1] + head * cache.stride[2] +
           d * cache.stride[3];
  } else if constexpr (L == CacheLayout::ShuffledK) {
    static_assert(R == 5, "shuffled K layout is [blocks, kv_heads, head_size/X, block_size, X]");
    return block * cache.stride[0] + head * cache.stride[1] + (d / X) * cache.stride[2] +
           slot * cache.stride[3] + (d % X) * cache.stride[4];
  } else {
    static_assert(R == 5, "shuffled V layout is [blocks, kv_heads, block_size/X, head_size, X]");
    return block * cache.stride[0] + head * cache.stride[1] + (slot / X) * cache.stride[2] +
           d * cache.stride[3] + (slot % X) * cache.stride[4];
  }
}
template <CacheLayout L, typename T, int R>
inline int64_t cacheBlockSize(const View<T, R>& cache) {
  if constexpr (L == CacheLayout::Standard) return cache.shape[1];
  else if constexpr (L == CacheLayout::ShuffledK) return cache.shape[3];
  else return cache.shape[2] * cache.shape[4];
}
}  // namespace detail

template <CacheLayout L, int64_t BN, int64_t D, typename T, int R, typename I>
inline Tile<T, BN, D> paged_load(const View<T, R>& cache, const View<I, 2>& table, int64_t seq,
                                 int64_t tokenStart, int64_t limit, int64_t head) {
  Tile<T, BN, D> out;
  const int64_t blockSize = detail::cacheBlockSize<L>(cache);
  for (int64_t i = 0; i < BN; ++i) {
    const int64_t token = tokenStart + i;
    if (token >= limit || token < 0) {
      for (int64_t d = 0; d < D; ++d) out.v[i * D + d] = cast<T>(0.0f);
      continue;
    }
    const int64_t block =
        int64_t(table.data[seq * table.stride[0] + (token / blockSize) * table.stride[1]]);
    const int64_t slot = token % blockSize;
    for (int64_t d = 0; d < D; ++d)
      out.v[i * D + d] = cache.data[detail::cacheOffset<L>(cache, block, slot, head, d)];
  }
  return out;
}

template <CacheLayout L, typename T, int R, int64_t H, int64_t D>
inline void paged_store(const View<T, R>& cache, const Tile<T, H, D>& rows, int64_t block,
                        int64_t slot, int64_t head) {
  const int64_t kvHeads = L == CacheLayout::Standard ? cache.shape[2] : cache.shape[1];
  for (int64_t h = 0; h < H && head + h < kvHeads; ++h)
    for (int64_t d = 0; d < D; ++d)
      cache.data[detail::cacheOffset<L>(cache, block, slot, head + h, d)] = rows.v[h * D + d];
}

}  // namespace tj
