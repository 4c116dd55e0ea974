#pragma once

// What headroom-extender knows about the cluster: the latest report of each node (its pods'
// footprints and its load), the workloads' statistics learned from those reports -- the union
// over a workload's replicas on every node (MergeSnapshots), each node's part kept until it is
// older than `workload_retention` -- and pods it has recently seen placed that no report covers
// yet, so two pods in a row cannot both take the last free headroom. Thread-safe: HTTP
// handlers read while reports arrive.

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "extender/view/huge_page_allocator.h"
#include "extender/view/node_name_key.h"
#include "shared/load_cordon.h"
#include "shared/node_optimizer.h"
#include "shared/node_report.h"
#include "shared/placement.h"
#include "shared/usage_stats.h"

namespace headroom::extender {

class ClusterView {
 public:
  struct Options {
    LoadCordonConfig cordon;
    // A node whose last report is older is treated as unknown (never rejected for it).
    absl::Duration report_stale_after = absl::Minutes(3);
    // How long a placement the extender has seen counts before a report must cover it.
    absl::Duration placement_ttl = absl::Minutes(2);
    // Statistics of a workload container observed for less than this are not trusted
    // (guard_rails.h's warm-up): pods are judged by their declared amounts.
    absl::Duration min_history = absl::Hours(24);
    // A node's part of a workload's statistics is dropped once this much older than the
    // newest report (the statistics' own horizon).
    absl::Duration workload_retention = absl::Hours(7 * 24);
    // A node that has not reported for this long is forgotten (ExpireNodes).
    absl::Duration node_retention = absl::Hours(1);
    // Bounds on what reports can make the view hold: a report for a node beyond max_nodes,
    // or one that would take the pods of every node's last report beyond max_reported_pods,
    // is refused (ResourceExhausted); statistics of a workload container beyond
    // max_workload_containers are not kept. 150,000 pods is Kubernetes' own scalability
    // threshold for a cluster (and 5000 nodes its node threshold).
    size_t max_nodes = 20000;
    size_t max_reported_pods = 150000;
    size_t max_workload_containers = 50000;
  };

  explicit ClusterView(Options options);

  // Replaces what is known about the node. InvalidArgument (nothing changed) for a report
  // without a node name, with negative amounts, or with duplicate pods; ResourceExhausted for
  // a new node beyond max_nodes or pods beyond max_reported_pods.
  absl::Status ApplyReport(const NodeReport& report);
  // What ApplyReport would say of a report for `node` with `pods` pods as far as the bounds
  // go (max_nodes, max_reported_pods), before anyone decodes it: OK or ResourceExhausted.
  absl::Status CheckRoom(const std::string& node, size_t pods) const;

  // The nodes as the extender judges them at `now` (one lock for a scheduling request's
  // nodes), with recent placements added and the load cordon brought up to date; nullopt for
  // a node without a fresh report.
  std::vector<std::optional<NodeFootprint>> Nodes(const std::vector<absl::string_view>& names,
                                                  absl::Time now);
  // The same without copies, for the scheduler's path: `visit(i, node)` for each name in
  // order, with nullptr for a node without a fresh report. It runs under the view's lock
  // (keep it short, do not call the view from it); `node` is valid during the call only.
  void VisitNodes(const std::vector<absl::string_view>& names, absl::Time now,
                  absl::FunctionRef<void(size_t, const NodeFootprint*)> visit);

  // Statistics for a workload's container: the union over its replicas' reports.
  using ContainerStats = UsageSnapshot;
  std::optional<ContainerStats> WorkloadContainer(const std::string& workload_key,
                                                  const std::string& container) const;
  absl::Duration min_history() const { return options_.min_history; }

  // Drops each node's part of a workload's statistics once it is older than
  // `workload_retention`, and workloads left with none (called periodically).
  void ExpireWorkloads(absl::Time now);
  // Forgets nodes whose last report is older than `node_retention`; returns how many.
  size_t ExpireNodes(absl::Time now);
  size_t WorkloadContainerCount() const;

  // Workload statistics keyed "namespace/Kind/name#container", for checkpoints.
  std::map<std::string, ContainerStats> ExportWorkloads() const;
  // Adds checkpointed statistics, as read at `now`; the first report that covers a workload
  // container replaces them, and they expire like a node's part.
  void ImportWorkloads(const std::map<std::string, ContainerStats>& workloads,
                       absl::Time now = absl::Now());

