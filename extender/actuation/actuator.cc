#include "extender/actuation/actuator.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shared/quantity.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

std::string PodPath(const std::string& pod_namespace, const std::string& name) {
  return absl::StrCat("/api/v1/namespaces/", pod_namespace, "/pods/", name);
}

}  // namespace

bool KillSwitchEngaged(const std::string& file) {
  if (file.empty()) return false;
  std::error_code error;
  return std::filesystem::exists(file, error);
}

json PodEvent(const std::string& pod_namespace, const std::string& name, const std::string& uid,
              const std::string& type, const std::string& reason, const std::string& message,
              absl::Time now) {
  const std::string at = io::FormatKubeTime(now);
  return {{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"generateName", name + ".headroom-"}, {"namespace", pod_namespace}}},
          {"involvedObject",
           {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"namespace", pod_namespace},
            {"name", name},
            {"uid", uid}}},
          {"type", type},
          {"reason", reason},
          {"message", message.substr(0, 1024)},
          {"source", {{"component", "headroom"}}},
          {"reportingComponent", "headroom.dev/extender"},
          {"reportingInstance", "headroom-extender"},
          {"firstTimestamp", at},
          {"lastTimestamp", at},
          {"count", 1}};
}

json ResizePatch(const PlannedResize& resize) {
  const auto requests_of = [](const DeclaredResources& r) {
    json requests = json::object();
    if (r.cpu_request_millis) requests["cpu"] = FormatCpuMillis(*r.cpu_request_millis);
    if (r.memory_request_bytes) requests["memory"] = FormatMemoryBytes(*r.memory_request_bytes);
    return requests;
  };
  json containers = json::array();
  for (const ContainerResize& c : resize.containers) {
    json resources = {{"requests", requests_of(c.after)}};
    if (c.after.memory_limit_bytes) {
      resources["limits"] = {{"memory", FormatMemoryBytes(*c.after.memory_limit_bytes)}};
    }
    containers.push_back({{"name", c.name}, {"resources", resources}});
  }
  json spec = json::object();
  if (!containers.empty()) spec["containers"] = std::move(containers);
  if (resize.pod_level_after.has_value()) {
    // Only the requests move at pod level: its limits stay as they are.
    spec["resources"] = {{"requests", requests_of(*resize.pod_level_after)}};
  }
  return {{"spec", std::move(spec)}};
}

json EvictionBody(const PlannedEviction& eviction) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "Eviction"},
          {"metadata", {{"name", eviction.name}, {"namespace", eviction.pod_namespace}}},
          {"deleteOptions", {{"preconditions", {{"uid", eviction.uid}}}}}};
}

Actuator::Actuator(ClusterView& view, PodIndex& pods, io::KubeClient& kube, Metrics& metrics,
                   Options options, std::shared_ptr<spdlog::logger> logger)
    : view_(view),
      pods_(pods),
      kube_(kube),
      metrics_(metrics),
      options_(std::move(options)),
      logger_(std::move(logger)),
      eviction_budget_(options_.budget),
      cpu_over_(options_.actions.cpu_eviction_after),
      oom_cooldown_(options_.oom) {
  if (options_.state_configmap.has_value()) state_store_.emplace(kube_, *options_.state_configmap);
}

absl::Duration Actuator::EvictionMemory() const {
  // The cluster-wide bucket refills within a minute.
  return std::max(absl::Minutes(1), options_.budget.NodeRefill());
}

void Actuator::LoadState(absl::Time now) {
  absl::StatusOr<ActuatorState> stored = state_store_->Load();
  if (!stored.ok()) {
    logger_->warn(
        "actuator state: cannot read ConfigMap {}: {}; no resize or eviction until it can be read",
        state_store_->name(), std::string(stored.status().message()));
    return;
  }
  MergeShrinkLedger(shrinks_, stored->shrinks);
  recent_evictions_ = MergeEvictions(recent_evictions_, stored->evictions, now - EvictionMemory());
  // The budgets as the evictions of the last hour left them, whoever took them.
  eviction_budget_ = RebuiltEvictionBudget(options_.budget, recent_evictions_);
  state_loaded_ = true;
  logger_->info(
      "actuator state: {} containers' last shrink steps and {} evictions of the last {} read "
      "from ConfigMap {}",
      stored->shrinks.size(), stored->evictions.size(), absl::FormatDuration(EvictionMemory()),
      state_store_->name());
}

