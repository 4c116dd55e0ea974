#include "extender/json_writer.h"

#include <simdjson.h>

#include "nlohmann/json.hpp"

namespace headroom::extender {

void AppendJsonString(std::string& out, absl::string_view text) {
  // One pass without early exit (the compiler vectorises it): names are short and clean.
  unsigned char special = 0;
  unsigned char high = 0;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    special |= static_cast<unsigned char>(byte < 0x20) | static_cast<unsigned char>(c == '"') |
               static_cast<unsigned char>(c == '\\');
    high |= byte;
  }
  const bool plain = special == 0;
  const bool ascii = (high & 0x80) == 0;
  if (plain && (ascii || simdjson::validate_utf8(text.data(), text.size()))) {
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