  void RecordPlacement(const std::string& pod_uid, const std::string& node,
                       const PodFootprint& footprint, absl::Time now);
  // Node allocatable as the Kubernetes API states it (from the watch of nodes); it overrides
  // what reports say. Replace sets the whole set after a (re)list.
  struct ApiNode {
    ResourceAmounts allocatable;
    std::optional<int> max_pods;
  };
  void SetApiNode(const std::string& name, const ApiNode& node);
  void ForgetApiNode(const std::string& name);
  void ReplaceApiNodes(absl::flat_hash_map<std::string, ApiNode> nodes);
  size_t ApiNodeCount() const;
  bool HasApiNode(const std::string& name) const;

  // Drops a recorded placement (the pod was deleted or finished).
  void ForgetPlacement(const std::string& pod_uid);
  size_t PlacementCount() const;

  size_t NodeCount() const;
  // The pods of every known node's last report.
  size_t ReportedPodCount() const;
  // The load cordon of every node with a fresh report at `now`, brought up to date as the
  // filter does; a node without one is absent (unknown).
  absl::flat_hash_map<std::string, LoadCordonState> LoadCordons(absl::Time now);
  // Nodes the API lists, and how many of them have a fresh report at `now` (readiness).
  std::pair<size_t, size_t> ApiNodesReported(absl::Time now) const;
  // Age of the oldest and newest node report at `now` (zero when there is none).
  std::pair<absl::Duration, absl::Duration> ReportAges(absl::Time now) const;
  // The reports no older than report_stale_after at `now`, by node name: shared, never copied
  // (a report is replaced whole, never changed), so a status build or an actuation round
  // reads thousands without holding the view's lock or doubling their memory.
  using SharedReport = std::shared_ptr<const NodeReport>;
  std::vector<SharedReport> FreshReports(absl::Time now) const;
  // The pod `pod_namespace`/`name` as the node that reported it last says, with that node and
  // the report's time; nullopt when no fresh report lists it. An index lookup: its cost does
  // not grow with the cluster.
  struct FoundPod {
    std::string node;
    absl::Time reported_at;
    ReportedPod pod;
  };
  std::optional<FoundPod> FindReportedPod(absl::string_view pod_namespace, absl::string_view name,
                                          absl::Time now) const;