void Actuator::SaveState() {
  if (absl::Status saved = state_store_->Save({shrinks_, recent_evictions_}); !saved.ok()) {
    logger_->warn("actuator state: cannot write ConfigMap {}: {}; retried after the next pass",
                  state_store_->name(), std::string(saved.message()));
    return;
  }
  state_dirty_ = false;
  logger_->debug("actuator state: {} shrink entries and {} evictions written to ConfigMap {}",
                 shrinks_.size(), recent_evictions_.size(), state_store_->name());
}

bool Actuator::NamespaceExcluded(const std::string& pod_namespace) const {
  return std::find(options_.excluded_namespaces.begin(), options_.excluded_namespaces.end(),
                   pod_namespace) != options_.excluded_namespaces.end();
}

void Actuator::Journal(const std::string& action, const std::string& outcome,
                       const std::string& pod_namespace, const std::string& name,
                       const std::string& message, absl::Time now) {
  if (options_.journal == nullptr) return;
  std::string workload;
  if (std::optional<ApiPod> pod = pods_.Find(pod_namespace, name); pod.has_value()) {
    workload = WorkloadKeyOf(*pod);
  }
  options_.journal->Record(
      {now, std::move(workload), absl::StrCat(pod_namespace, "/", name), action, outcome, message});
}

bool Actuator::Withheld(const std::string& action, const std::string& what) {
  if (options_.dry_run) {
    logger_->info("dry run: would {} {}", action, what);
    metrics_.CountAction(action, "dry_run");
    return true;
  }
  if (KillSwitchEngaged(options_.kill_switch_file)) {
    logger_->info("kill switch engaged ({}): not {} {}", options_.kill_switch_file, action, what);
    metrics_.CountAction(action, "kill_switch");
    return true;
  }
  return false;
}

void Actuator::RecordEvent(const std::string& pod_namespace, const std::string& name,
                           const std::string& uid, const std::string& type,
                           const std::string& reason, const std::string& message, absl::Time now) {
  absl::StatusOr<io::KubeClient::WriteResult> written =
      kube_.Write("POST", absl::StrCat("/api/v1/namespaces/", pod_namespace, "/events"),
                  PodEvent(pod_namespace, name, uid, type, reason, message, now).dump(),
                  "application/json", absl::Seconds(5));
  if (!written.ok() || written->status >= 300) {
    logger_->warn("event {} on {}/{} not recorded: {}", reason, pod_namespace, name,
                  written.ok() ? io::ApiStatusMessage(written->body)
                               : std::string(written.status().message()));
  }
}

// The backoff doubles at most this many times (16 x the base).
constexpr int kMaxRefusedResizeDoublings = 4;

absl::Duration RefusedResizeBackoff(absl::Duration base, int refusals) {
  const int doublings = std::clamp(refusals - 1, 0, kMaxRefusedResizeDoublings);
  return base * (1 << doublings);
}

bool ResizeRefusal(int http_status) {
  return http_status >= 400 && http_status < 500 && http_status != 404 && http_status != 409;
}

void ForEachSideBySide(size_t count, int concurrency, const std::function<bool()>& stopped,
                       const std::function<void(size_t)>& work) {
  std::atomic<size_t> next{0};
  const auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      if (stopped()) return;
      work(i);
    }
  };
  const size_t threads = std::min(count, static_cast<size_t>(std::max(1, concurrency)));
  std::vector<std::thread> others;
  others.reserve(threads > 0 ? threads - 1 : 0);
  for (size_t t = 1; t < threads; ++t) others.emplace_back(worker);
  worker();
  for (std::thread& other : others) other.join();
}

absl::Duration MaxRoundWriting(absl::Duration interval) {
  return std::max(interval, absl::Seconds(30));
}

bool Actuator::ResizeDue(const PlannedResize& resize, absl::Time now) {
  const std::string what =
      absl::StrCat(resize.pod_namespace, "/", resize.name, ": ", resize.message);
  if (const auto it = refused_resizes_.find(resize.uid);
      it != refused_resizes_.end() && now < it->second.until) {
    metrics_.CountAction("resize", "backoff");
    return false;
  }
  if (Withheld("resize", what)) {
    Journal("resize", options_.dry_run ? "dry_run" : "kill_switch", resize.pod_namespace,
            resize.name, resize.message, now);
    return false;
  }
  return true;
}

