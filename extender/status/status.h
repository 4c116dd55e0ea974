#pragma once

// What headroom sees and does, for people: GET /api/v1/status (the cluster, every reported
// node, the largest workloads), GET /api/v1/explain?pod=NAMESPACE/NAME (one pod in words and
// numbers), read by the page under /ui (status_page.h) and by `headroom status` and
// `headroom explain`. Built from the cluster view (node reports), the pod watch (declared
// requests, annotations) and the action journal; the sizing shown is the admission webhook's
// own (shared/node_actions.h's SizeNewContainer through the guard rails and the workload's
// tuning), so the page says what headroom would really do.
//
// Bounded: the status is built at most once per `cache_for` (a flood of GETs costs one build),
// lists at most `max_workloads` workloads (the largest by declared CPU), and keeps
// `history_points` samples of the cluster totals (one per Sample call: a day at one a minute).
// With `refresh_in_background` (the daemon's), a read never waits for a build after the
// first: the daemon calls RefreshIfWatched every `cache_for`, which rebuilds while someone has
// read the status in the last `watched_for`, and a read is given the last document built.

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "extender/kube/pod_index.h"
#include "extender/view/action_journal.h"
#include "extender/view/cluster_view.h"
#include "nlohmann/json.hpp"
#include "shared/guard_rails.h"
#include "shared/hpa.h"
#include "shared/resource.h"
#include "shared/workload_policy.h"

namespace headroom::extender {

// One node as the status shows it.
struct NodeStatus {
  std::string name;
  ResourceAmounts allocatable;
  ResourceAmounts declared;         // the pods' requests as declared (before headroom)
  ResourceAmounts requested;        // the pods' requests now
  ResourceAmounts base_sum;         // sum of the pods' bases (daily peak of the P75)
  ResourceAmounts shared_headroom;  // the pods' shared headroom (placement.h)
  ResourceAmounts projected;        // base_sum + shared_headroom
  int pods = 0;
  bool fits = true;  // projected within allocatable
  bool cordoned = false;
  std::string cordon_reason;
  double load = 0;
  absl::Duration report_age;
};

struct ClusterTotals {
  int nodes = 0;
  int pods = 0;
  ResourceAmounts allocatable;
  ResourceAmounts declared;
  ResourceAmounts requested;
  ResourceAmounts projected;
  // How many average nodes each sum fills (the larger of CPU and memory).
  double nodes_declared = 0;
  double nodes_projected = 0;
};

// One namespace as the status shows it: the step its Namespace (or the cluster's default) sets
// and what headroom would save there over the requests now -- by sizing new pods (the next step
// from observe), by resizing running ones (from admission), or still to come (in-place).
struct NamespaceStatus {
  std::string name;
  AdoptionStep step = AdoptionStep::kInPlace;
  std::string step_from;
  bool excluded = false;  // --admission-exclude-namespaces: never changed
  int workloads = 0;
  int pods = 0;
  ResourceAmounts requested;    // the pods' requests now
  ResourceAmounts recommended;  // what headroom would request for them (as now where it may not)
  ResourceAmounts saves;        // sum over workloads of what requested exceeds recommended by
};

// Adds a workload's `replicas` pods to `ns`: their requests now, what headroom would request
// (`recommended_per_replica` each; as now when headroom may not size them) and what the first
// exceeds the second by, per resource and never below zero.
void AddToNamespace(NamespaceStatus& ns, int replicas, const ResourceAmounts& requested,
                    const ResourceAmounts& recommended_per_replica, bool sizable);

NodeStatus NodeStatusOf(const NodeFootprint& footprint, const ResourceAmounts& declared,
                        const ResourceAmounts& requested, absl::Duration report_age);
ClusterTotals TotalsOf(const std::vector<NodeStatus>& nodes);
// 1 - projected / declared, per resource (0 when nothing is declared).
double Saving(int64_t declared, int64_t projected);

class StatusBoard {
 public:
  struct Options {
    absl::Duration cache_for = absl::Seconds(5);
    // A read gets the last document built, up to 6 * cache_for old, and RefreshIfWatched keeps
    // it fresh (at 5000 nodes a build takes a few hundred ms).
    bool refresh_in_background = false;
    absl::Duration watched_for = absl::Minutes(2);
    size_t max_workloads = 500;
    size_t history_points = 1440;
    size_t actions_per_workload = 5;
    GuardRailConfig guard;  // the webhook's (guard.allow_below_declared: the default)
    PolicyDefaults defaults;
    std::function<std::optional<HpaScaling>(const std::string&)> hpa_for;  // optional
    HpaResourcesMode hpa_mode = HpaResourcesMode::kKeep;
    // Namespaces headroom never changes (--admission-exclude-namespaces).
    std::vector<std::string> excluded_namespaces;
    // The owners' and Namespaces' annotations (the policy's middle layers); null: none.
    PolicyLayers layers;
    // The Set-up panel (setup_checks.h's Json()); null: the document has "setup": null.
    std::function<nlohmann::json()> setup;
  };