 private:
  // The report of a node known only from placements so far: empty, shared by all of them.
  static SharedReport NoReport();
  struct Placement {
    std::string pod_uid;
    PodFootprint footprint;
    absl::Time at;
  };
  // A reported node. What judging reads on every scheduling request comes first and is found
  // with the node's one lookup: its footprint, the API's allocatable and its recent
  // placements (mirrored here from api_nodes_ and kept here rather than in pending_placed_).
  struct NodeState {
    // The node as judged, kept ready for readers: the report's footprint with the API's
    // allocatable, the live placements and the cordon applied. It holds for `now` in
    // [judged_from, judged_until) (Unix nanoseconds from absl::ToUnixNanos, the infinite
    // times at int64's ends; 8 bytes each rather than absl::Time's 16, see NodeSlot), which
    // ends before the report goes stale; any change to its inputs empties that range.
    int64_t judged_from_ns = kNever;
    int64_t judged_until_ns = kNever;
    NodeFootprint judged;
    bool JudgementHolds(int64_t now_ns) const {
      return now_ns >= judged_from_ns && now_ns < judged_until_ns;
    }
    // After a change to what the judgement is made of: the next reader judges afresh.
    void DropJudgement() { judged_until_ns = kNever; }
    static constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
    absl::Time reported_at;   // report.reported_at
    NodeFootprint footprint;  // the reported pods, aggregated when the report arrives
    // The cordon is re-evaluated at most once a second (its messages are formatted text).
    absl::Time cordon_evaluated = absl::InfinitePast();
    std::optional<ApiNode> api;
    std::vector<Placement> placed;
    LoadCordonState cordon;
    SharedReport report = NoReport();
  };
  // A node in the map: its name (the key) with its state. What a lookup and a judgement read
  // -- the name, the judgement's range and the judged footprint's amounts, 120 bytes -- fits
  // two cache lines from the slot's start, which the alignment puts at a line's start (with
  // the name beside the state, as a map's pair would keep it, and absl::Time's 16 bytes for
  // the range, they took three or four). The state changes under the writer lock; the name
  // never does, so the set's order holds.
  struct alignas(64) NodeSlot {
    explicit NodeSlot(std::string node) : name(std::move(node)) {}
    std::string name;
    mutable NodeState state;
  };
  struct NodeSlotHash : NodeNameHash {
    using NodeNameHash::operator();
    size_t operator()(const NodeSlot& slot) const { return (*this)(slot.name); }
  };
  struct NodeSlotEq {
    using is_transparent = void;
    static absl::string_view Name(const NodeSlot& slot) { return slot.name; }
    static absl::string_view Name(absl::string_view name) { return name; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return NodeNameEq()(Name(a), Name(b));
    }
  };
  // A node whose kept judgement does not hold at `now` (VisitNodes checks that first),
  // judged afresh: nullptr without a fresh report, else `scratch` composed, and `refresh` set
  // so that the caller keeps it (RefreshJudgedLocked) under the writer lock. Needs the lock
  // shared only.
  const NodeFootprint* JudgeAfreshLocked(const NodeState* state, absl::Time now,
                                         NodeFootprint& scratch, bool& refresh) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The judgement of `state` at `now` with `cordon` as its load cordon, into `out`; returns
  // the end of the time it holds (the first placement to expire, or the cordon's next
  // evaluation).
  absl::Time ComposeJudgedLocked(const NodeState& state, const LoadCordonState& cordon,
                                 absl::Time now, NodeFootprint& out) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // Brings the kept judgement up to date at `now` (cordon included).
  void RefreshJudgedLocked(NodeState& state, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the stored cordon still holds at `now` (evaluated less than a second before).
  static bool CordonCurrent(const NodeState& state, absl::Time now);
  // Whether a sweep would find placements to check (there are some, and the last sweep is
  // a second old): judging takes the writer lock for it.
  bool PlacementSweepDueLocked(absl::Time now) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void ExpirePlacementsLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Re-evaluates the node's load cordon, at most once a second.
  void UpdateCordonLocked(NodeState& state, absl::Time now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ErasePlacementLocked(const std::string& pod_uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The API's record of the node, for a NodeState's mirror of it.
  std::optional<ApiNode> ApiNodeLocked(const std::string& name) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops expired placements from `placed` (and from the index by pod UID).
  void ExpirePlacementsLocked(std::vector<Placement>& placed, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether statistics of this workload container may be kept (max_workload_containers).
  bool HasRoomForLocked(const std::string& workload_container) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // CheckRoom under the lock; `after` gets the reported pods the report would leave.
  absl::Status CheckRoomLocked(const std::string& node, size_t pods, size_t& after) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // One node's part of a workload container's statistics.
  struct Contribution {
    absl::Time at;
    ContainerStats stats;
  };
  // A workload container's parts by node ("": from the checkpoint) and their union, kept up
  // to date as parts change (MayLowerUnion says when it must be merged anew), so that neither
  // a report nor a read costs in proportion to the nodes a workload runs on.
  struct WorkloadParts {
    absl::flat_hash_map<std::string, Contribution> by_node;
    ContainerStats merged;
    // Sets `node`'s part.
    void Set(const std::string& node, Contribution part);
    // Drops `node`'s part, if it has one.
    void Drop(const std::string& node);
    // Drops the parts older than `retention` at `now`.
    void DropOlder(absl::Time now, absl::Duration retention);

   private:
    void Remerge();
  };

  Options options_;
  mutable absl::Mutex mu_;
  // In huge pages once large (huge_page_allocator.h): every call reads a slot per node.
  absl::flat_hash_set<NodeSlot, NodeSlotHash, NodeSlotEq, HugePageAllocator<NodeSlot>> nodes_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, WorkloadParts> workloads_ ABSL_GUARDED_BY(mu_);
  // Recent placements on nodes that have not reported yet (a reported node keeps its own,
  // NodeState::placed); and each placed pod's node, by pod UID.
  absl::flat_hash_map<std::string, std::vector<Placement>> pending_placed_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::string> placements_ ABSL_GUARDED_BY(mu_);
  absl::Time placements_swept_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  absl::flat_hash_map<std::string, ApiNode> api_nodes_ ABSL_GUARDED_BY(mu_);
  // "namespace/name" of every reported pod -> the node whose report lists it (the last one
  // to, if two do).
  absl::flat_hash_map<std::string, std::string> pod_nodes_ ABSL_GUARDED_BY(mu_);
  size_t reported_pods_ ABSL_GUARDED_BY(mu_) = 0;  // the sum over nodes_ of report.pods
  // Drops `report`'s pods from pod_nodes_ where they still point to its node.
  void UnindexPodsLocked(const NodeReport& report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
};

}  // namespace headroom::extender