bool Actuator::TakeResizeToken(const std::string& node, absl::Time now) {
  auto [limiter, inserted] =
      resize_limiters_.try_emplace(node, options_.resizes_per_node_per_minute * 60,
                                   std::max(1.0, options_.resizes_per_node_per_minute));
  return limiter->second.TryTake(now);
}

absl::StatusOr<io::KubeClient::WriteResult> Actuator::WriteResize(const PlannedResize& resize,
                                                                  absl::Time now) {
  absl::StatusOr<io::KubeClient::WriteResult> written = kube_.Write(
      "PATCH", PodPath(resize.pod_namespace, resize.name) + "/resize", ResizePatch(resize).dump(),
      "application/strategic-merge-patch+json", absl::Seconds(10));
  if (written.ok() && written->status == 200) {
    RecordEvent(resize.pod_namespace, resize.name, resize.uid, "Normal", "Resized", resize.message,
                now);
  }
  return written;
}

void Actuator::ResizeWritten(const PlannedResize& resize,
                             const absl::StatusOr<io::KubeClient::WriteResult>& written,
                             absl::Time now) {
  if (!written.ok()) {
    logger_->warn("resize of {}/{} failed: {}", resize.pod_namespace, resize.name,
                  std::string(written.status().message()));
    metrics_.CountAction("resize", "error");
    return;
  }
  if (written->status != 200) {
    RecordRefusedResize(resize, written->status, io::ApiStatusMessage(written->body), now);
    return;
  }
  refused_resizes_.erase(resize.uid);
  logger_->info("resized {}/{}: {}", resize.pod_namespace, resize.name, resize.message);
  metrics_.CountAction("resize", "applied");
  Journal("resize", "applied", resize.pod_namespace, resize.name, resize.message, now);
  for (const ContainerResize& container : resize.containers) {
    ShrinkTimes& known = shrinks_[ShrinkKey(resize.uid, container.name)];
    if (known != container.last_shrink) state_dirty_ = true;
    known = container.last_shrink;
  }
}

void Actuator::WriteResizes(const std::vector<PlannedResize>& resizes, absl::Time now) {
  enum class Outcome { kNotReached, kRateLimited, kWritten };
  std::vector<Outcome> outcomes(resizes.size(), Outcome::kNotReached);
  std::vector<std::optional<absl::StatusOr<io::KubeClient::WriteResult>>> written(resizes.size());
  // A plan is only as good as the reports it was made from: what is not written by then is
  // planned afresh next round rather than written minutes late.
  const absl::Duration budget = MaxRoundWriting(options_.interval);
  const absl::Time deadline = absl::Now() + budget;
  // A node's rate is spent only by the resizes written, not by those left for later.
  absl::Mutex limiters_mu;
  ForEachSideBySide(
      resizes.size(), kResizeWriteConcurrency,
      [this, deadline] { return stop_.HasBeenNotified() || absl::Now() >= deadline; },
      [&](size_t i) {
        {
          absl::MutexLock lock(&limiters_mu);
          if (!TakeResizeToken(resizes[i].node, now)) {
            outcomes[i] = Outcome::kRateLimited;
            return;
          }
        }
        written[i] = WriteResize(resizes[i], now);
        outcomes[i] = Outcome::kWritten;
      });
  size_t left = 0;
  for (size_t i = 0; i < resizes.size(); ++i) {
    switch (outcomes[i]) {
      case Outcome::kWritten:
        ResizeWritten(resizes[i], *written[i], now);
        break;
      case Outcome::kRateLimited:
        logger_->debug("resize of {}/{} deferred: node {} is at its resize rate limit",
                       resizes[i].pod_namespace, resizes[i].name, resizes[i].node);
        metrics_.CountAction("resize", "rate_limited");
        break;
      case Outcome::kNotReached:
        ++left;
        metrics_.CountAction("resize", "deferred");
        break;
    }
  }
  if (left > 0 && !stop_.HasBeenNotified()) {
    logger_->info("actuation round: {} of {} resizes left for the next round (writing took {})",
                  left, resizes.size(), absl::FormatDuration(budget));
  }
}

