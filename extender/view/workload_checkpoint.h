#pragma once

// The extender's workload statistics on disk, so a restart keeps what the nodes reported:
// <state-dir>/workloads.json, written atomically (io/atomic_file.h): per workload container the
// union of its replicas' statistics. Format (version 1; fields marked * were added later and
// are optional when read):
//   {"version": 1, "savedAt": "2026-11-22T08:00:00Z",
//    "workloads": {"ns/Deployment/web#app": {"historySeconds"*: 90000,
//                  "cpu": {"baseMillis": 100, "peakMillis": 300, "dailyBaseMillis"*: ..,
//                          "dailyPeakMillis"*: ..},
//                  "memory": {"baseBytes": .., "peakBytes": .., "max7dBytes": .., "oomBytes":
//                  .., "dailyBaseBytes"*: .., "dailyPeakBytes"*: ..}}}}

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "extender/view/cluster_view.h"

namespace headroom::extender {

inline constexpr char kWorkloadCheckpointFile[] = "workloads.json";

std::string EncodeWorkloads(const std::map<std::string, ClusterView::ContainerStats>& workloads,
                            absl::Time saved_at);

// InvalidArgument for a file that is not a version-1 checkpoint.
absl::StatusOr<std::map<std::string, ClusterView::ContainerStats>> DecodeWorkloads(
    absl::string_view text);

absl::Status SaveWorkloads(const ClusterView& view, const std::string& state_dir, absl::Time now);

// The number of workload containers loaded; NotFound when there is no checkpoint yet.
absl::StatusOr<size_t> LoadWorkloads(ClusterView& view, const std::string& state_dir);

}  // namespace headroom::extender
