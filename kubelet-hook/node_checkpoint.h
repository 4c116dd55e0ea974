#pragma once

// headroom-nri's statistics on disk: <state-dir>/node-stats.json, written atomically
// (io/atomic_file.h) every sampling period and at shutdown, read at start. It keeps what a
// restart must not forget: per workload container the OOM kills (memory at OOM raises the next
// limit for 7 days), the last sized CPU request and the last base/peak snapshot (used until
// fresh samples refill the windows). Format (version 1):
//   {"version": 1, "savedAt": "2026-11-22T08:00:00Z",
//    "workloads": {"ns/Deployment/web#app": {
//        "ooms": [{"atUnixMillis": 1795331119950, "bytes": 67108864}],
//        "sizedCpuMillis": 250,
//        "cpu": {"baseMillis": 100, "peakMillis": 300},
//        "memory": {"baseBytes": 1, "peakBytes": 2, "max7dBytes": 3, "oomBytes": 0}}}}

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kubelet-hook/node_state.h"

namespace headroom::nri {

inline constexpr char kNodeCheckpointFile[] = "node-stats.json";

std::string EncodeNodeCheckpoint(const std::map<std::string, WorkloadRecord>& records,
                                 absl::Time saved_at);
// InvalidArgument naming the field for anything that is not a version-1 checkpoint.
absl::StatusOr<std::map<std::string, WorkloadRecord>> DecodeNodeCheckpoint(absl::string_view text);

absl::Status SaveNodeCheckpoint(const NodeState& state, const std::string& state_dir,
                                absl::Time now);
// The number of workload containers restored; NotFound when there is no checkpoint yet.
absl::StatusOr<size_t> LoadNodeCheckpoint(NodeState& state, const std::string& state_dir);

}  // namespace headroom::nri
