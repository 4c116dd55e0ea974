#pragma once

// The load cordon as a node taint (--cordon-taint): while headroom-extender judges a node
// load-cordoned (shared/load_cordon.h), the node carries the NoSchedule taint
// headroom.dev/load-cordon=load, so every scheduler keeps new pods off it, not only the
// profiles that call the extender; the taint goes when the cordon is released. headroom
// touches only its own taint (that key with that value): it never adds it to a node someone
// cordoned (spec.unschedulable), and leaves the key alone when someone else set it with
// another value. Writes are merge patches of spec.taints carrying the node's
// resourceVersion, so a concurrent change by anyone else wins (409) and is judged again.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "extender/kube/list_watcher.h"
#include "extender/view/cluster_view.h"
#include "io/kube_client.h"
#include "nlohmann/json.hpp"
#include "spdlog/logger.h"

namespace headroom::extender {

// A node's taints as the node watch last showed them.
struct NodeTaints {
  std::string name;
  std::string resource_version;
  nlohmann::json taints = nlohmann::json::array();  // spec.taints, as served
  bool unschedulable = false;                       // spec.unschedulable (kubectl cordon)
};

// nullopt for an object without metadata.name.
std::optional<NodeTaints> NodeTaintsFromObject(const nlohmann::json& node);

enum class TaintChange { kNone, kAdd, kRemove };
struct TaintDecision {
  TaintChange change = TaintChange::kNone;
  std::string why;  // for the log; "" when nothing is to be said
};

// What to do with the node's taint given whether headroom judges it load-cordoned.
TaintDecision DecideCordonTaint(bool cordoned, const NodeTaints& node);

// The merge patch that makes the change: spec.taints in full (a merge patch replaces lists)
// and metadata.resourceVersion (the API refuses it with 409 if the node changed meanwhile).
nlohmann::json CordonTaintPatch(const NodeTaints& node, TaintChange change);

// The nodes' taints, fed by the extender's node watch; thread-safe.
class NodeTaintIndex {
 public:
  void Replace(const std::vector<nlohmann::json>& nodes);
  void Apply(const WatchEvent& event);
  std::vector<NodeTaints> Nodes() const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, NodeTaints> nodes_ ABSL_GUARDED_BY(mu_);
};

// Brings every node's taint in line with its load cordon, every `interval`.
class CordonTainter {
 public:
  struct Options {
    absl::Duration interval = absl::Seconds(2);
    bool dry_run = false;  // decide and log, write nothing
    // A node without a fresh report is unknown: its taint is removed only once the extender
    // has run this long (after a restart reports take a minute to come back; meanwhile the
    // taints stay as they were). deploy/: --report-stale-after.
    absl::Duration unknown_grace = absl::Minutes(3);
    // Checked before every pass: false skips it (another replica holds the leader Lease).
    // nullptr: always act.
    std::function<bool()> may_act;
  };
  CordonTainter(ClusterView& view, NodeTaintIndex& nodes, io::KubeClient& kube, Options options,
                std::shared_ptr<spdlog::logger> logger);

  // One pass; returns the number of nodes patched.
  int RunOnce(absl::Time now);
  // Removes headroom's taint from every node (at shutdown: fail open, as the scheduler's
  // extender is ignorable). Returns the number of nodes patched.
  int ReleaseAll();
  void Run();
  void Stop() { stop_.Notify(); }

 private:
  ClusterView& view_;
  NodeTaintIndex& nodes_;
  io::KubeClient& kube_;
  const Options options_;
  std::shared_ptr<spdlog::logger> logger_;
  const absl::Time started_;
  absl::Notification stop_;

  // Writes the change; true when the API took it.
  bool Patch(const NodeTaints& node, TaintChange change, const std::string& what);
};

}  // namespace headroom::extender
