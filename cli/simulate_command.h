#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "sim/memory_qos.h"
#include "sim/sizing_policies.h"

namespace headroom::cli {

struct SimulateOptions {
  std::string data_dir;       // holds openb/pods.csv and genai-memory/series.csv
  std::string pod_list;       // overrides data_dir/openb/pods.csv
  std::string memory_series;  // overrides data_dir/genai-memory/series.csv
  std::string cpu_series;     // optional; replaces the synthetic CPU model
  // A usage trace directory (sim/usage_trace.h); replaces the pod list and the usage model.
  std::string usage_trace;
  int pods = -1;  // sampled from the pod list (0: all; -1: 200, or all of a usage trace)
  absl::Duration duration = absl::Hours(96);
  absl::Duration warmup = absl::Hours(48);
  uint64_t seed = 1;
  int nodes = 0;  // > 0: a fixed cluster of this many nodes, no autoscaling
  std::string node_shape = "96,512Gi";
  double memory_limit_ratio = 1.0;
  // The kubelet's Memory QoS (sim/memory_qos.h); 0: off.
  double memory_throttling_factor = sim::kDefaultMemoryThrottlingFactor;
  std::string policies = "static,vpa,crane,headroom";
  // Every policy's node scoring (shared/placement.h): the cluster's scheduler fills nodes to
  // 75% of their projected footprint, then spreads (docs/simulate.md says why).
  std::string scoring = "target";
  double scoring_target = 0.75;
  // Which autoscaler removes nodes: cluster-autoscaler or karpenter (sim::Autoscaler).
  std::string autoscaler = "cluster-autoscaler";
  std::string output_dir = "build/simulate";
  std::string progress = "auto";  // auto | always | never
  // The headroom policy's knobs: the product's guard-rail and actuation flags.
  sim::HeadroomOptions headroom;
  // Cold-start scenario: this fraction of the pods are new workloads created during the day
  // after the warm-up, which use 5% of their level for their first 2-6 hours, then all of it.
  double cold_start = 0;
  // CronJob scenario (sim/cronjobs.h): this fraction of the pods are CronJobs, whose runs are
  // one workload ("cronjob") or one each ("run").
  double cronjobs = 0;
  std::string cronjob_identity = "cronjob";
  // --pod-annotations: a JSON object of annotations every simulated pod carries ("" none).
  std::string pod_annotations;
  // --disruption-window: the cluster's disruption windows ("" always).
  std::string disruption_window;
};

// Parses --pod-annotations: a JSON object of string values whose keys headroom reads and
// whose values are valid (a typo is an error here: there is no pod to protect from it).
absl::StatusOr<Annotations> ParsePodAnnotations(absl::string_view text);

// The data directory shipped with the sources (data/ in the repository).
std::string DefaultDataDir();

// `headroom simulate`: returns the exit code.
int RunSimulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace headroom::cli
