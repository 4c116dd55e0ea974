#pragma once

// The actuator: every --actuation-interval it plans each freshly reported node
// (actuation_plan.h: the shared plan with its guard rails and disruption policy) and carries
// the plan out through the Kubernetes API:
// - resizes with PATCH pods/<name>/resize (strategic merge; Kubernetes 1.33+), at most
//   `resizes_per_node_per_minute` per node; after each, it remembers when each value shrank
//   (the guard rails' step bound), also in the state ConfigMap (actuator_state.h) with the
//   eviction budgets' tokens, so neither a restart nor a new leader forgets them;
// - a resize the API refuses (a 4xx other than 404 and 409: from Kubernetes 1.36 a resize
//   beyond the node's capacity is rejected at admission instead of marked Infeasible; an
//   admission policy may refuse one too) is not asked again for `refused_resize_backoff`,
//   doubled with each further refusal of the same pod up to 16 times (RefusedResizeBackoff):
//   one ResizeRefused Event per try, not one per pass;
// - evictions only with POST pods/<name>/eviction, so PodDisruptionBudgets hold: a 429 from
//   the API is recorded (EvictionBlocked) and the pod is not tried again for
//   `blocked_eviction_backoff`; headroom never deletes a pod itself. Within the eviction
//   budgets (shared/disruption.h: per node and cluster-wide);
// - the OOM flow of seed 000: a container status showing OOMKilled leads to an eviction
//   (so the pod is recreated and sized by the webhook with the memory at OOM), subject to
//   the cooldown per pod instance and container, the exclusion annotation, disable and the
//   disruption policy (never the last ready replica, a StatefulSet or a single-replica pod
//   without the opt-in).
// Every change is recorded as an Event on the pod with the numbers behind it. In dry run, or
// while the kill switch file exists, nothing is written to the API (decisions are logged
// and counted as dry_run / kill_switch).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "extender/actuation/actuation_metrics.h"
#include "extender/actuation/actuation_plan.h"
#include "extender/actuation/actuator_state.h"
#include "extender/kube/pod_index.h"
#include "extender/serving/metrics.h"
#include "extender/view/action_journal.h"
#include "extender/view/cluster_view.h"
#include "io/kube_client.h"
#include "shared/disruption.h"
#include "shared/oom_policy.h"
#include "spdlog/logger.h"

namespace headroom::extender {

// Whether the kill switch `file` exists ("" : there is none). Checked on every decision, by
// the actuator and by the admission webhook.
bool KillSwitchEngaged(const std::string& file);

// The core/v1 Event headroom writes on a pod.
nlohmann::json PodEvent(const std::string& pod_namespace, const std::string& name,
                        const std::string& uid, const std::string& type, const std::string& reason,
                        const std::string& message, absl::Time now);
// How long a pod is not resized after the API refused it `refusals` times in a row (1: the
// first): `base`, doubled with each further refusal, at most 16 x `base`.
absl::Duration RefusedResizeBackoff(absl::Duration base, int refusals);
// Whether an API answer to pods/resize refuses it for reasons a retry next pass would meet
// again: a 4xx other than 404 (the pod is gone) and 409 (it changed under us).
bool ResizeRefusal(int http_status);

// Runs `work(i)` for every i in [0, count), at most `concurrency` at a time (on this thread
// and concurrency - 1 others), each exactly once unless `stopped()` -- asked before each --
// says to stop; returns when every started one has finished.
void ForEachSideBySide(size_t count, int concurrency, const std::function<bool()>& stopped,
                       const std::function<void(size_t)>& work);

// A round's resizes are written to the API this many at a time: each write waits for an
// answer (tens of ms on a busy API server), so one after another a fleet's first sizing took
// minutes. As many as the Kubernetes client keeps connections for (io/kube_client.h).
inline constexpr int kResizeWriteConcurrency = 4;
// How long a round writes resizes: the actuation interval, at least 30 s. The ones not
// written by then are planned afresh next round (counted as outcome "deferred").
absl::Duration MaxRoundWriting(absl::Duration interval);

// The strategic merge patch of pods/resize for `resize`.
nlohmann::json ResizePatch(const PlannedResize& resize);
// The policy/v1 Eviction body (with a UID precondition: never evict a namesake).
nlohmann::json EvictionBody(const PlannedEviction& eviction);

class Actuator {
 public:
  struct Options {
    bool dry_run = false;
    std::string kill_switch_file;  // "" : none
    absl::Duration interval = absl::Seconds(30);
    double resizes_per_node_per_minute = 10;
    EvictionBudgetConfig budget;
    absl::Duration blocked_eviction_backoff = absl::Minutes(5);
    absl::Duration refused_resize_backoff = absl::Minutes(10);
    bool oom_evict = true;
    // OOM kills that finished longer ago than this before start-up are history, not events.
    absl::Duration oom_lookback = absl::Minutes(10);
    OomPolicyConfig oom;
    ActionConfig actions;     // guard rails, resize threshold, CPU eviction delay
    PolicyDefaults defaults;  // allow_below_declared, step: the cluster-wide defaults
    // The owners' and Namespaces' annotations (the policy's middle layers); null: none.
    PolicyLayers layers;
    // The HPAs of a workload and what to do about them (shared/hpa.h); unset: none known.
    std::function<std::optional<HpaScaling>(const std::string& workload_key)> hpa_for;
    HpaResourcesMode hpa_mode = HpaResourcesMode::kKeep;
    // The cluster resizes pod-level resources in place (its release, codec/kube_version.h).
    bool pod_level_resize = false;
    // Pods in these namespaces are never resized or evicted (e.g. kube-system).
    std::vector<std::string> excluded_namespaces;
    // Checked before every pass: false skips it (another replica holds the leader Lease).
    // nullptr: always act.
    std::function<bool()> may_act;
    // Where each action and its outcome are recorded for the status page; nullptr: nowhere.
    ActionJournal* journal = nullptr;
    // The ConfigMap that also holds the shrink ledger and the recent evictions
    // (actuator_state.h); unset: in memory only.
    std::optional<ConfigMapName> state_configmap;
  };