// The API refused a resize: said once per try (log, metric, journal, Event), and, when a
// retry would meet the same refusal, not tried again for the backoff.
void Actuator::RecordRefusedResize(const PlannedResize& resize, int status,
                                   const std::string& message, absl::Time now) {
  std::string retry = "retried next pass";
  if (ResizeRefusal(status)) {
    RefusedResize& refused = refused_resizes_[resize.uid];
    ++refused.refusals;
    const absl::Duration backoff =
        RefusedResizeBackoff(options_.refused_resize_backoff, refused.refusals);
    refused.until = now + backoff;
    retry = absl::StrCat("not asked again for ", absl::FormatDuration(backoff));
  }
  const std::string detail =
      absl::StrCat("HTTP ", status, ": ", message, " (wanted ", resize.message, "); ", retry);
  logger_->warn("resize of {}/{} refused: {}", resize.pod_namespace, resize.name, detail);
  metrics_.CountAction("resize", "refused");
  Journal("resize", "refused", resize.pod_namespace, resize.name, detail, now);
  RecordEvent(resize.pod_namespace, resize.name, resize.uid, "Warning", "ResizeRefused", detail,
              now);
}

void Actuator::CountEvicted(absl::flat_hash_map<std::string, WorkloadCount>& counts,
                            const std::string& workload, bool ready) {
  if (workload.empty()) return;
  WorkloadCount& count = counts[workload];
  count.pods = std::max(0, count.pods - 1);
  if (ready) count.ready = std::max(0, count.ready - 1);
}

bool Actuator::Evict(const PlannedEviction& eviction, absl::Time now) {
  const std::string what = absl::StrCat(eviction.pod_namespace, "/", eviction.name, " (",
                                        eviction.reason, ": ", eviction.message, ")");
  if (const auto it = blocked_until_.find(eviction.uid);
      it != blocked_until_.end() && now < it->second) {
    metrics_.CountAction("evict", "backoff");
    return false;
  }
  if (Withheld("evict", what)) {
    Journal("evict", options_.dry_run ? "dry_run" : "kill_switch", eviction.pod_namespace,
            eviction.name, absl::StrCat(eviction.reason, ": ", eviction.message), now);
    return true;
  }
  if (std::string why; !eviction_budget_.TryTake(eviction.node, now, &why)) {
    logger_->info("eviction of {}/{} deferred: {}", eviction.pod_namespace, eviction.name, why);
    metrics_.CountAction("evict", "rate_limited");
    return false;
  }
  recent_evictions_.push_back({eviction.node, now});  // a token taken, whatever the answer
  state_dirty_ = true;
  absl::StatusOr<io::KubeClient::WriteResult> written =
      kube_.Write("POST", PodPath(eviction.pod_namespace, eviction.name) + "/eviction",
                  EvictionBody(eviction).dump(), "application/json", absl::Seconds(10));
  if (!written.ok()) {
    logger_->warn("eviction of {}/{} failed: {}", eviction.pod_namespace, eviction.name,
                  std::string(written.status().message()));
    metrics_.CountAction("evict", "error");
    return false;
  }
  const std::string message = io::ApiStatusMessage(written->body);
  if (written->status == 200 || written->status == 201) {
    logger_->info("evicted {}", what);
    metrics_.CountAction("evict", "evicted");
    Journal("evict", "evicted", eviction.pod_namespace, eviction.name,
            absl::StrCat(eviction.reason, ": ", eviction.message), now);
    RecordEvent(eviction.pod_namespace, eviction.name, eviction.uid, "Normal", "Evicted",
                absl::StrCat(eviction.reason, ": ", eviction.message), now);
    return true;
  }
  if (written->status == 404) {
    metrics_.CountAction("evict", "gone");
    return true;
  }
  // 429: a PodDisruptionBudget allows no disruption now. Never forced; tried again later.
  blocked_until_[eviction.uid] = now + options_.blocked_eviction_backoff;
  const bool by_budget = written->status == 429;
  logger_->warn("eviction of {} {} (HTTP {}): {}; not forced, retried after {}", what,
                by_budget ? "blocked by a disruption budget" : "refused", written->status, message,
                absl::FormatDuration(options_.blocked_eviction_backoff));
  metrics_.CountAction("evict", by_budget ? "blocked" : "refused");
  Journal("evict", by_budget ? "blocked" : "refused", eviction.pod_namespace, eviction.name,
          absl::StrCat(eviction.reason, ": ", eviction.message, "; HTTP ", written->status, ": ",
                       message),
          now);
  RecordEvent(eviction.pod_namespace, eviction.name, eviction.uid, "Warning", "EvictionBlocked",
              absl::StrCat(eviction.reason, ": ", eviction.message, "; the API refused (HTTP ",
                           written->status, "): ", message, "; not forced"),
              now);
  return false;
}

