#include "extender/json/json_writer.h"

#include <simdjson.h>

#include <cstdint>
#include <cstring>

#include "nlohmann/json.hpp"

namespace headroom::extender {

namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighs = 0x8080808080808080ULL;

// Bytes of `word` (8 at a time) that are zero get their high bit set; no false positives in
// combination with the checks below, which only ask whether any byte matched.
uint64_t ZeroBytes(uint64_t word) { return (word - kOnes) & ~word & kHighs; }

// Non-zero when any of the 8 bytes needs escaping (a control character, a quote, a
// backslash) or is not ASCII (then the UTF-8 check decides): a mask, so that a loop can
// gather it over several words.
uint64_t CareBits(uint64_t word) {
  const uint64_t control = (word - kOnes * 0x20) & ~word & kHighs;  // byte < 0x20
  const uint64_t quote = ZeroBytes(word ^ (kOnes * '"'));
  const uint64_t backslash = ZeroBytes(word ^ (kOnes * '\\'));
  return control | quote | backslash | (word & kHighs);
}

bool NeedsCare(uint64_t word) { return CareBits(word) != 0; }

bool NeedsCare(unsigned char byte) {
  return byte < 0x20 || byte == '"' || byte == '\\' || byte >= 0x80;
}

}  // namespace

bool IsPlainJsonText(absl::string_view text) {
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    if (NeedsCare(word)) return false;
  }
  for (; i < text.size(); ++i) {
    if (NeedsCare(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

bool CopyPlainJsonText(char* at, absl::string_view text) {
  const char* from = text.data();
  const size_t size = text.size();
  uint64_t care = 0;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t word;
    std::memcpy(&word, from + i, 8);
    care |= CareBits(word);
    std::memcpy(at + i, &word, 8);
  }
  if (i == size) return care == 0;
  if (size >= 8) {  // the last 8 bytes, overlapping what was copied
    uint64_t word;
    std::memcpy(&word, from + size - 8, 8);
    care |= CareBits(word);
    std::memcpy(at + size - 8, &word, 8);
    return care == 0;
  }
  for (; i < size; ++i) {
    const auto byte = static_cast<unsigned char>(from[i]);
    if (NeedsCare(byte)) return false;
    at[i] = static_cast<char>(byte);
  }
  return true;
}

void AppendJsonString(std::string& out, absl::string_view text) {
  // Names and reasons are almost always plain ASCII: check 8 bytes at a time and copy them.
  if (IsPlainJsonText(text)) {
    out += '"';
    out.append(text.data(), text.size());
    out += '"';
    return;
  }
  bool special = false;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    special = special || byte < 0x20 || c == '"' || c == '\\';
  }
  if (!special && simdjson::validate_utf8(text.data(), text.size())) {
    out += '"';
    out.append(text.data(), text.size());
    out += '"';
    return;
  }
  // Rare (names are Kubernetes names; reasons are ours): nlohmann's escaping, as before.
  out += nlohmann::json(std::string(text))
             .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace headroom::extender
