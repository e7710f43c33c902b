// The wave's cross-lane operations the library uses, lane-exactly: every lane offers a word
// and reads another lane's, with a wave barrier on each side.
#pragma once

#include "tj_wave_model/fibers.h"

namespace wave_model {

// Every lane offers `mine`; returns what lane `source` (an index inside the wave) offered.
template <typename T>
inline T exchange(T mine, int source) {
  static_assert(sizeof(T) <= 8, "cross-lane values are at most 8 bytes");
  Block& b = *tBlock;
  unsigned long long word = 0;
  __builtin_memcpy(&word, &mine, sizeof(T));
  b.words[b.current] = word;
  waveBarrier();
  word = b.words[(b.current / kWave) * kWave + source];
  waveBarrier();
  T result;
  __builtin_memcpy(&result, &word, sizeof(T));
  return result;
}

// ds_bpermute: each lane reads the word of lane addr[.. : 2] (modulo the wave).
inline int bpermute(int address, int value) { return exchange(value, (address >> 2) & (kWave - 1)); }

// ds_swizzle: offset[15] set is quad-permute mode, else bit-mask mode within 32 lanes.
template <int Offset>
inline int swizzle(int value) {
  const int l = waveLane();
  int source;
  if constexpr ((Offset & 0x8000) != 0) {
    source = (l & ~3) | ((Offset >> (2 * (l & 3))) & 3);
  } else {
    constexpr int kAnd = Offset & 0x1f, kOr = (Offset >> 5) & 0x1f, kXor = (Offset >> 10) & 0x1f;
    source = (l & ~0x1f) | ((((l & 0x1f) & kAnd) | kOr) ^ kXor);
  }
  return exchange(value, source);
}

// DPP: quad_perm controls (0x00..0xff) with every row and bank enabled; anything else is not
// modelled and refused at compile time.
template <int Control, int RowMask, int BankMask, bool BoundControl>
inline int updateDpp(int old, int value) {
  static_assert(Control >= 0 && Control <= 0xff && RowMask == 0xf && BankMask == 0xf,
                "the wave model has DPP quad_perm with all rows and banks only");
  (void)old;
  const int l = waveLane();
  return exchange(value, (l & ~3) | ((Control >> (2 * (l & 3))) & 3));
}

template <typename T>
inline T readFirstLane(T value) { return exchange(value, 0); }

}  // namespace wave_model
