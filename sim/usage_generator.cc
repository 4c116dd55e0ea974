#include "sim/usage_generator.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace headroom::sim {
namespace {

// Replays `series` from `offset`, day after day, scaled to `declared`.
std::vector<int64_t> FromSeries(const MemorySeries& series, int64_t offset, int minutes,
                                int64_t declared) {
  std::vector<int64_t> out(static_cast<size_t>(minutes));
  const size_t length = series.fractions.size();
  for (int m = 0; m < minutes; ++m) {
    const double fraction = series.fractions[(static_cast<size_t>(offset) + m) % length];
    out[static_cast<size_t>(m)] = std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(fraction * static_cast<double>(declared))));
  }
  return out;
}

}  // namespace

std::vector<int64_t> SyntheticCpu(const PodSpec& pod, int minutes, Rng& rng,
                                  const CpuModel& model) {
  const double declared = static_cast<double>(pod.requests.cpu_millis);
  const double level = rng.Uniform(model.level_min, model.level_max);
  const double amplitude = rng.Uniform(model.amplitude_min, model.amplitude_max);
  const double peak_hour =
      model.peak_hour_utc + rng.Uniform(-model.peak_jitter_hours, model.peak_jitter_hours);
  const bool best_effort = pod.qos == "BE";
  const bool runs_jobs =
      rng.Chance(best_effort ? model.job_fraction_best_effort : model.job_fraction_other);
  const int job_period =
      static_cast<int>(rng.UniformInt(model.job_period_min_minutes, model.job_period_max_minutes));
  const int job_minutes =
      static_cast<int>(rng.UniformInt(model.job_minutes_min, model.job_minutes_max));
  const int job_phase = static_cast<int>(rng.UniformInt(0, job_period - 1));
  const double job_level = rng.Uniform(model.job_level_min, model.job_level_max);

  std::vector<int64_t> out(static_cast<size_t>(minutes));
  int burst_left = 0;
  double burst_factor = 1;
  for (int m = 0; m < minutes; ++m) {
    const double hour = std::fmod(m / 60.0, 24.0);
    double demand = declared * level *
                    (1 + amplitude * std::cos(2 * std::numbers::pi * (hour - peak_hour) / 24));
    if (burst_left == 0 && rng.Chance(model.burst_probability)) {
      burst_left = static_cast<int>(rng.UniformInt(1, model.burst_minutes_max));
      burst_factor = rng.Uniform(model.burst_factor_min, model.burst_factor_max);
    }
    if (burst_left > 0) {
      demand *= burst_factor;
      --burst_left;
    }
    if (runs_jobs && (m + job_phase) % job_period < job_minutes) {
      demand = std::max(demand, declared * job_level);
    }
    out[static_cast<size_t>(m)] = std::max<int64_t>(1, std::llround(demand));
  }
  return out;
}

namespace {

// Nothing before the pod exists; 5% of its level over its first ramp_minutes, then all of it.
void ApplyStart(const PodSpec& pod, std::vector<int64_t>& series) {
  const size_t start = static_cast<size_t>(std::max(0, pod.start_minute));
  for (size_t m = 0; m < series.size() && m < start; ++m) series[m] = 0;
  const size_t end = start + static_cast<size_t>(std::max(0, pod.ramp_minutes));
  for (size_t m = start; m < series.size() && m < end; ++m) series[m] /= 20;
}

}  // namespace

UsageTraces GenerateUsage(const std::vector<PodSpec>& pods,
                          const std::vector<MemorySeries>& memory_series,
                          const std::vector<MemorySeries>* cpu_series, int minutes, uint64_t seed,
                          const CpuModel& model) {
  UsageTraces traces;
  traces.minutes = minutes;
  const Rng root(seed);
  for (size_t p = 0; p < pods.size(); ++p) {
    Rng rng = root.Fork(p);
    const MemorySeries& memory = memory_series[static_cast<size_t>(
        rng.UniformInt(0, static_cast<int64_t>(memory_series.size()) - 1))];
    const int64_t memory_offset =
        rng.UniformInt(0, static_cast<int64_t>(memory.fractions.size()) - 1);
    traces.memory_bytes.push_back(
        FromSeries(memory, memory_offset, minutes, pods[p].requests.memory_bytes));
    if (cpu_series != nullptr && !cpu_series->empty()) {
      const MemorySeries& cpu = (*cpu_series)[p % cpu_series->size()];
      traces.cpu_millis.push_back(FromSeries(cpu, 0, minutes, pods[p].requests.cpu_millis));
    } else {
      traces.cpu_millis.push_back(SyntheticCpu(pods[p], minutes, rng, model));
    }
    ApplyStart(pods[p], traces.memory_bytes.back());
    ApplyStart(pods[p], traces.cpu_millis.back());
  }
  return traces;
}

}  // namespace headroom::sim