  // `pods` may be null (no Kubernetes API): declared requests then come from the reports.
  StatusBoard(ClusterView& view, const PodIndex* pods, const ActionJournal& journal,
              Options options, std::function<absl::Time()> clock = absl::Now);

  // The status document (cached for options.cache_for).
  std::string StatusJson();
  // Builds the document afresh if someone read it in the last options.watched_for (with
  // refresh_in_background, called every cache_for).
  void RefreshIfWatched();
  // One container as the status shows it: sized once, written as JSON and as words.
  struct ContainerStatus {
    std::string name;
    SizedValues declared;
    SizedValues recommended;
    std::string blocked;    // why left as declared; "" when sized
    bool observed = false;  // left as declared by the observe step: `recommended` is shown
    std::vector<std::string> reasons;
    std::optional<ClusterView::ContainerStats> stats;
  };

  // One pod explained; NotFound when neither a report nor the API knows it.
  absl::StatusOr<nlohmann::json> Explain(const std::string& pod_namespace, const std::string& name);
  // Appends the cluster totals now to the history (call once a minute).
  void Sample();

 private:
  using SharedReport = ClusterView::SharedReport;
  // Each reported pod's requests as declared and now -- the API's where it knows the pod, else
  // as reported -- per report, in the reports' order: looked up once per build, without a copy
  // of any pod.
  using ReportRequests = std::vector<std::vector<PodRequests>>;
  ReportRequests RequestsOf(const std::vector<SharedReport>& reports) const;

  nlohmann::json Build(absl::Time now);
  std::vector<NodeStatus> Nodes(const std::vector<SharedReport>& reports,
                                const ReportRequests& requests, absl::Time now);
  // The largest workloads; `total` gets how many there are in all, `namespaces` each
  // namespace's step and what its next step would save (over every workload).
  nlohmann::json Workloads(const std::vector<SharedReport>& reports, const ReportRequests& requests,
                           size_t* total, nlohmann::json* namespaces);
  using Counts = absl::flat_hash_map<std::string, WorkloadCount>;
  // A namespace's row before its workloads are added: its step and where it comes from.
  NamespaceStatus NamespaceOf(const std::string& name) const;
  // The policy of the pod (`api`; null when the API does not know it) without the HPA's part;
  // `workload_key` becomes the API's key for the pod when it knows it.
  WorkloadPolicy PolicyFor(const std::string& pod_namespace, const ApiPod* api,
                           const Counts& counts, std::string* workload_key) const;
  // What the workload's HorizontalPodAutoscaler keeps as it is (--hpa-resources).
  void ApplyHpaMode(const std::string& workload_key, WorkloadPolicy& policy) const;
  // Why headroom leaves the pod's resources as declared ("" when it sizes them).
  std::string SizingBlocked(const std::string& pod_namespace, const WorkloadPolicy& policy) const;
  // One container sized as the webhook would size a new replica (or left as declared, why
  // in `blocked`; in the observe step, sized all the same, to show what it would save).
  ContainerStatus SizeContainer(const std::string& workload_key, const std::string& container,
                                const SizedValues& declared, const WorkloadPolicy& policy,
                                const std::string& blocked) const;

  ClusterView& view_;
  const PodIndex* pods_;
  const ActionJournal& journal_;
  const Options options_;
  std::function<absl::Time()> clock_;

  // Whether the document built at `cached_at` may be served at `now` without a build.
  bool CachedHolds(absl::Time cached_at, absl::Time now, absl::Duration serve_for) const;
  // Builds the document for `now` (one build at a time; none if another one just finished
  // within `serve_for`) and keeps it.
  std::shared_ptr<const std::string> BuildAndKeep(absl::Time now, absl::Duration serve_for);

  absl::Mutex build_mu_ ABSL_ACQUIRED_BEFORE(mu_);  // one build at a time
  absl::Mutex mu_;
  std::shared_ptr<const std::string> cached_ ABSL_GUARDED_BY(mu_);
  absl::Time cached_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::Time last_read_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  struct HistoryPoint {
    absl::Time at;
    ClusterTotals totals;
  };
  std::deque<HistoryPoint> history_ ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::extender
