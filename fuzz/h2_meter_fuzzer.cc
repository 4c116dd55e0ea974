// libFuzzer target: the report port's HTTP/2 meter (extender/h2_meter.h). The first byte
// sets a chunk size; the rest is what a client sends. The verdict must not depend on how the
// bytes were split: fed whole and fed in chunks, the meter fails with the same status or
// passes, having seen the same frames and streams.

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/string_view.h"
#include "extender/reports/h2_meter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = data[0] == 0 ? 1 : data[0];
  const absl::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const absl::Time now = absl::FromUnixSeconds(1000);
  headroom::extender::H2ClientMeter whole;
  const absl::Status at_once = whole.Feed(bytes, now);
  headroom::extender::H2ClientMeter split;
  absl::Status in_chunks;
  for (size_t at = 0; at < bytes.size() && in_chunks.ok(); at += chunk) {
    in_chunks = split.Feed(bytes.substr(at, chunk), now);
  }
  if (at_once != in_chunks) std::abort();
  if (at_once.ok() &&
      (whole.frames() != split.frames() || whole.streams_opened() != split.streams_opened())) {
    std::abort();
  }
  return 0;
}
