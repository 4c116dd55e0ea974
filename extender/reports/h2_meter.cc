#include "extender/reports/h2_meter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace headroom::extender {
namespace {

constexpr absl::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum FrameType : uint8_t {
  kData = 0x0,
  kHeaders = 0x1,
  kPriority = 0x2,
  kRstStream = 0x3,
  kSettings = 0x4,
  kPing = 0x6,
  kContinuation = 0x9,
};
constexpr uint8_t kEndStream = 0x1;  // DATA, HEADERS
constexpr uint8_t kAck = 0x1;        // SETTINGS, PING
constexpr uint8_t kEndHeaders = 0x4;

}  // namespace

bool TokenBucket::Take(absl::Time now) {
  if (last_ != absl::InfinitePast() && now > last_) {
    tokens_ = std::min(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * rate_);
  }
  if (last_ == absl::InfinitePast() || now > last_) last_ = now;
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

H2ClientMeter::H2ClientMeter(const H2Limits& limits)
    : limits_(limits),
      streams_(limits.stream_burst, limits.streams_per_second),
      resets_(limits.reset_burst, limits.resets_per_second),
      control_(limits.control_burst, limits.control_per_second) {}

absl::Status H2ClientMeter::Feed(absl::string_view bytes, absl::Time now) {
  if (!failed_.ok()) return failed_;
  while (!bytes.empty()) {
    if (preface_seen_ < kPreface.size()) {
      const size_t n = std::min(bytes.size(), kPreface.size() - preface_seen_);
      if (bytes.substr(0, n) != kPreface.substr(preface_seen_, n)) {
        failed_ =
            absl::InvalidArgumentError("the connection does not start with the HTTP/2 preface");
        return failed_;
      }
      preface_seen_ += n;
      bytes.remove_prefix(n);
      continue;
    }
    if (payload_left_ > 0) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(bytes.size(), payload_left_));
      payload_left_ -= n;
      bytes.remove_prefix(n);
      continue;
    }
    const size_t n = std::min(bytes.size(), sizeof(header_) - header_seen_);
    std::copy_n(bytes.data(), n, header_ + header_seen_);
    header_seen_ += n;
    bytes.remove_prefix(n);
    if (header_seen_ < sizeof(header_)) break;
    header_seen_ = 0;
    ++frames_;
    if (absl::Status frame = OnFrame(now); !frame.ok()) {
      failed_ = frame;
      return failed_;
    }
  }
  return absl::OkStatus();
}

absl::Status H2ClientMeter::OnFrame(absl::Time now) {
  const uint32_t length = (uint32_t{header_[0]} << 16) | (uint32_t{header_[1]} << 8) | header_[2];
  const uint8_t type = header_[3];
  const uint8_t flags = header_[4];
  const uint32_t stream = ((uint32_t{header_[5]} << 24) | (uint32_t{header_[6]} << 16) |
                           (uint32_t{header_[7]} << 8) | header_[8]) &
                          0x7fffffffu;
  payload_left_ = length;
  if (in_header_block_ != (type == kContinuation)) {
    return absl::InvalidArgumentError(in_header_block_
                                          ? "a header block interrupted by another frame"
                                          : "a CONTINUATION frame that continues no header block");
  }
  switch (type) {
    case kHeaders:
      if (stream > last_stream_) {
        last_stream_ = stream;
        ++streams_opened_;
        if (!streams_.Take(now)) {
          return absl::ResourceExhaustedError(
              absl::StrCat("more than ", limits_.stream_burst, " new streams at once or ",
                           limits_.streams_per_second, " per second (", streams_opened_,
                           " opened on this connection)"));
        }
      }
      header_block_bytes_ = 0;
      [[fallthrough]];
    case kContinuation:
      header_block_bytes_ += length;
      if (header_block_bytes_ > limits_.max_header_block_bytes) {
        return absl::ResourceExhaustedError(
            absl::StrCat("a header block over ", limits_.max_header_block_bytes, " bytes"));
      }
      in_header_block_ = (flags & kEndHeaders) == 0;
      return absl::OkStatus();
    case kRstStream:
      if (!resets_.Take(now)) {
        return absl::ResourceExhaustedError(absl::StrCat("more than ", limits_.reset_burst,
                                                         " stream resets at once or ",
                                                         limits_.resets_per_second, " per second"));
      }
      return absl::OkStatus();
    case kData:
      if (length != 0 || (flags & kEndStream) != 0) return absl::OkStatus();
      break;
    case kSettings:
    case kPing:
      if ((flags & kAck) != 0) return absl::OkStatus();
      break;
    case kPriority:
      break;
    default:
      return absl::OkStatus();
  }
  if (!control_.Take(now)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("more than ", limits_.control_burst,
                     " control frames (PING, SETTINGS, PRIORITY, empty DATA) at once or ",
                     limits_.control_per_second, " per second"));
  }
  return absl::OkStatus();
}

}  // namespace headroom::extender
