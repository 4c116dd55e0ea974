#include "extender/json/json_spans.h"

namespace headroom::extender {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class Scanner {
 public:
  explicit Scanner(absl::string_view json) : json_(json) {}

  void SkipSpace() {
    while (at_ < json_.size() && IsSpace(json_[at_])) ++at_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (at_ >= json_.size() || json_[at_] != c) return false;
    ++at_;
    return true;
  }
  char Peek() {
    SkipSpace();
    return at_ < json_.size() ? json_[at_] : '\0';
  }
  // A string's contents (without quotes); `escaped` says whether it had escapes.
  absl::string_view String(bool& escaped) {
    escaped = false;
    if (!Consume('"')) return {};
    const size_t start = at_;
    while (at_ < json_.size() && json_[at_] != '"') {
      if (json_[at_] == '\\') {
        escaped = true;
        ++at_;
      }
      ++at_;
    }
    const absl::string_view out = json_.substr(start, at_ - start);
    ++at_;  // the closing quote
    return out;
  }
  // Skips one value and returns its text.
  absl::string_view Value() {
    SkipSpace();
    const size_t start = at_;
    int depth = 0;
    while (at_ < json_.size()) {
      const char c = json_[at_];
      if (c == '"') {
        bool escaped;
        String(escaped);
        if (depth == 0) break;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0) break;  // the end of the enclosing container
        if (--depth == 0) {
          ++at_;
          break;
        }
      } else if (depth == 0 && (c == ',' || IsSpace(c))) {
        break;
      }
      ++at_;
    }
    return json_.substr(start, at_ - start);
  }

 private:
  absl::string_view json_;
  size_t at_ = 0;
};

}  // namespace

std::optional<std::vector<absl::string_view>> ArrayElementSpans(
    absl::string_view json, const std::vector<std::string>& path) {
  Scanner scanner(json);
  for (const std::string& key : path) {
    if (!scanner.Consume('{')) return std::nullopt;
    bool found = false;
    while (!found && scanner.Peek() == '"') {
      bool escaped;
      const absl::string_view name = scanner.String(escaped);
      if (escaped) return std::nullopt;
      if (!scanner.Consume(':')) return std::nullopt;
      if (name == key) {
        found = true;
      } else {
        scanner.Value();
        if (!scanner.Consume(',')) return std::nullopt;
      }
    }
    if (!found) return std::nullopt;
  }
  if (!scanner.Consume('[')) return std::nullopt;
  std::vector<absl::string_view> out;
  if (scanner.Consume(']')) return out;
  do {
    out.push_back(scanner.Value());
  } while (scanner.Consume(','));
  if (!scanner.Consume(']')) return std::nullopt;
  return out;
}

}  // namespace headroom::extender
