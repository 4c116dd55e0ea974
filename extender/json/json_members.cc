#include "extender/json/json_members.h"

#include <simdjson.h>

#include "absl/strings/str_cat.h"
#include "shared/status_macros.h"

namespace headroom::extender {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// A validating scan: each method checks one production and leaves `at_` after it.
class Checker {
 public:
  explicit Checker(absl::string_view json) : json_(json) {}

  absl::Status Fail(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("body is not valid JSON: ", what, " at byte ", at_));
  }
  void SkipSpace() {
    while (at_ < json_.size() && IsSpace(json_[at_])) ++at_;
  }
  bool AtEnd() const { return at_ >= json_.size(); }
  char Peek() const { return AtEnd() ? '\0' : json_[at_]; }
  size_t at() const { return at_; }
  // Skips space, then consumes `c` if it is next.
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++at_;
    return true;
  }

  // A string; `escaped` says whether it held escapes.
  absl::Status String(bool& escaped) {
    escaped = false;
    if (Peek() != '"') return Fail("expected a string");
    ++at_;
    while (true) {
      if (AtEnd()) return Fail("unterminated string");
      const char c = json_[at_];
      if (c == '"') {
        ++at_;
        return absl::OkStatus();
      }
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c == '\\') {
        escaped = true;
        ++at_;
        const char e = Peek();
        if (e == 'u') {
          for (size_t i = 1; i <= 4; ++i) {
            if (at_ + i >= json_.size() || !IsHex(json_[at_ + i])) return Fail("bad \\u escape");
          }
          at_ += 4;
        } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                   e != 'r' && e != 't') {
          return Fail("bad escape");
        }
      }
      ++at_;
    }
  }

  // A member's key and its colon.
  absl::Status Key(bool& escaped) {
    SkipSpace();
    HEADROOM_RETURN_IF_ERROR(String(escaped));
    if (!Consume(':')) return Fail("expected ':'");
    return absl::OkStatus();
  }

  // One value, containers included, nested at most `max_depth` deep, with an explicit stack
  // rather than recursion.
  absl::Status Value(int max_depth) {
    max_depth_ = max_depth;
    std::vector<char> open;  // the closing character of each container entered
    while (true) {
      SkipSpace();
      HEADROOM_RETURN_IF_ERROR(ValueStart(open));
      // After a value, or an empty container: the next member or element, or closings.
      while (true) {
        if (open.empty()) return absl::OkStatus();
        if (Consume(',')) {
          if (open.back() == '}') {
            bool escaped;
            HEADROOM_RETURN_IF_ERROR(Key(escaped));
          }
          break;
        }
        if (!Consume(open.back())) {
          return Fail(absl::StrCat("expected ',' or '", absl::string_view(&open.back(), 1), "'"));
        }
        open.pop_back();
      }
    }
  }

 private:
  // A scalar, an empty container, or the opening of one (then its first key, for an object:
  // `open` grows and the caller goes on with the first value).
  absl::Status ValueStart(std::vector<char>& open) {
    const char c = Peek();
    if (c == '{' || c == '[') {
      if (static_cast<int>(open.size()) >= max_depth_) {
        return Fail(absl::StrCat("nesting deeper than ", max_depth_));
      }
      ++at_;
      const char close = c == '{' ? '}' : ']';
      if (Consume(close)) return absl::OkStatus();
      open.push_back(close);
      if (c == '{') {
        bool escaped;
        HEADROOM_RETURN_IF_ERROR(Key(escaped));
      }
      SkipSpace();
      return ValueStart(open);  // (depth-bounded: at most max_depth nested openings)
    }
    if (c == '"') {
      bool escaped;
      return String(escaped);
    }
    if (c == '-' || IsDigit(c)) return Number();
    if (c == 't') return Literal("true");
    if (c == 'f') return Literal("false");
    if (c == 'n') return Literal("null");
    return Fail(AtEnd() ? "unexpected end" : "unexpected character");
  }

  absl::Status Number() {
    if (Peek() == '-') ++at_;
    if (Peek() == '0') {
      ++at_;
    } else if (IsDigit(Peek())) {
      while (IsDigit(Peek())) ++at_;
    } else {
      return Fail("bad number");
    }
    if (Peek() == '.') {
      ++at_;
      if (!IsDigit(Peek())) return Fail("bad number");
      while (IsDigit(Peek())) ++at_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++at_;
      if (Peek() == '+' || Peek() == '-') ++at_;
      if (!IsDigit(Peek())) return Fail("bad number");
      while (IsDigit(Peek())) ++at_;
    }
    return absl::OkStatus();
  }

  absl::Status Literal(absl::string_view word) {
    if (json_.substr(at_, word.size()) != word) return Fail("unexpected character");
    at_ += word.size();
    return absl::OkStatus();
  }

  absl::string_view json_;
  int max_depth_ = 0;
  size_t at_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<JsonMember>> TopLevelMembers(absl::string_view json, int max_depth) {
  if (!simdjson::validate_utf8(json.data(), json.size())) {
    return absl::InvalidArgumentError("body is not valid JSON: not UTF-8");
  }
  Checker checker(json);
  if (!checker.Consume('{')) return checker.Fail("expected an object");
  std::vector<JsonMember> members;
  if (!checker.Consume('}')) {
    do {
      checker.SkipSpace();
      JsonMember member;
      const size_t key_start = checker.at() + 1;
      HEADROOM_RETURN_IF_ERROR(checker.String(member.key_escaped));
      member.key = json.substr(key_start, checker.at() - 1 - key_start);
      if (!checker.Consume(':')) return checker.Fail("expected ':'");
      checker.SkipSpace();
      const size_t value_start = checker.at();
      HEADROOM_RETURN_IF_ERROR(checker.Value(max_depth - 1));
      member.value = json.substr(value_start, checker.at() - value_start);
      members.push_back(member);
    } while (checker.Consume(','));
    if (!checker.Consume('}')) return checker.Fail("expected ',' or '}'");
  }
  checker.SkipSpace();
  if (!checker.AtEnd()) return checker.Fail("text after the value");
  return members;
}

}  // namespace headroom::extender
