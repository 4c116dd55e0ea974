#pragma once

// A "usage trace": real per-pod usage for `headroom simulate --usage-trace DIR`, in the shape
// of ../shared/data/bitbrains-rnd (docs/simulate.md):
// - workloads.csv: `pod,workload,cpu_request_millicores,memory_request_mib`, one row per pod;
//   pods of one workload are replicas (they declare the same requests);
// - usage.csv(.gz): `pod,minute,cpu_millicores,memory_mib`, sorted by pod then minute; a
//   value holds until the pod's next row. A pod exists from its first row to its last; inside
//   a gap of more than 10 minutes between two rows its usage is 0 (the earlier row holds for
//   the trace's resolution only). Two rows of one pod at the same minute: the later wins.
// Numbers may have decimals; CPU is rounded up to the millicore and memory to the MiB.
// Every bad or inconsistent row is refused with its file and line number.
//
// Replay: minute 0 of the trace is taken as midnight UTC (hours of the day are kept); the
// simulated window starts at the day of the trace's first row. The simulator steps at the
// trace's resolution (5 minutes when every interval is a multiple of 5), where nothing
// changes in between: each step's CPU is the time-weighted mean of its minutes and its memory
// their max, so no core-minute and no memory peak is lost.
//
// More pods than the trace holds (`--pods N`): every pod of the window once, then copies of
// pods drawn at random (seeded), each read a whole number of days later in the trace, so a
// cluster is scaled with real usage and the hours of the day stay aligned. A copy is a
// workload of its own ("<workload>+<days>d"; no pod is copied twice with the same offset).
// When the window leaves no room for an offset, the copy wraps around the trace's whole days
// (a stretch where the source did not run is then a gap: usage 0).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/resource.h"
#include "sim/trace_data.h"
#include "sim/usage_generator.h"

namespace headroom::sim {

// A value in force from `minute` (12 bytes: the Bitbrains trace is 8.3 M rows).
struct TraceSample {
  int32_t minute = 0;
  int32_t cpu_millis = 0;
  int32_t memory_mib = 0;
};

struct TracePod {
  std::string name;
  std::string workload;
  ResourceAmounts requests;          // declared
  std::vector<TraceSample> samples;  // in minute order, one per minute at most
};

struct UsageTrace {
  std::vector<TracePod> pods;  // workloads.csv order; pods without a usage row are left out
  int first_minute = 0;        // the earliest row
  int last_minute = 0;         // the latest row
  int resolution_minutes = 1;  // the most common interval between a pod's rows
  int64_t rows = 0;
};

// Gaps longer than this between two rows of a pod are time the trace did not record.
inline constexpr int kTraceGapMinutes = 10;

// Reads a trace: the workloads first, then every usage line in file order (line 1 is the
// header). Errors carry the file name given and the line number.
class UsageTraceParser {
 public:
  static absl::StatusOr<UsageTraceParser> Create(absl::string_view workloads_csv,
                                                 absl::string_view workloads_name = "workloads.csv",
                                                 absl::string_view usage_name = "usage.csv");

  absl::Status AddUsageLine(absl::string_view line, int64_t line_number);
  // InvalidArgument when no row was read.
  absl::StatusOr<UsageTrace> Finish() &&;

 private:
  UsageTraceParser() = default;
  absl::Status LineError(int64_t line, absl::string_view message) const;

  std::string usage_name_;
  UsageTrace trace_;
  absl::flat_hash_map<std::string, size_t> index_;  // pod name -> trace_.pods
  std::vector<bool> seen_;                          // per pod: its rows have started
  int64_t current_ = -1;                            // pod whose rows are being read
  bool header_read_ = false;
};

// Convenience for tests and small traces: both files' text.
absl::StatusOr<UsageTrace> ParseUsageTrace(absl::string_view workloads_csv,
                                           absl::string_view usage_csv);

// What `headroom simulate` replays: pods with their lifetimes and per-step usage.
struct TraceReplay {
  std::vector<PodSpec> pods;
  UsageTraces usage;
  int copies = 0;               // pods beyond the trace's own (day-offset copies)
  int window_start_minute = 0;  // trace minute of simulated minute 0
};

// The window [day of first row, + `minutes`) of `trace`, with `pods` pods (0: every pod
// present in the window). InvalidArgument when the window is longer than the trace or no pod
// is present in it.
absl::StatusOr<TraceReplay> ReplayTrace(const UsageTrace& trace, int minutes, int pods,
                                        uint64_t seed);

// The simulator's step for a trace of this resolution: 5 minutes when the resolution is a
// multiple of 5 (the policies act every 5 minutes), else 1.
int TraceStepMinutes(int resolution_minutes);

}  // namespace headroom::sim
