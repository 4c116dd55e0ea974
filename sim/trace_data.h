#pragma once

// Readers for the simulator's inputs, as pure functions of the file text:
// - pods: Alibaba OpenB pod list shape (name,cpu_milli,memory_mib,num_gpu,...,qos,...,
//   creation_time,...); GPU pods are skipped (headroom sizes CPU and memory only);
// - nodes: OpenB node list shape (sn,cpu_milli,memory_mib,gpu,model);
// - memory series: either the Alibaba GenAI trace shape (value,timestamp_anon,container_ip:
//   one row per sample) or a wide table (minute,<id>,<id>,...); values are fractions of the
//   container's memory limit.
// Errors name the line and column.

#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/resource.h"

namespace headroom::sim {

struct PodSpec {
  std::string name;
  ResourceAmounts requests;  // declared
  std::string qos;           // LS, BE, Burstable, Guaranteed (OpenB)
  // The workload (Deployment) the pod is a replica of: OpenB gives none, so pods created in
  // the same second with the same spec and QoS are taken as replicas of one; else the name.
  std::string workload = {};
  // Cold-start scenario (usage_generator.h): the minute the pod is created (0: at the start),
  // and the minutes over which its usage grows to its full level after that (0: none).
  int start_minute = 0;
  int ramp_minutes = 0;
  // The minute the pod is gone (a usage trace's pod whose rows end; kNeverEnds: it runs on).
  int end_minute = kNeverEnds;

  static constexpr int kNeverEnds = std::numeric_limits<int>::max();
};

struct NodeShape {
  std::string name;
  ResourceAmounts allocatable;
};

struct MemorySeries {
  std::string id;
  std::vector<double> fractions;  // one per minute
};

absl::StatusOr<std::vector<PodSpec>> ParseOpenbPods(absl::string_view text);
absl::StatusOr<std::vector<NodeShape>> ParseOpenbNodes(absl::string_view text);
absl::StatusOr<std::vector<MemorySeries>> ParseMemorySeries(absl::string_view text);

}  // namespace headroom::sim
