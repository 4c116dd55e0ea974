// libFuzzer target: Kubernetes quantity parsing. Every input parses exactly or is refused with
// a reason; formatting a parsed value and parsing it again gives the same value.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "shared/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<int64_t> millis = headroom::ParseCpuMillis(text);
  if (millis.ok()) {
    absl::StatusOr<int64_t> again = headroom::ParseCpuMillis(headroom::FormatCpuMillis(*millis));
    if (!again.ok() || *again != *millis) std::abort();
  }
  absl::StatusOr<int64_t> bytes = headroom::ParseMemoryBytes(text);
  if (bytes.ok()) {
    absl::StatusOr<int64_t> again = headroom::ParseMemoryBytes(headroom::FormatMemoryBytes(*bytes));
    if (!again.ok() || *again != *bytes) std::abort();
  }
  return 0;
}
