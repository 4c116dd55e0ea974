#include "sim/cronjobs.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "sim/random.h"

namespace headroom::sim {
namespace {

constexpr int kMinutesPerDay = 24 * 60;
constexpr int kShortestRunMinutes = 30;
constexpr int kLongestRunMinutes = 180;

// The pod's series with everything outside [first, end) steps set to 0.
std::vector<int64_t> Slice(const std::vector<int64_t>& series, size_t first, size_t end) {
  std::vector<int64_t> run(series.size(), 0);
  for (size_t s = first; s < end && s < series.size(); ++s) run[s] = series[s];
  return run;
}

}  // namespace

CronJobRuns MakeCronJobs(const std::vector<PodSpec>& pods, const UsageTraces& usage,
                         const CronJobScenario& scenario, uint64_t seed) {
  CronJobRuns out;
  out.usage.minutes = usage.minutes;
  out.usage.step_minutes = usage.step_minutes;
  Rng rng(seed ^ 0xc40b5ULL);
  std::vector<size_t> chosen;
  for (size_t p = 0; p < pods.size(); ++p) {
    if (scenario.fraction > 0 && rng.Uniform(0, 1) < scenario.fraction) {
      chosen.push_back(p);
      continue;
    }
    out.pods.push_back(pods[p]);
    out.usage.cpu_millis.push_back(usage.cpu_millis[p]);
    out.usage.memory_bytes.push_back(usage.memory_bytes[p]);
  }
  const int step = std::max(1, usage.step_minutes);
  for (size_t p : chosen) {
    const PodSpec& pod = pods[p];
    const int at = static_cast<int>(rng.UniformInt(0, kMinutesPerDay / step - 1)) * step;
    const int length =
        static_cast<int>(rng.UniformInt(kShortestRunMinutes / step, kLongestRunMinutes / step)) *
        step;
    ++out.cronjobs;
    for (int day = 0; day * kMinutesPerDay + at < usage.minutes; ++day) {
      PodSpec run = pod;
      run.name = absl::StrCat(pod.name, "-run", day);
      run.workload = scenario.grouped ? absl::StrCat(pod.name, "-cronjob") : run.name;
      run.start_minute = day * kMinutesPerDay + at;
      run.ramp_minutes = 0;
      run.end_minute = std::min(run.start_minute + length, usage.minutes);
      const size_t first = static_cast<size_t>(run.start_minute / step);
      const size_t end = static_cast<size_t>(run.end_minute / step);
      out.usage.cpu_millis.push_back(Slice(usage.cpu_millis[p], first, end));
      out.usage.memory_bytes.push_back(Slice(usage.memory_bytes[p], first, end));
      out.pods.push_back(std::move(run));
      ++out.runs;
    }
  }
  return out;
}

}  // namespace headroom::sim
