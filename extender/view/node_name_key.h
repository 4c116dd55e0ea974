#pragma once

// Hashing and equality for the maps keyed by node name that the scheduler's path looks up once
// per name of every request (a few hundred to a few thousand lookups per call). The equality
// compares in 8-byte words inline: node names are short, and libc's memcmp behind the default
// equality costs a call per lookup. Both are transparent, so a string_view looks up a string.

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace headroom::extender {

struct NodeNameHash {
  using is_transparent = void;
  size_t operator()(absl::string_view name) const { return absl::Hash<absl::string_view>()(name); }
};

struct NodeNameEq {
  using is_transparent = void;
  bool operator()(absl::string_view a, absl::string_view b) const {
    const size_t size = a.size();
    if (size != b.size()) return false;
    if (size < 8) {
      if (size >= 4) {  // the first and the last 4 bytes, overlapping
        return Half(a.data()) == Half(b.data()) &&
               Half(a.data() + size - 4) == Half(b.data() + size - 4);
      }
      for (size_t i = 0; i < size; ++i) {
        if (a[i] != b[i]) return false;
      }
      return true;
    }
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
      if (Word(a.data() + i) != Word(b.data() + i)) return false;
    }
    // The last 8 bytes, overlapping what was compared.
    return i == size || Word(a.data() + size - 8) == Word(b.data() + size - 8);
  }

 private:
  static uint32_t Half(const char* at) {
    uint32_t half;
    std::memcpy(&half, at, 4);
    return half;
  }
  static uint64_t Word(const char* at) {
    uint64_t word;
    std::memcpy(&word, at, 8);
    return word;
  }
};

}  // namespace headroom::extender
