#include "extender/actuation/cordon_taint.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"
#include "shared/annotations.h"
#include "shared/log_text.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;
using codec::ArrayField;
using codec::ObjectField;
using codec::StringField;
using codec::TrueField;

bool HasKey(const json& taint) { return StringField(taint, "key") == kLoadCordonTaintKey; }
bool IsOurs(const json& taint) {
  return HasKey(taint) && StringField(taint, "value") == kLoadCordonTaintValue &&
         StringField(taint, "effect") == "NoSchedule";
}

}  // namespace

std::optional<NodeTaints> NodeTaintsFromObject(const json& node) {
  const json& metadata = ObjectField(node, "metadata");
  NodeTaints out;
  out.name = StringField(metadata, "name");
  if (out.name.empty()) return std::nullopt;
  out.resource_version = StringField(metadata, "resourceVersion");
  const json& spec = ObjectField(node, "spec");
  out.taints = ArrayField(spec, "taints");
  out.unschedulable = TrueField(spec, "unschedulable");
  return out;
}

TaintDecision DecideCordonTaint(bool cordoned, const NodeTaints& node) {
  bool ours = false;
  bool foreign = false;
  for (const json& taint : node.taints) {
    if (IsOurs(taint)) {
      ours = true;
    } else if (HasKey(taint)) {
      foreign = true;
    }
  }
  if (foreign && !ours) {
    if (!cordoned) return {};
    return {TaintChange::kNone,
            absl::StrCat("node ", LogText(node.name), " carries ", kLoadCordonTaintKey,
                         " set by someone else: left as it is")};
  }
  if (cordoned && !ours) {
    if (node.unschedulable) {
      return {TaintChange::kNone,
              absl::StrCat("node ", LogText(node.name),
                           " is cordoned (spec.unschedulable) by someone else: no taint added")};
    }
    return {TaintChange::kAdd, ""};
  }
  if (!cordoned && ours) return {TaintChange::kRemove, ""};
  return {};
}

json CordonTaintPatch(const NodeTaints& node, TaintChange change) {
  json taints = json::array();
  for (const json& taint : node.taints) {
    if (!IsOurs(taint)) taints.push_back(taint);
  }
  if (change == TaintChange::kAdd) {
    taints.push_back(
        {{"key", kLoadCordonTaintKey}, {"value", kLoadCordonTaintValue}, {"effect", "NoSchedule"}});
  }
  return {{"metadata", {{"resourceVersion", node.resource_version}}},
          {"spec", {{"taints", std::move(taints)}}}};
}

void NodeTaintIndex::Replace(const std::vector<json>& nodes) {
  absl::flat_hash_map<std::string, NodeTaints> known;
  for (const json& node : nodes) {
    if (std::optional<NodeTaints> taints = NodeTaintsFromObject(node)) {
      std::string name = taints->name;
      known.emplace(std::move(name), *std::move(taints));
    }
  }
  absl::MutexLock lock(&mu_);
  nodes_ = std::move(known);
}

void NodeTaintIndex::Apply(const WatchEvent& event) {
  if (event.type != WatchEventType::kAdded && event.type != WatchEventType::kModified &&
      event.type != WatchEventType::kDeleted) {
    return;
  }
  std::optional<NodeTaints> taints = NodeTaintsFromObject(event.object);
  if (!taints.has_value()) return;
  absl::MutexLock lock(&mu_);
  if (event.type == WatchEventType::kDeleted) {
    nodes_.erase(taints->name);
  } else {
    std::string name = taints->name;
    nodes_.insert_or_assign(std::move(name), *std::move(taints));
  }
}

std::vector<NodeTaints> NodeTaintIndex::Nodes() const {
  std::vector<NodeTaints> out;
  absl::MutexLock lock(&mu_);
  out.reserve(nodes_.size());
  for (const auto& [name, node] : nodes_) out.push_back(node);
  return out;
}

CordonTainter::CordonTainter(ClusterView& view, NodeTaintIndex& nodes, io::KubeClient& kube,
                             Options options, std::shared_ptr<spdlog::logger> logger)
    : view_(view),
      nodes_(nodes),
      kube_(kube),
      options_(options),
      logger_(std::move(logger)),
      started_(absl::Now()) {}

bool CordonTainter::Patch(const NodeTaints& node, TaintChange change, const std::string& what) {
  if (options_.dry_run) {
    logger_->info("cordon taint [dry run, not written]: {}", what);
    return false;
  }
  absl::StatusOr<io::KubeClient::WriteResult> written = kube_.Write(
      "PATCH", absl::StrCat("/api/v1/nodes/", node.name), CordonTaintPatch(node, change).dump(),
      "application/merge-patch+json", absl::Seconds(5));
  if (!written.ok()) {
    logger_->warn("cordon taint: node {}: {}", LogText(node.name),
                  LogText(written.status().message()));
    return false;
  }
  if (written->status == 409) {
    // Our view of the node is older than the API's: the watch brings the new one.
    logger_->debug("cordon taint: node {} changed meanwhile; judged again next pass",
                   LogText(node.name));
    return false;
  }
  if (written->status < 200 || written->status >= 300) {
    logger_->warn("cordon taint: node {}: HTTP {}: {}", LogText(node.name), written->status,
                  LogText(written->body));
    return false;
  }
  logger_->info("cordon taint: {}", what);
  return true;
}

int CordonTainter::RunOnce(absl::Time now) {
  if (options_.may_act && !options_.may_act()) return 0;
  const absl::flat_hash_map<std::string, LoadCordonState> cordons = view_.LoadCordons(now);
  const bool past_grace = now - started_ >= options_.unknown_grace;
  int patched = 0;
  for (const NodeTaints& node : nodes_.Nodes()) {
    const auto cordon = cordons.find(node.name);
    if (cordon == cordons.end() && !past_grace) continue;  // unknown, just after a start
    const bool cordoned = cordon != cordons.end() && cordon->second.cordoned;
    const TaintDecision decision = DecideCordonTaint(cordoned, node);
    if (decision.change == TaintChange::kNone) {
      if (!decision.why.empty()) logger_->debug("cordon taint: {}", decision.why);
      continue;
    }
    const bool add = decision.change == TaintChange::kAdd;
    const std::string why = add                       ? cordon->second.reason.message
                            : cordon == cordons.end() ? "no fresh report: load unknown"
                                                      : "load cordon released";
    const std::string what =
        absl::StrCat(add ? "tainted " : "untainted ", LogText(node.name), " (", kLoadCordonTaintKey,
                     "=", kLoadCordonTaintValue, ":NoSchedule): ", LogText(why));
    if (Patch(node, decision.change, what)) ++patched;
  }
  return patched;
}

int CordonTainter::ReleaseAll() {
  if (options_.may_act && !options_.may_act()) return 0;
  int patched = 0;
  for (const NodeTaints& node : nodes_.Nodes()) {
    if (DecideCordonTaint(false, node).change != TaintChange::kRemove) continue;
    const std::string what = absl::StrCat("untainted ", LogText(node.name), " (",
                                          kLoadCordonTaintKey, "): headroom-extender stops");
    if (Patch(node, TaintChange::kRemove, what)) ++patched;
  }
  return patched;
}

void CordonTainter::Run() {
  while (!stop_.WaitForNotificationWithTimeout(options_.interval)) RunOnce(absl::Now());
}

}  // namespace headroom::extender
