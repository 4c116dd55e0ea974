#pragma once

// Reading only the part of a JSON document that a consumer reads. The API's watches carry
// whole objects (a bound pod's event is ~3 KB: managed fields, env, probes, volumes), of
// which headroom reads a few dozen values; parsing all of it into nlohmann::json costs ~22 µs
// per event on the scheduler's machine during a burst. ParseProjected parses with simdjson
// and builds nlohmann values for the kept members only, so that the consumers' code (which
// reads nlohmann::json) is unchanged and sees exactly what a full parse would have shown it
// on every member it reads.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

// The members to keep, as a tree. On an object: the listed members, each projected by its
// own mask; the others are dropped. On an array: each element, projected by the same mask.
// On a scalar, or when the mask lists nothing (FieldMask::All()): the value as it is.
class FieldMask {
 public:
  struct Field;

  static FieldMask All();
  FieldMask(std::initializer_list<Field> fields);
  FieldMask(const FieldMask&);
  FieldMask& operator=(const FieldMask&);
  ~FieldMask();

  bool keeps_all() const;
  // The mask of member `key`; nullptr when the member is dropped.
  const FieldMask* Find(std::string_view key) const;

 private:
  FieldMask();  // (out of line, like the other members: Field is incomplete here)
  std::vector<Field> fields_;
};

struct FieldMask::Field {
  Field(std::string name, FieldMask members = FieldMask::All())
      : key(std::move(name)), mask(std::move(members)) {}
  std::string key;
  FieldMask mask;
};

// `value` cut down to `mask` (the same rule, for a document already parsed).
nlohmann::json Project(const nlohmann::json& value, const FieldMask& mask);

// `text` parsed and cut down to `mask`. Integers, floats, strings, booleans and nulls come
// out as nlohmann's own parser gives them (non-negative integers unsigned, negative signed,
// a duplicate member's last value); a document simdjson refuses for a number but nlohmann
// reads (an integer beyond 64 bits) is parsed by nlohmann, within shared/json_nesting.h's
// bound, and then cut. InvalidArgument otherwise. Safe from any thread: each keeps its own
// parser buffers (released after a document over 4 MiB).
absl::StatusOr<nlohmann::json> ParseProjected(absl::string_view text, const FieldMask& mask);

}  // namespace headroom::extender
