#include "extender/actuation_plan.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shared/node_optimizer.h"
#include "shared/quantity.h"

namespace headroom::extender {
namespace {

bool AnnotatedTrue(const Annotations& annotations, absl::string_view key) {
  const auto it = annotations.find(std::string(key));
  return it != annotations.end() && it->second == "true";
}

// True when `after` differs from `before` by at least `fraction` of `before` (any change
// from nothing counts).
bool MovedEnough(const std::optional<int64_t>& before, const std::optional<int64_t>& after,
                 double fraction) {
  if (before == after) return false;
  if (!before || !after || *before == 0) return true;
  return std::fabs(static_cast<double>(*after - *before)) >=
         fraction * static_cast<double>(*before);
}

std::string Amount(const std::optional<int64_t>& value, bool cpu) {
  if (!value) return "none";
  return cpu ? FormatCpuMillis(*value) : FormatMemoryBytes(*value);
}

QosClass QosWithInit(std::vector<DeclaredResources> containers,
                     const std::vector<DeclaredResources>& init) {
  containers.insert(containers.end(), init.begin(), init.end());
  return PodQosClass(ResourceSpecs(containers));
}

}  // namespace

std::string ResizeBlockedBy(const ApiPod& pod) {
  if (std::string why = SizingBlockedBy(PolicyOf(pod)); !why.empty()) return why;
  if (pod.mirror) return "a static pod's mirror cannot be resized";
  if (pod.terminating) return "terminating";
  if (!pod.resize_pending.empty()) {
    return absl::StrCat("a resize is pending (", pod.resize_pending,
                        pod.resize_message.empty() ? "" : ": ", pod.resize_message, ")");
  }
  if (pod.resize_in_progress) return "a resize is in progress";
  return "";
}

std::string EvictionBlockedBy(const ApiPod& pod) {
  if (pod.owner_kind == "DaemonSet") return "DaemonSet pods are never evicted";
  if (pod.mirror) return "a static pod's mirror cannot be evicted";
  if (pod.terminating) return "already terminating";
  if (AnnotatedTrue(pod.annotations, kDoNotDisruptAnnotation)) {
    return std::string("annotated ") + std::string(kDoNotDisruptAnnotation);
  }
  if (AnnotatedTrue(pod.annotations, kKarpenterDoNotDisruptAnnotation)) {
    return std::string("annotated ") + std::string(kKarpenterDoNotDisruptAnnotation);
  }
  const WorkloadPolicy policy = PolicyOf(pod);
  if (policy.disabled) return "annotated headroom.dev/disable";
  if (policy.recommend_only) return "mode recommend";
  if (policy.ranking.ranking == EvictionRanking::kNoEviction) return "eviction ranking no-eviction";
  return "";
}

std::optional<PlannedResize> PlanResize(
    const ApiPod& pod, const std::vector<std::pair<std::string, ContainerSizing>>& targets,
    const PlanOptions& options, std::string& why) {
  why = ResizeBlockedBy(pod);
  if (!why.empty()) return std::nullopt;
  PlannedResize resize{pod.pod_namespace, pod.name, pod.uid, pod.node, {}, ""};
  std::vector<DeclaredResources> after_all = pod.containers;
  std::vector<std::string> notes;
  for (const auto& target : targets) {
    // Named, not a structured binding: clang before 16 cannot capture those in a lambda.
    const std::string& container = target.first;
    const ContainerSizing& sizing = target.second;
    auto it = std::find_if(after_all.begin(), after_all.end(),
                           [&](const DeclaredResources& c) { return c.name == container; });
    if (it == after_all.end()) continue;
    const DeclaredResources before = *it;
    DeclaredResources after = before;
    after.cpu_request_millis = sizing.cpu_request_millis;
    // A CPU limit the pod still declares caps the request (the API rejects request > limit).
    if (after.cpu_limit_millis && *after.cpu_request_millis > *after.cpu_limit_millis) {
      after.cpu_request_millis = after.cpu_limit_millis;
    }
    after.memory_request_bytes = sizing.memory_request_bytes;
    // A declared memory limit follows the formula; none is added where there was none.
    if (after.memory_limit_bytes) after.memory_limit_bytes = sizing.memory_limit_bytes;
    if (!MovedEnough(before.cpu_request_millis, after.cpu_request_millis, options.min_change) &&
        !MovedEnough(before.memory_request_bytes, after.memory_request_bytes, options.min_change)) {
      continue;
    }
    *it = after;
    resize.containers.push_back({container, before, after});
    notes.push_back(absl::StrCat(
        container, ": cpu request ", Amount(before.cpu_request_millis, true), " -> ",
        Amount(after.cpu_request_millis, true), ", memory request ",
        Amount(before.memory_request_bytes, false), " -> ",
        Amount(after.memory_request_bytes, false), ", memory limit ",
        Amount(before.memory_limit_bytes, false), " -> ", Amount(after.memory_limit_bytes, false)));
  }
  if (resize.containers.empty()) {
    why = absl::StrCat("requests within ", std::lround(options.min_change * 100),
                       "% of the optimised sizes");
    return std::nullopt;
  }
  const QosClass qos_before = QosWithInit(pod.containers, pod.init_containers);
  const QosClass qos_after = QosWithInit(after_all, pod.init_containers);
  if (qos_before != qos_after) {
    why = absl::StrCat("the resize would change the QoS class from ", QosClassName(qos_before),
                       " to ", QosClassName(qos_after), ", which the API forbids");
    return std::nullopt;
  }
  resize.message =
      absl::StrCat("base + shared headroom on ", pod.node, ": ", absl::StrJoin(notes, "; "));
  return resize;
}

NodePlan PlanNode(const NodeReport& report,
                  const std::function<std::optional<ApiPod>(const ReportedPod&)>& find,
                  const PlanOptions& options) {
  NodePlan plan;
  NodeDemand node{report.node, report.allocatable, {}};
  std::vector<std::optional<ApiPod>> api_pods;
  for (const ReportedPod& reported : report.pods) {
    std::optional<ApiPod> api = find(reported);
    if (api && !reported.uid.empty() && api->uid != reported.uid) api.reset();
    PodDemand demand;
    demand.pod_namespace = reported.pod_namespace;
    demand.name = reported.name;
    demand.daemonset = reported.daemonset || (api && api->owner_kind == "DaemonSet");
    demand.ranking = reported.ranking;
    demand.requests = reported.requests;
    demand.containers = reported.containers;
    bool with_history = !reported.containers.empty();
    for (const ContainerDemand& c : reported.containers) {
      with_history = with_history && c.cpu.has_value() && c.memory.has_value();
    }
    demand.optimizable = api.has_value() && with_history;
    if (api) {
      const WorkloadPolicy policy = PolicyOf(*api);
      demand.optimizable = demand.optimizable && SizingBlockedBy(policy).empty();
      if (policy.ranking.ranking == EvictionRanking::kNoEviction) {
        demand.ranking = EvictionRanking::kNoEviction;
      }
    }
    node.pods.push_back(std::move(demand));
    api_pods.push_back(std::move(api));
  }
  absl::StatusOr<NodeOptimization> optimized = OptimizeNode(node);
  if (!optimized.ok()) {
    plan.skipped.push_back({report.node, "node", std::string(optimized.status().message())});
    return plan;
  }
  std::map<size_t, std::vector<std::pair<std::string, ContainerSizing>>> targets;
  for (const ContainerResult& result : optimized->containers) {
    targets[result.pod].emplace_back(node.pods[result.pod].containers[result.container].name,
                                     result.sizing);
  }
  for (const auto& [index, sized] : targets) {
    std::string why;
    std::optional<PlannedResize> resize = PlanResize(*api_pods[index], sized, options, why);
    if (resize) {
      plan.resizes.push_back(*std::move(resize));
    } else {
      plan.skipped.push_back({node.pods[index].Key(), "resize", why});
    }
  }
  for (const PodEviction& eviction : optimized->evictions) {
    const std::optional<ApiPod>& api = api_pods[eviction.pod];
    const std::string key = node.pods[eviction.pod].Key();
    if (!api) {
      plan.skipped.push_back({key, "evict", "not in the Kubernetes API"});
      continue;
    }
    if (std::string why = EvictionBlockedBy(*api); !why.empty()) {
      plan.skipped.push_back({key, "evict", why});
      continue;
    }
    plan.evictions.push_back({api->pod_namespace, api->name, api->uid, report.node,
                              "NodeOverCommitted", eviction.reason.message});
  }
  return plan;
}

}  // namespace headroom::extender
