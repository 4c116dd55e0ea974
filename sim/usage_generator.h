#pragma once

// Per-pod, per-minute usage for the simulator.
// - Memory: a real series (fraction of the limit) chosen per pod, started at a random minute
//   and repeated day after day, times the pod's declared memory.
// - CPU: from a series file in the same shape when given (fraction of the declared CPU), or
//   from the synthetic model below, since no public per-container CPU series at minute
//   resolution exists:
//     demand = declared x level x (1 + amplitude x cos(2 pi (hour - peak hour) / 24))
//   with level ~ U(5%, 35%) and amplitude ~ U(0.2, 0.6); the peak hour is shared by the whole
//   cluster (14:00 UTC +- 2 h jitter), so pods' daily peaks are correlated, which is the hard
//   case for sharing headroom. On top: bursts (per minute 0.2% chance, 2-4x for 1-10 minutes)
//   and, for half of the best-effort pods and a tenth of the others, periodic jobs (every
//   2-6 h for 10-30 minutes at 60-100% of the declared CPU).
// A pod created later (PodSpec::start_minute) uses nothing before; over its first
// `ramp_minutes` it uses 5% of the level above, then all of it at once (a JVM that sizes its
// heap on first load, a cache filled on first use: the cold-start scenario).
// Everything is drawn from a seeded generator with one stream per pod: the same seed and
// inputs give the same usage.

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/random.h"
#include "sim/trace_data.h"

namespace headroom::sim {

struct CpuModel {
  double level_min = 0.05;
  double level_max = 0.35;
  double amplitude_min = 0.2;
  double amplitude_max = 0.6;
  double peak_hour_utc = 14;
  double peak_jitter_hours = 2;
  double burst_probability = 0.002;
  double burst_factor_min = 2;
  double burst_factor_max = 4;
  int burst_minutes_max = 10;
  double job_fraction_best_effort = 0.5;
  double job_fraction_other = 0.1;
  int job_period_min_minutes = 120;
  int job_period_max_minutes = 360;
  int job_minutes_min = 10;
  int job_minutes_max = 30;
  double job_level_min = 0.6;
  double job_level_max = 1.0;
};

// Usage per pod and step: a step is `step_minutes` minutes in which nothing changes (1 for
// the synthetic model; a usage trace's resolution, usage_trace.h). Zero outside a pod's life.
struct UsageTraces {
  int minutes = 0;
  int step_minutes = 1;
  std::vector<std::vector<int64_t>> cpu_millis;    // [pod][step], demand (mean over the step)
  std::vector<std::vector<int64_t>> memory_bytes;  // [pod][step] (max over the step)

  int steps() const { return minutes / step_minutes; }
};

// `cpu_series`, when set, replaces the synthetic CPU model (fractions of declared CPU).
UsageTraces GenerateUsage(const std::vector<PodSpec>& pods,
                          const std::vector<MemorySeries>& memory_series,
                          const std::vector<MemorySeries>* cpu_series, int minutes, uint64_t seed,
                          const CpuModel& model = {});

// The synthetic CPU demand of one pod (exposed for tests).
std::vector<int64_t> SyntheticCpu(const PodSpec& pod, int minutes, Rng& rng, const CpuModel& model);

}  // namespace headroom::sim
