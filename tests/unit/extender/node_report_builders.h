#pragma once

// Node reports for the extender's unit tests: a pod with trusted statistics, a node of 4 CPUs
// and 8 GiB reported 10 s before kNow.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "shared/node_report.h"

namespace headroom::extender::test_reports {

inline constexpr int64_t kGi = 1LL << 30;
inline constexpr int64_t kMi = 1LL << 20;
inline const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

inline ReportedPod Pod(std::string name, int64_t cpu_base, int64_t cpu_peak, int64_t memory_base,
                       int64_t memory_peak, std::string workload = "") {
  ReportedPod pod;
  pod.pod_namespace = "ns";
  pod.name = std::move(name);
  pod.uid = pod.name + "-uid";
  pod.workload_key = std::move(workload);
  // Observed for longer than the warm-up, so the statistics are trusted.
  pod.containers.push_back({"c", CpuStats{cpu_base, cpu_peak},
                            MemoryStats{memory_base, memory_peak, memory_peak, 0},
                            absl::Hours(30)});
  return pod;
}

inline NodeReport Report(std::string node, std::vector<ReportedPod> pods, double load1 = 0.5) {
  NodeReport report;
  report.node = std::move(node);
  report.reported_at = kNow - absl::Seconds(10);
  report.allocatable = {4000, 8 * kGi};
  report.load1 = load1;
  report.cpus = 4;
  report.pods = std::move(pods);
  return report;
}

}  // namespace headroom::extender::test_reports
