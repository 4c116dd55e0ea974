#include "shared/oom_policy.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace headroom {

absl::Status OomPolicyConfig::Validate() const {
  if (cooldown < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("OOM cooldown must not be negative");
  }
  return absl::OkStatus();
}

OomDecision OomCooldownTracker::Evaluate(const OomEvent& event, const OomGuards& guards) {
  // Forget instances whose cooldown is over.
  absl::erase_if(last_oom_,
                 [&](const auto& entry) { return event.at - entry.second >= config_.cooldown; });

  const auto key = std::make_pair(event.container_id, event.pod_name);
  if (auto it = last_oom_.find(key); it != last_oom_.end()) {
    return {
        false,
        false,
        {"CooldownActive",
         absl::StrCat("pod ", event.pod_name, " container ", event.container_id, " was OOM-killed ",
                      absl::FormatDuration(event.at - it->second), " ago; ignored within the ",
                      absl::FormatDuration(config_.cooldown), " cooldown")}};
  }
  last_oom_[key] = event.at;

  if (guards.memory_application_disabled) {
    return {true,
            false,
            {"MemoryApplicationDisabled",
             "OOM memory recorded; memory sizing is disabled, so the pod is not evicted"}};
  }
  if (guards.pod_excluded) {
    return {true,
            false,
            {"PodExcluded", absl::StrCat("OOM memory recorded; pod carries ", kExcludeAnnotation,
                                         ", so it is not evicted")}};
  }
  if (guards.workload_disabled) {
    return {true,
            false,
            {"WorkloadDisabled",
             "OOM memory recorded; headroom is disabled for the workload, so the pod is not "
             "evicted"}};
  }
  return {true,
          true,
          {"OomKilled", absl::StrCat("container was OOM-killed at ", event.memory_bytes,
                                     " bytes; evicting so it restarts with a higher memory "
                                     "limit")}};
}

}  // namespace headroom
