#include "kubelet-hook/node_loop.h"

#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "kubelet-hook/node_reporter.h"
#include "kubelet-hook/nri_resources.h"
#include "shared/log_text.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

NodeLoop::NodeLoop(NodeLoopOptions options, NodeLoopParts parts)
    : options_(std::move(options)), parts_(std::move(parts)) {}

NodeLoopCounters NodeLoop::counters() const {
  NodeLoopCounters counters;
  counters.updates_sent = updates_sent_.load();
  counters.updates_failed = updates_failed_.load();
  counters.reports_sent = reports_sent_.load();
  counters.reports_failed = reports_failed_.load();
  counters.last_sample_unix = last_sample_unix_.load();
  return counters;
}

void NodeLoop::RunRound() {
  const absl::Time now = parts_.clock();
  parts_.sampler->Sample(now);
  const OptimizeOutcome outcome = parts_.sampler->Optimize(now);
  last_sample_unix_ = absl::ToUnixSeconds(now);
  for (const std::string& candidate : outcome.eviction_candidates) {
    spdlog::warn("nri: node over capacity, eviction recommended for {}", candidate);
  }
  if (outcome.updates.update_size() > 0) ApplyUpdates(outcome);
  Publish(now, "");
}

void NodeLoop::ApplyUpdates(const OptimizeOutcome& outcome) {
  const int count = outcome.updates.update_size();
  absl::StatusOr<napi::UpdateContainersResponse> sent =
      parts_.runtime->UpdateContainers(outcome.updates, options_.runtime_timeout);
  if (!sent.ok()) {
    updates_failed_ += count;
    spdlog::warn("nri: UpdateContainers: {}", LogText(sent.status().message()));
    return;
  }
  absl::flat_hash_set<std::string> refused;
  for (const auto& failed : sent->failed()) refused.insert(failed.container_id());
  for (size_t i = 0; i < outcome.changes.size() && i < static_cast<size_t>(count); ++i) {
    const OptimizeOutcome::Change& change = outcome.changes[i];
    if (refused.contains(change.container_id)) {
      ++updates_failed_;
      spdlog::warn("nri: periodic update refused by the runtime: {}", change.description);
      continue;
    }
    ++updates_sent_;
    spdlog::info("nri: periodic update {}", change.description);
    const napi::LinuxResources& applied =
        outcome.updates.update(static_cast<int>(i)).linux().resources();
    parts_.state->Mutate(change.container_id, [&](TrackedContainer& c) {
      c.current = WithResources(c.current, applied);
      c.last_shrink = change.plan.last_shrink;
    });
  }
  spdlog::info("nri: updated {} containers ({} refused)", count, refused.size());
}

int NodeLoop::PollOoms() {
  const absl::Time now = parts_.clock();
  const int recorded = parts_.sampler->PollOoms(now);
  if (recorded > 0) Publish(now, "the OOM kill at once");
  return recorded;
}

void NodeLoop::Publish(absl::Time now, absl::string_view why) {
  absl::MutexLock lock(&publish_mu_);
  if (parts_.checkpoint) {
    if (absl::Status saved = parts_.checkpoint(now); !saved.ok()) {
      spdlog::error("checkpoint failed: {}", std::string(saved.message()));
    }
  }
  if (parts_.reports == nullptr) return;
  const std::optional<double> load1 = parts_.load1 ? parts_.load1() : std::nullopt;
  const headroom::v1::NodeReport report =
      BuildNodeReport(*parts_.state, options_.node_name, options_.allocatable, load1,
                      static_cast<int>(options_.allocatable.cpu_millis / 1000), now);
  absl::StatusOr<headroom::v1::ReportReply> reply =
      parts_.reports->Send(report, options_.report_timeout);
  if (!reply.ok()) {
    ++reports_failed_;
    spdlog::warn("{}", std::string(reply.status().message()));
    return;
  }
  ++reports_sent_;
  if (!why.empty()) spdlog::info("reported {} to the extender", std::string(why));
  for (const auto& [key, seconds] : reply->history_seconds()) {
    parts_.state->MergeClusterHistory(key, absl::Seconds(seconds), now);
  }
}

void NodeLoop::Run(absl::Notification& stop) {
  std::thread oom_poller([&] {
    while (!stop.WaitForNotificationWithTimeout(options_.oom_poll_interval)) PollOoms();
  });
  while (!stop.WaitForNotificationWithTimeout(options_.interval)) RunRound();
  oom_poller.join();
}

}  // namespace headroom::nri