void Actuator::HandleOomKills(absl::Time now,
                              absl::flat_hash_map<std::string, WorkloadCount>& counts) {
  for (const ApiPod& pod : pods_.WithOomKills()) {
    if (NamespaceExcluded(pod.pod_namespace)) continue;
    for (const OomKill& kill : pod.oom_kills) {
      const std::string id =
          kill.container_id.empty()
              ? absl::StrCat(pod.uid, "/", kill.container, "@", absl::FormatTime(kill.finished_at))
              : kill.container_id;
      if (!handled_oom_kills_.insert(id).second) continue;
      if (kill.finished_at < started_ - options_.oom_lookback) continue;  // before our time
      const std::string controller = ControllerKey(pod);
      const WorkloadCount count = CountOf(counts, pod);
      const WorkloadPolicy policy = PolicyOf(pod, count, options_.defaults, options_.layers);
      const OomDecision decision = oom_cooldown_.Evaluate(
          {absl::StrCat(pod.uid, "/", kill.container), pod.name, kill.finished_at, 0},
          {!options_.oom_evict, policy.excluded, policy.disabled || policy.recommend_only});
      if (!decision.evict) {
        logger_->info("OOM kill of {}/{} container {}: no eviction ({})", pod.pod_namespace,
                      pod.name, kill.container, decision.reason.message);
        metrics_.CountAction("evict", "oom_skipped");
        continue;
      }
      if (std::string why = EvictionBlockedBy(pod, count, now, policy); !why.empty()) {
        logger_->info("OOM kill of {}/{} container {}: no eviction ({})", pod.pod_namespace,
                      pod.name, kill.container, why);
        metrics_.CountAction("evict", "oom_skipped");
        continue;
      }
      if (Evict({pod.pod_namespace, pod.name, pod.uid, pod.node, "OOMKilled",
                 absl::StrCat("container ", kill.container, " was OOM-killed at ",
                              io::FormatKubeTime(kill.finished_at),
                              "; evicted so that it is recreated with the memory limit set from "
                              "the memory at OOM"),
                 controller, pod.ready},
                now)) {
        CountEvicted(counts, controller, pod.ready);
      }
    }
  }
}

