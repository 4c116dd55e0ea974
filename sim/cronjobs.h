#pragma once

// CronJobs in the simulator (`headroom simulate --cronjobs F`, issue 42). A nightly job's pods
// live for an hour and are gone; what a sizer knows about the next run is what it kept of the
// earlier ones. headroom keys every run of a CronJob as one workload ("namespace/CronJob/<name>",
// shared/workload_key.h's CronJobOfJob), so a run is sized at admission from the runs before it.
// A sizer that keys a Job's pods by their Job sees every run as a new workload, with no history:
// each starts as declared.
//
// The scenario turns a seeded `fraction` of the pods into CronJobs. Each runs once a day at one
// minute of the day, for 30 minutes to 3 hours (seeded), from the first day of the simulated
// window to its last; each run is a pod of its own ("<pod>-run<day>") that replays the original
// pod's usage during its minutes, so the runs of one CronJob use what the pod used at those
// hours. With `grouped` the runs are one workload ("<pod>-cronjob"); without, each run is its own.

#include <cstdint>
#include <vector>

#include "sim/trace_data.h"
#include "sim/usage_generator.h"

namespace headroom::sim {

struct CronJobScenario {
  double fraction = 0;  // of the pods, each made a CronJob; 0: none
  bool grouped = true;  // the runs of a CronJob are one workload (headroom's identity)
};

struct CronJobRuns {
  std::vector<PodSpec> pods;
  UsageTraces usage;
  int cronjobs = 0;  // pods made CronJobs
  int runs = 0;      // run pods they became
};

// `pods` and their `usage` with the scenario applied: the pods not chosen as they are, each
// chosen one replaced by its runs (appended after the others). Deterministic for a seed.
CronJobRuns MakeCronJobs(const std::vector<PodSpec>& pods, const UsageTraces& usage,
                         const CronJobScenario& scenario, uint64_t seed);

}  // namespace headroom::sim
