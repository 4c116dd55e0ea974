#include "shared/disruption.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace headroom {

std::string EvictionBlockedBy(const DisruptionFacts& facts) {
  if (!facts.verified) return "not in the Kubernetes API";
  if (facts.owner_kind == "DaemonSet") return "DaemonSet pods are never evicted";
  if (facts.mirror) return "a static pod's mirror cannot be evicted";
  if (facts.terminating) return "already terminating";
  if (facts.do_not_disrupt) return "annotated do-not-disrupt";
  if (facts.disabled) return "annotated headroom.dev/disable";
  if (facts.recommend_only) return "mode observe or admission (evictions only in-place)";
  if (!facts.outside_window.empty()) return facts.outside_window;
  if (facts.ranking == EvictionRanking::kNoEviction) return "eviction ranking no-eviction";
  if (facts.allow_disruption) return "";
  constexpr absl::string_view kOptIn = " (opt in with headroom.dev/allow-disruption: \"true\")";
  if (facts.owner_kind.empty()) {
    return absl::StrCat("a pod without a controller would not be recreated", kOptIn);
  }
  if (facts.owner_kind == "StatefulSet") return absl::StrCat("a StatefulSet pod", kOptIn);
  if (facts.workload_pods <= 1) {
    return absl::StrCat("the only replica of its ", facts.owner_kind, kOptIn);
  }
  if (facts.ready && facts.workload_ready <= 1) {
    return absl::StrCat("the last ready replica of its ", facts.owner_kind, " (",
                        facts.workload_pods, " pods, ", facts.workload_ready, " ready)", kOptIn);
  }
  return "";
}

double TokenBucket::Tokens(absl::Time now) const {
  if (tokens_ < 0) return burst_;
  const double hours = std::max(0.0, absl::ToDoubleHours(now - last_));
  return std::min(burst_, tokens_ + hours * per_hour_);
}

bool TokenBucket::Available(absl::Time now) const { return Tokens(now) >= 1; }

bool TokenBucket::TryTake(absl::Time now) {
  const double tokens = Tokens(now);
  tokens_ = tokens;
  last_ = std::max(last_, now);
  if (tokens < 1) return false;
  tokens_ -= 1;
  return true;
}

absl::Status EvictionBudgetConfig::Validate() const {
  if (!(cluster_per_minute > 0) || !(per_node_per_hour > 0)) {
    return absl::InvalidArgumentError("eviction budgets must be positive");
  }
  return absl::OkStatus();
}

EvictionBudget::EvictionBudget(const EvictionBudgetConfig& config)
    : config_(config),
      cluster_(config.cluster_per_minute * 60, std::max(1.0, config.cluster_per_minute)) {}

bool EvictionBudget::TryTake(absl::string_view node, absl::Time now, std::string* why) {
  auto [it, inserted] = nodes_.try_emplace(
      std::string(node),
      TokenBucket(config_.per_node_per_hour, std::max(1.0, config_.per_node_per_hour)), now);
  if (!it->second.first.Available(now)) {
    *why = absl::StrCat("node ", node, " is at its eviction budget (", config_.per_node_per_hour,
                        " an hour)");
    return false;
  }
  if (!cluster_.TryTake(now)) {
    *why = absl::StrCat("the cluster is at its eviction budget (", config_.cluster_per_minute,
                        " a minute)");
    return false;
  }
  it->second.first.TryTake(now);
  it->second.second = now;
  return true;
}

absl::Duration EvictionBudgetConfig::NodeRefill() const {
  return absl::Hours(std::max(1.0, per_node_per_hour) / per_node_per_hour);
}

void EvictionBudget::Forget(absl::Time now) {
  // After its refill time a bucket is as good as new.
  const absl::Duration refill = config_.NodeRefill();
  absl::erase_if(nodes_, [&](const auto& entry) { return now - entry.second.second > refill; });
}

bool SustainedConditions::Observe(absl::string_view node, bool holds, absl::Time now) {
  if (!holds) {
    held_.erase(std::string(node));
    return false;
  }
  auto [it, inserted] = held_.try_emplace(std::string(node), Held{now, now});
  Held& held = it->second;
  // A clock that went back, or a gap longer than the period, starts afresh.
  if (now < held.since || now - held.last_seen > period_) held.since = now;
  held.last_seen = now;
  return now - held.since >= period_;
}

void SustainedConditions::Prune(absl::Time now) {
  absl::erase_if(held_, [&](const auto& entry) { return now - entry.second.last_seen > period_; });
}

}  // namespace headroom