void Actuator::RunOnce(absl::Time now) {
  if (KillSwitchEngaged(options_.kill_switch_file) != kill_switch_logged_) {
    kill_switch_logged_ = !kill_switch_logged_;
    logger_->warn("kill switch {} ({})",
                  kill_switch_logged_ ? "engaged: no changes are made" : "released: changes resume",
                  options_.kill_switch_file);
  }
  if (!StateKnown()) LoadState(now);
  if (!StateKnown()) {
    // Without it a restart (or a crash loop) would start with full budgets and no shrink
    // steps taken: act on nothing until it can be read.
    metrics_.CountAction("resize", "state_unknown");
    metrics_.CountAction("evict", "state_unknown");
    return;
  }
  ApiView api;
  api.find = [this](const ReportedPod& reported) -> std::shared_ptr<const ApiPod> {
    if (NamespaceExcluded(reported.pod_namespace)) return nullptr;
    return pods_.Get(reported.pod_namespace, reported.name);
  };
  api.counts = pods_.WorkloadCounts();
  api.ledger = &shrinks_;
  api.defaults = options_.defaults;
  api.layers = options_.layers;
  api.hpa_for = options_.hpa_for;
  api.hpa_mode = options_.hpa_mode;
  api.pod_level_resize = options_.pod_level_resize;
  const absl::Time round_started = absl::Now();
  absl::Duration writing;  // of the round: the API writes (resizes, evictions, their Events)
  size_t planned_resizes = 0, planned_evictions = 0;
  const std::vector<ClusterView::SharedReport> reports = view_.FreshReports(now);
  std::vector<PlannedResize> due_resizes;
  for (const ClusterView::SharedReport& shared : reports) {
    const NodeReport& report = *shared;
    // A stop ends the round between nodes (and between writes, below): a round of thousands
    // of API writes must not hold the daemon past its termination grace period.
    if (stop_.HasBeenNotified()) break;
    NodePlan plan = PlanNode(report, api, options_.actions, cpu_over_, now);
    planned_resizes += plan.resizes.size();
    planned_evictions += plan.evictions.size();
    for (const SkippedAction& skipped : plan.skipped) {
      logger_->debug("{} {}: skipped: {}", skipped.action, skipped.pod, skipped.why);
    }
    // A node that cannot be brought to fit within the disruption policy: said once per change.
    const std::string shortfall = absl::StrJoin(plan.shortfalls, "; ");
    if (std::string& last = shortfalls_[report.node]; last != shortfall) {
      if (!shortfall.empty()) logger_->info("node {}: {}", report.node, shortfall);
      last = shortfall;
    }
    // The node's resizes are written with every other node's after the loop, side by side;
    // its evictions now, for the next nodes' plans count the replicas they leave.
    for (PlannedResize& resize : plan.resizes) {
      if (ResizeDue(resize, now)) due_resizes.push_back(std::move(resize));
    }
    const absl::Time writes_started = absl::Now();
    for (const PlannedEviction& eviction : plan.evictions) {
      if (stop_.HasBeenNotified()) break;
      // The next nodes' plans and the OOM flow count one replica fewer.
      if (Evict(eviction, now)) CountEvicted(api.counts, eviction.workload, eviction.ready);
    }
    writing += absl::Now() - writes_started;
  }
  {
    const absl::Time writes_started = absl::Now();
    WriteResizes(due_resizes, now);
    writing += absl::Now() - writes_started;
  }
  HandleOomKills(now, api.counts);
  // Forget what no longer matters, so the maps stay bounded.
  absl::erase_if(blocked_until_, [&](const auto& entry) { return entry.second < now; });
  // A refusal is remembered for as long as the longest backoff after it, so that a pod
  // refused again soon after its backoff ends waits longer; then forgotten.
  absl::erase_if(refused_resizes_, [&](const auto& entry) {
    return entry.second.until + RefusedResizeBackoff(options_.refused_resize_backoff,
                                                     kMaxRefusedResizeDoublings + 1) <
           now;
  });
  if (handled_oom_kills_.size() > 100000) handled_oom_kills_.clear();
  const absl::Duration interval = options_.actions.guard.shrink_interval;
  absl::erase_if(shrinks_, [&](const auto& entry) {
    const ShrinkTimes& t = entry.second;
    for (const std::optional<absl::Time>& at : {t.cpu_request, t.memory_request, t.memory_limit}) {
      if (at.has_value() && now - *at < interval) return false;
    }
    return true;  // no step bound left to enforce
  });
  std::erase_if(recent_evictions_, [&](const RecordedEviction& eviction) {
    return now - eviction.at > EvictionMemory();
  });
  if (state_dirty_ && state_store_.has_value()) SaveState();
  eviction_budget_.Forget(now);
  cpu_over_.Prune(now);
  // (A set of this round's nodes: comparing each remembered node with every report was
  // quadratic, 25 M string comparisons a round at 5000 nodes.)
  absl::flat_hash_set<absl::string_view> planned_nodes;
  planned_nodes.reserve(reports.size());
  for (const ClusterView::SharedReport& report : reports) planned_nodes.insert(report->node);
  absl::erase_if(shortfalls_,
                 [&](const auto& entry) { return !planned_nodes.contains(entry.first); });
  const absl::Duration took = absl::Now() - round_started;
  metrics_.CountRound(took, writing, reports.size());
  // Every round that changes something, or that takes a noticeable share of the interval, is
  // said; the others only at debug.
  const bool notable = planned_resizes + planned_evictions > 0 || took >= absl::Seconds(1);
  logger_->log(notable ? spdlog::level::info : spdlog::level::debug,
               "actuation round: {} nodes in {} ms ({} ms planning, {} ms writing to the API): "
               "{} resizes, {} evictions planned",
               reports.size(), absl::ToInt64Milliseconds(took),
               absl::ToInt64Milliseconds(took - writing), absl::ToInt64Milliseconds(writing),
               planned_resizes, planned_evictions);
}

void Actuator::Run() {
  while (!stop_.HasBeenNotified()) {
    if (!options_.may_act || options_.may_act()) {
      RunOnce(absl::Now());
    } else {
      state_loaded_ = false;  // the leader writes it: read it again on taking over
    }
    stop_.WaitForNotificationWithTimeout(options_.interval);
  }
}

}  // namespace headroom::extender
