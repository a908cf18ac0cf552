// std::shuffle as libstdc++ implements it (GCC 9 and later), over an int64 array, with the
// standard engines std::mt19937 and std::mt19937_64 (their sequences are fixed by the C++
// standard; the shuffle and uniform_int_distribution are not, so they are written out here and
// give libstdc++'s results with any compiler and standard library).
#pragma once
#include <cstdint>
#include <random>
#include <utility>

namespace dali_shuffle {

// Lemire's nearly-divisionless draw of [0, range) from a full-width engine (libstdc++'s
// uniform_int_distribution::_S_nd); Wide holds the product of two engine words.
template <typename Wide, typename Word, typename Engine>
inline uint64_t lemire(Engine &g, uint64_t range) {
  Wide product = Wide(Word(g())) * Wide(range);
  Word low = Word(product);
  if (low < Word(range)) {
    Word threshold = Word(-Word(range)) % Word(range);
    while (low < threshold) {
      product = Wide(Word(g())) * Wide(range);
      low = Word(product);
    }
  }
  return uint64_t(product >> (8 * sizeof(Word)));
}

// uniform_int_distribution<uint64_t>(0, b)(g) for an engine of 32 or 64 full bits.
template <typename Engine>
inline uint64_t uniform(Engine &g, uint64_t b) {
  constexpr uint64_t engine_range = uint64_t(Engine::max() - Engine::min());
  if (engine_range == b) return uint64_t(g() - Engine::min());
  if constexpr (engine_range == UINT64_MAX) {
    return lemire<unsigned __int128, uint64_t>(g, b + 1);
  } else {
    return lemire<uint64_t, uint32_t>(g, b + 1);
  }
}

// std::shuffle(items, items + n, g): two swaps per draw while the engine's range allows it.
template <typename Engine>
inline void shuffle(int64_t *items, uint64_t n, Engine &g) {
  if (n < 2) return;
  constexpr uint64_t engine_range = uint64_t(Engine::max() - Engine::min());
  if (engine_range / n >= n) {
    uint64_t i = 1;
    if (n % 2 == 0) {
      std::swap(items[1], items[uniform(g, 1)]);
      i = 2;
    }
    while (i < n) {
      const uint64_t span = i + 1;
      const uint64_t x = uniform(g, span * (span + 1) - 1);
      std::swap(items[i], items[x / (span + 1)]);
      std::swap(items[i + 1], items[x % (span + 1)]);
      i += 2;
    }
    return;
  }
  for (uint64_t i = 1; i < n; i++) std::swap(items[i], items[uniform(g, i)]);
}

inline void shuffle_mt19937(int64_t *items, uint64_t n, uint32_t seed) {
  std::mt19937 g(seed);
  shuffle(items, n, g);
}

inline void shuffle_mt19937_64(int64_t *items, uint64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  shuffle(items, n, g);
}

}  // namespace dali_shuffle
