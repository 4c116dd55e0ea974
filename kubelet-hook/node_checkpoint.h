#pragma once

// headroom-nri's statistics on disk: <state-dir>/node-stats.json, written atomically
// (io/atomic_file.h) every sampling period and at shutdown, read at start. It keeps what a
// restart must not forget: per workload container when it was first observed (the guard
// rails' warm-up), the OOM kills (memory at OOM raises the next limit for 7 days), the last
// sized CPU request and the last statistics snapshot (used until fresh samples refill the
// windows); per tracked container what kubelet declared before headroom adjusted it (the
// guard rails' floors). Format (version 1; the fields added later are optional):
//   {"version": 1, "savedAt": "2026-11-22T08:00:00Z",
//    "workloads": {"ns/Deployment/web#app": {
//        "firstSampleUnixMillis": 1795244719950, "lastLiveUnixMillis": 1795331119950,
//        "ooms": [{"atUnixMillis": 1795331119950, "bytes": 67108864}],
//        "sizedCpuMillis": 250,
//        "cpu": {"baseMillis": 100, "peakMillis": 300, "dailyBaseMillis": 150,
//                "dailyPeakMillis": 400},
//        "memory": {"baseBytes": 1, "peakBytes": 2, "max7dBytes": 3, "oomBytes": 0,
//                   "dailyBaseBytes": 1, "dailyPeakBytes": 2}}},
//    "containers": {"<container id>": {"cpuShares": 1024, "cpuQuota": 50000,
//                                       "cpuPeriod": 100000, "memoryLimitBytes": 268435456,
//                                       "lastShrinkUnixMillis": {"cpuRequest": .., "memoryLimit":
//                                       ..}}}}
// Every amount must be a non-negative integer (a negative one is refused, never a 0 limit).

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kubelet-hook/node_state.h"

namespace headroom::nri {

inline constexpr char kNodeCheckpointFile[] = "node-stats.json";

struct NodeCheckpoint {
  std::map<std::string, WorkloadRecord> workloads;
  std::map<std::string, ContainerRecord> containers;  // by container ID
};

std::string EncodeNodeCheckpoint(const NodeCheckpoint& checkpoint, absl::Time saved_at);
// InvalidArgument naming the field for anything that is not a version-1 checkpoint.
absl::StatusOr<NodeCheckpoint> DecodeNodeCheckpoint(absl::string_view text);

// Keeps the `max` workload containers that ran last (by lastLive, else first sample) and drops
// the others: a checkpoint written under a larger budget (or by an older version, which had
// none) must not restore more than this one may hold. How many were dropped.
size_t KeepLastLiveWorkloads(std::map<std::string, WorkloadRecord>& workloads, size_t max);

absl::Status SaveNodeCheckpoint(const NodeState& state, const std::string& state_dir,
                                absl::Time now);
// The number of workload containers restored (at most `max_workloads`, those that ran last);
// NotFound when there is no checkpoint yet.
absl::StatusOr<size_t> LoadNodeCheckpoint(NodeState& state, const std::string& state_dir,
                                          size_t max_workloads);

}  // namespace headroom::nri