  Actuator(ClusterView& view, PodIndex& pods, io::KubeClient& kube, Metrics& metrics,
           Options options, std::shared_ptr<spdlog::logger> logger);

  // One pass over the fresh reports and the OOM kills.
  void RunOnce(absl::Time now);
  // RunOnce every interval until Stop().
  void Run();
  void Stop() { stop_.Notify(); }

 private:
  bool NamespaceExcluded(const std::string& pod_namespace) const;
  // Records an action's outcome in options_.journal, under the pod's workload.
  void Journal(const std::string& action, const std::string& outcome,
               const std::string& pod_namespace, const std::string& name,
               const std::string& message, absl::Time now);
  // Whether `resize` is to be written: not while the API's last refusal backs it off, nor
  // in dry run or under the kill switch (recorded as such).
  bool ResizeDue(const PlannedResize& resize, absl::Time now);
  // A token of `node`'s resize rate (resizes_per_node_per_minute), if one is left.
  bool TakeResizeToken(const std::string& node, absl::Time now);
  // The PATCH of pods/resize and, when applied, its Event. Touches no actuator state, so
  // that a round's writes run side by side.
  absl::StatusOr<io::KubeClient::WriteResult> WriteResize(const PlannedResize& resize,
                                                          absl::Time now);
  // The API's answer recorded: metrics, journal, the shrink steps, a refusal's backoff.
  void ResizeWritten(const PlannedResize& resize,
                     const absl::StatusOr<io::KubeClient::WriteResult>& written, absl::Time now);
  // Writes `resizes` kResizeWriteConcurrency at a time (none after Stop or past
  // MaxRoundWriting; each within its node's rate), then records each answer, in order, on
  // this thread.
  void WriteResizes(const std::vector<PlannedResize>& resizes, absl::Time now);
  void RecordRefusedResize(const PlannedResize& resize, int status, const std::string& message,
                           absl::Time now);
  // True when the pod was evicted, or would have been in dry run or under the kill switch.
  bool Evict(const PlannedEviction& eviction, absl::Time now);
  void HandleOomKills(absl::Time now, absl::flat_hash_map<std::string, WorkloadCount>& counts);
  // One pod of `workload` is gone: later decisions of the round count one replica fewer.
  static void CountEvicted(absl::flat_hash_map<std::string, WorkloadCount>& counts,
                           const std::string& workload, bool ready);
  void RecordEvent(const std::string& pod_namespace, const std::string& name,
                   const std::string& uid, const std::string& type, const std::string& reason,
                   const std::string& message, absl::Time now);
  // Counts and logs a decision that is not carried out (dry run / kill switch); true if so.
  bool Withheld(const std::string& action, const std::string& what);
  // Before acting (at start and whenever this replica becomes the leader): adds the stored
  // shrink ledger and recent evictions to those in memory and rebuilds the eviction budgets
  // from them. Until it could be read, no resize or eviction is made (StateKnown).
  void LoadState(absl::Time now);
  // After a pass that shrank something or took an eviction token: stores the state (a
  // failure is logged and retried after the next pass).
  void SaveState();
  // Whether the guard rails' state is complete: no store, or the store has been read.
  bool StateKnown() const { return !state_store_.has_value() || state_loaded_; }
  // How long an eviction counts against the budgets (the per-node bucket's refill time).
  absl::Duration EvictionMemory() const;

  ClusterView& view_;
  PodIndex& pods_;
  io::KubeClient& kube_;
  ActuationMetrics metrics_;
  const Options options_;
  std::shared_ptr<spdlog::logger> logger_;
  const absl::Time started_ = absl::Now();
  absl::Notification stop_;

  // Only the Run() thread touches these (and resize_limiters_ the writers of WriteResizes,
  // under its lock, while the Run() thread waits for them).
  absl::flat_hash_map<std::string, TokenBucket> resize_limiters_;  // by node
  EvictionBudget eviction_budget_;
  SustainedConditions cpu_over_;  // by node: since when its CPU bases exceed its CPU
  ShrinkLedger shrinks_;
  std::vector<RecordedEviction> recent_evictions_;  // tokens taken, oldest first
  std::optional<ActuatorStateStore> state_store_;
  bool state_loaded_ = false;  // since this replica last became the actor
  bool state_dirty_ = false;   // shrinks_ or recent_evictions_ changed since stored
  absl::flat_hash_map<std::string, std::string> shortfalls_;    // by node: the last one logged
  absl::flat_hash_map<std::string, absl::Time> blocked_until_;  // by pod UID
  struct RefusedResize {
    int refusals = 0;
    absl::Time until;
  };
  absl::flat_hash_map<std::string, RefusedResize> refused_resizes_;  // by pod UID
  absl::flat_hash_set<std::string> handled_oom_kills_;               // killed container IDs
  OomCooldownTracker oom_cooldown_;
  bool kill_switch_logged_ = false;
};

}  // namespace headroom::extender
