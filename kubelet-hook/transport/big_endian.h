#pragma once

// Big-endian u32 helpers for the NRI mux and ttrpc headers.

#include <cstdint>
#include <string>

namespace headroom::nri {

inline void AppendU32(uint32_t value, std::string& out) {
  out.push_back(static_cast<char>((value >> 24) & 0xff));
  out.push_back(static_cast<char>((value >> 16) & 0xff));
  out.push_back(static_cast<char>((value >> 8) & 0xff));
  out.push_back(static_cast<char>(value & 0xff));
}

inline uint32_t ReadU32(const char* bytes) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

}  // namespace headroom::nri
