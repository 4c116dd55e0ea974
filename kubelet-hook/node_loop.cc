#include "kubelet-hook/node_loop.h"

#include <algorithm>
#include <memory>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "kubelet-hook/node_reporter.h"
#include "kubelet-hook/nri_resources.h"
#include "shared/log_text.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

NodeLoop::NodeLoop(NodeLoopOptions options, NodeLoopParts parts)
    : options_(std::move(options)), parts_(std::move(parts)) {
  if (!parts_.uniform01) {
    parts_.uniform01 = [gen = std::make_shared<absl::BitGen>()] {
      return absl::Uniform<double>(*gen, 0.0, 1.0);
    };
  }
}

NodeLoopCounters NodeLoop::counters() const {
  NodeLoopCounters counters;
  counters.updates_sent = updates_sent_.load();
  counters.updates_failed = updates_failed_.load();
  counters.reports_sent = reports_sent_.load();
  counters.reports_failed = reports_failed_.load();
  counters.reports_retried = reports_retried_.load();
  counters.last_sample_unix = last_sample_unix_.load();
  counters.workloads_forgotten_idle = forgotten_idle_.load();
  counters.workloads_forgotten_budget = forgotten_budget_.load();
  counters.checkpoints_failed = checkpoints_failed_.load();
  counters.last_checkpoint_unix = last_checkpoint_unix_.load();
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
  ForgetWorkloads(now);
  Publish(now, "");
}

void NodeLoop::ForgetWorkloads(absl::Time now) {
  const ForgottenWorkloads forgotten = parts_.state->ForgetWorkloads(now, options_.retention);
  forgotten_idle_ += forgotten.idle;
  forgotten_budget_ += forgotten.over_budget;
  if (forgotten.total() > 0) {
    spdlog::info(
        "nri: forgot the statistics of {} workload containers with no container on the node "
        "({} idle for more than {}, {} beyond the budget's {}); their history stays with the "
        "extender",
        forgotten.total(), forgotten.idle, absl::FormatDuration(options_.retention.idle),
        forgotten.over_budget, options_.retention.max_workloads);
  }
  if (forgotten.live_over_budget > 0) {
    spdlog::warn(
        "nri: {} workload containers beyond the budget's {} are kept because a running "
        "container uses them; raise --memory-budget (and the memory limit)",
        forgotten.live_over_budget, options_.retention.max_workloads);
  }
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
      ++checkpoints_failed_;
      spdlog::error("checkpoint failed: {}", std::string(saved.message()));
    } else {
      last_checkpoint_unix_ = absl::ToUnixSeconds(now);
    }
  }
  SendReport(now, why);
}

void NodeLoop::SendReport(absl::Time now, absl::string_view why) {
  if (parts_.reports == nullptr) return;
  retry_at_.reset();
  const std::optional<double> load1 = parts_.load1 ? parts_.load1() : std::nullopt;
  const headroom::v1::NodeReport report =
      BuildNodeReport(*parts_.state, options_.node_name, options_.allocatable, load1,
                      static_cast<int>(options_.allocatable.cpu_millis / 1000), now);
  absl::StatusOr<headroom::v1::ReportReply> reply =
      parts_.reports->Send(report, options_.report_timeout);
  if (!reply.ok()) {
    ++reports_failed_;
    if (ReportRetryable(reply.status().code())) {
      const absl::Duration delay =
          ReportRetryDelay(options_.report_retry, failed_reports_in_a_row_, parts_.uniform01());
      ++failed_reports_in_a_row_;
      // The next round reports anyway: a retry after it would only add a report.
      if (delay < options_.interval) retry_at_ = now + delay;
      spdlog::warn("{}{}", std::string(reply.status().message()),
                   retry_at_ ? absl::StrCat("; sending again in ", absl::FormatDuration(delay))
                             : std::string("; the next round reports again"));
    } else {
      failed_reports_in_a_row_ = 0;
      spdlog::warn("{}", std::string(reply.status().message()));
    }
    return;
  }
  failed_reports_in_a_row_ = 0;
  ++reports_sent_;
  if (!why.empty()) spdlog::info("reported {} to the extender", std::string(why));
  for (const auto& [key, seconds] : reply->history_seconds()) {
    parts_.state->MergeClusterHistory(key, absl::Seconds(seconds), now);
  }
  parts_.state->SetPodModes(PodModesOf(*reply));
}

std::optional<absl::Time> NodeLoop::report_retry_at() const {
  absl::MutexLock lock(&publish_mu_);
  return retry_at_;
}

void NodeLoop::RetryReport() {
  const absl::Time now = parts_.clock();
  absl::MutexLock lock(&publish_mu_);
  ++reports_retried_;
  SendReport(now, "a report that had failed");
}

void NodeLoop::Run(absl::Notification& stop) {
  std::thread oom_poller([&] {
    while (!stop.WaitForNotificationWithTimeout(options_.oom_poll_interval)) PollOoms();
  });
  // Rounds every interval of real time; a failed report's retry in between, when due.
  absl::Time next_round = absl::Now() + options_.interval;
  while (true) {
    absl::Time wake = next_round;
    std::optional<absl::Time> retry;
    if (const std::optional<absl::Time> at = report_retry_at()) {
      retry = absl::Now() + (*at - parts_.clock());  // the loop's clock may be a test's
      wake = std::min(wake, *retry);
    }
    if (stop.WaitForNotificationWithTimeout(std::max(absl::ZeroDuration(), wake - absl::Now()))) {
      break;
    }
    if (absl::Now() >= next_round) {
      RunRound();
      next_round = absl::Now() + options_.interval;
    } else if (retry && absl::Now() >= *retry) {
      RetryReport();
    }
  }
  oom_poller.join();
}

}  // namespace headroom::nri
