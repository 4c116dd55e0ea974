#pragma once

// Reads what a client sends on an HTTP/2 connection (RFC 9113) frame by frame, without
// decoding headers, and says when the client asks more of the server than a node reporter
// ever needs. Debian's gRPC (1.51) predates the fixes for HTTP/2 "rapid reset"
// (CVE-2023-44487): a client that opens streams and cancels them at once, many per packet,
// makes it allocate ~15 KiB per stream and never give it back. The report port's front door
// (report_front_door.h) feeds every byte a client sends through an H2ClientMeter before gRPC
// sees it, and closes the connection when Feed fails.
//
// What is metered, each by a token bucket (a burst, refilled at a rate):
//   new streams      HEADERS that open a stream (headroom-nri opens one per report);
//   resets           RST_STREAM from the client (a report past its deadline sends one);
//   control frames   PING and SETTINGS that are not acknowledgements, PRIORITY, and empty
//                    DATA frames that do not end their stream (the other HTTP/2 floods).
// A header block (HEADERS and its CONTINUATIONs) longer than a bound, a CONTINUATION that
// continues nothing, or a connection that does not start with the HTTP/2 preface, fails too.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace headroom::extender {

// A token bucket: `burst` events at once, then `per_second` on average.
class TokenBucket {
 public:
  TokenBucket(double burst, double per_second) : burst_(burst), rate_(per_second), tokens_(burst) {}
  // Takes one token at `now`; false when none is left.
  bool Take(absl::Time now);

 private:
  double burst_;
  double rate_;
  double tokens_;
  absl::Time last_ = absl::InfinitePast();
};

struct H2Limits {
  // headroom-nri reports once per --interval (60 s by default); a burst covers retries and
  // a few clients sharing a connection's address.
  double stream_burst = 32;
  double streams_per_second = 4;
  double reset_burst = 16;
  double resets_per_second = 1;
  double control_burst = 64;
  double control_per_second = 16;
  uint32_t max_header_block_bytes = 64 << 10;
};

class H2ClientMeter {
 public:
  explicit H2ClientMeter(const H2Limits& limits = {});

  // Reads the next bytes the client sent, at `now`. OK: forward them. ResourceExhausted or
  // InvalidArgument, saying why: close the connection (and forward nothing more). Once it
  // has failed, every later call fails the same way.
  absl::Status Feed(absl::string_view bytes, absl::Time now);

  // Whether the client has sent the whole connection preface.
  bool preface_complete() const { return preface_seen_ == 24; }
  uint64_t streams_opened() const { return streams_opened_; }
  uint64_t frames() const { return frames_; }

 private:
  absl::Status OnFrame(absl::Time now);

  H2Limits limits_;
  TokenBucket streams_;
  TokenBucket resets_;
  TokenBucket control_;
  size_t preface_seen_ = 0;       // bytes of the 24-byte preface matched so far
  unsigned char header_[9] = {};  // the frame header being read
  size_t header_seen_ = 0;
  uint64_t payload_left_ = 0;  // bytes of the current frame's payload still to skip
  uint32_t last_stream_ = 0;   // the highest stream a HEADERS opened
  bool in_header_block_ = false;
  uint64_t header_block_bytes_ = 0;
  uint64_t streams_opened_ = 0;
  uint64_t frames_ = 0;
  absl::Status failed_;
};

}  // namespace headroom::extender
