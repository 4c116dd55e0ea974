#pragma once

// A small deterministic random source for the simulator: SplitMix64 (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", 2014). The standard library's
// distributions differ between implementations, so the few we need are written here and a
// seed gives the same run everywhere.

#include <cstdint>

namespace headroom::sim {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 random bits.
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  double Uniform(double low, double high) { return low + (high - low) * Unit(); }
  // Uniform integer in [low, high].
  int64_t UniformInt(int64_t low, int64_t high) {
    return low + static_cast<int64_t>(Next() % static_cast<uint64_t>(high - low + 1));
  }
  bool Chance(double probability) { return Unit() < probability; }

  // An independent stream for `index` (per pod), so adding pods does not shift others.
  Rng Fork(uint64_t index) const {
    Rng child(state_ ^ (0xd1b54a32d192ed03ULL * (index + 1)));
    child.Next();
    return child;
  }

 private:
  uint64_t state_;
};

}  // namespace headroom::sim
