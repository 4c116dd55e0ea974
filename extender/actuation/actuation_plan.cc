#include "extender/actuation/actuation_plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "extender/kube/pod_level_sizing.h"
#include "shared/quantity.h"

namespace headroom::extender {
namespace {

QosClass QosWithInit(std::vector<DeclaredResources> containers,
                     const std::vector<DeclaredResources>& init) {
  containers.insert(containers.end(), init.begin(), init.end());
  return PodQosClass(ResourceSpecs(containers));
}

SizedValues Values(const DeclaredResources& r) {
  return {r.cpu_request_millis, r.memory_request_bytes, r.memory_limit_bytes};
}

const DeclaredResources* Named(const std::vector<DeclaredResources>& list, absl::string_view name) {
  const auto it = std::find_if(list.begin(), list.end(),
                               [&](const DeclaredResources& c) { return c.name == name; });
  return it == list.end() ? nullptr : &*it;
}

// The shared plan's view of one reported pod, with what the API says about it.
PodState StateOf(const ReportedPod& reported, const ApiPod* api, const ApiView& view,
                 absl::Time now) {
  PodState state;
  PodDemand& demand = state.demand;
  demand.pod_namespace = reported.pod_namespace;
  demand.name = reported.name;
  demand.requests = reported.requests;
  demand.containers = reported.containers;
  demand.daemonset = reported.daemonset;
  demand.ranking = reported.ranking;
  if (!api) {
    // Never acted on, counted at its declared requests.
    demand.optimizable = false;
    state.containers.resize(reported.containers.size());
    state.resize_blocked_by = "not in the Kubernetes API";
    state.disruption.verified = false;
    return state;
  }
  const WorkloadCount count = CountOf(view.counts, *api);
  const WorkloadPolicy policy = PolicyOf(*api, count, view.defaults, view.layers);
  demand.daemonset = demand.daemonset || api->owner_kind == "DaemonSet";
  demand.ranking = policy.ranking.ranking;
  // The API is authoritative for what the pod requests.
  demand.requests = EffectivePodRequests(RequestsOf(api->containers), api->pod_level);
  // A pod below the in-place step keeps what it runs with: the plan counts it as it is.
  demand.optimizable = !reported.containers.empty() && InPlaceBlockedBy(policy).empty();
  state.allow_below_declared = policy.allow_below_declared;
  state.tuning = policy.tuning;
  if (view.hpa_for) {
    (void)KeepForHpa(view.hpa_for(WorkloadKeyOf(*api)), view.hpa_mode, state.tuning);
  }
  state.resize_blocked_by = ResizeBlockedBy(*api, policy, view.pod_level_resize);
  state.disruption = DisruptionFactsFor(*api, count, now, policy);
  state.shrink_blocked_by = state.disruption.outside_window;
  const std::vector<DeclaredResources> declared = DeclaredOf(*api);
  for (ContainerDemand& container : demand.containers) {
    ContainerState container_state;
    container_state.memory_in_use_bytes = container.memory_in_use_bytes;
    const DeclaredResources* current = Named(api->containers, container.name);
    const DeclaredResources* original = Named(declared, container.name);
    if (current == nullptr) {
      demand.optimizable = false;  // the API and the node disagree on the pod's containers
    } else {
      container_state.current = Values(*current);
      container_state.manage_memory_limit = current->memory_limit_bytes.has_value();
      // The API's declared amounts are the ones placement falls back to.
      container.declared_requests = {current->cpu_request_millis.value_or(0),
                                     current->memory_request_bytes.value_or(0)};
      container.declared_limits = {current->cpu_limit_millis.value_or(0),
                                   current->memory_limit_bytes.value_or(0)};
    }
    container_state.declared = Values(
        original != nullptr ? *original : (current != nullptr ? *current : DeclaredResources{}));
    if (view.ledger != nullptr) {
      if (const auto it = view.ledger->find(ShrinkKey(api->uid, container.name));
          it != view.ledger->end()) {
        container_state.last_shrink = it->second;
      }
    }
    state.containers.push_back(container_state);
  }
  return state;
}

// `resize` of a pod that declares pod-level resources, its containers to become `after_all`:
// the pod-level requests follow them within the pod-level limits (pod_level_sizing.h; a limit
// stays, as the API never lets a resize remove one), and the QoS class, which the pod level
// decides, must not change. nullopt with `why` when it would.
std::optional<PlannedResize> WithPodLevel(const ApiPod& pod, const PodState& state,
                                          PlannedResize resize,
                                          std::vector<DeclaredResources>& after_all,
                                          std::string& why) {
  const std::optional<DeclaredResources> now = DeclaredPodLevel(pod.pod_level);
  const std::optional<DeclaredResources> declared = DeclaredPodLevelOf(pod);
  std::vector<std::vector<Reason>> container_reasons(after_all.size());
  std::vector<Reason> pod_reasons;
  const DeclaredResources after = SizePodLevel(
      *declared, pod.containers, after_all,
      {/*strip_cpu_limits=*/false, state.allow_below_declared}, container_reasons, pod_reasons);
  // The bounds may have changed a container again (a limit capped, requests kept).
  std::vector<ContainerResize> containers;
  for (ContainerResize& c : resize.containers) {
    const auto it = std::find_if(after_all.begin(), after_all.end(),
                                 [&](const DeclaredResources& a) { return a.name == c.name; });
    c.after = *it;
    if (c.after != c.before) containers.push_back(std::move(c));
  }
  resize.containers = std::move(containers);
  for (const Reason& reason : pod_reasons) absl::StrAppend(&resize.message, "; ", reason.message);
  if (after != *now) {
    resize.pod_level_before = now;
    resize.pod_level_after = after;
    absl::StrAppend(&resize.message, "; pod level: ", DescribeResources(*now), " -> ",
                    DescribeResources(after));
  }
  if (resize.containers.empty() && !resize.pod_level_after.has_value()) {
    why = "the pod-level bounds keep the containers as they are";
    return std::nullopt;
  }
  const QosClass qos_before = PodQosClass(ResourceSpecs({*now}));
  const QosClass qos_after = PodQosClass(ResourceSpecs({after}));
  if (qos_before != qos_after) {
    why = absl::StrCat("the resize would change the QoS class from ", QosClassName(qos_before),
                       " to ", QosClassName(qos_after), ", which the API forbids");
    return std::nullopt;
  }
  return resize;
}

// The shared plan's resize of one pod as a pods/resize change, or nullopt with `why`. (Outside
// its disruption window the shared plan has already kept every shrink back.)
std::optional<PlannedResize> ToApiResize(const ApiPod& pod, const PodState& state,
                                         const PlannedPodResize& planned,
                                         const ResizeThreshold& threshold, std::string& why) {
  PlannedResize resize{pod.pod_namespace, pod.name, pod.uid, pod.node, {}, planned.message};
  std::vector<DeclaredResources> after_all = pod.containers;
  for (const ContainerChange& change : planned.containers) {
    const std::string& name = state.demand.containers[change.container].name;
    auto it = std::find_if(after_all.begin(), after_all.end(),
                           [&](const DeclaredResources& c) { return c.name == name; });
    if (it == after_all.end()) continue;
    const DeclaredResources before = *it;
    DeclaredResources after = before;
    after.cpu_request_millis = change.after.cpu_request_millis;
    after.memory_request_bytes = change.after.memory_request_bytes;
    if (before.memory_limit_bytes) after.memory_limit_bytes = change.after.memory_limit_bytes;
    // A CPU limit the pod still declares caps the request (the API rejects request > limit).
    const bool capped = after.cpu_limit_millis && after.cpu_request_millis &&
                        *after.cpu_request_millis > *after.cpu_limit_millis;
    if (capped) after.cpu_request_millis = after.cpu_limit_millis;
    // The plan's threshold again, on what is sent once capped.
    if (!ResizeWorthMaking(Values(before), Values(after), threshold)) continue;
    if (capped) {
      // The plan's message has the uncapped number; the log and the Event say what is sent.
      absl::StrAppend(&resize.message, "; ", name, ": cpu request capped at its CPU limit ",
                      FormatCpuMillis(*after.cpu_limit_millis));
    }
    *it = after;
    resize.containers.push_back({name, before, after, change.last_shrink});
  }
  if (resize.containers.empty()) {
    why = absl::StrCat("requests within ", DescribeThreshold(threshold),
                       " of the guarded sizes once capped by the declared CPU limit");
    return std::nullopt;
  }
  if (pod.pod_level.Any()) return WithPodLevel(pod, state, std::move(resize), after_all, why);
  const QosClass qos_before = QosWithInit(pod.containers, pod.init_containers);
  const QosClass qos_after = QosWithInit(after_all, pod.init_containers);
  if (qos_before != qos_after) {
    why = absl::StrCat("the resize would change the QoS class from ", QosClassName(qos_before),
                       " to ", QosClassName(qos_after), ", which the API forbids");
    return std::nullopt;
  }
  return resize;
}

}  // namespace

std::string ShrinkKey(absl::string_view uid, absl::string_view container) {
  return absl::StrCat(uid, "/", container);
}

NodePlan PlanNode(const NodeReport& report, const ApiView& api, const ActionConfig& config,
                  SustainedConditions& cpu_over, absl::Time now) {
  NodePlan plan;
  std::vector<std::shared_ptr<const ApiPod>> api_pods;
  std::vector<PodState> states;
  api_pods.reserve(report.pods.size());
  states.reserve(report.pods.size());
  for (const ReportedPod& reported : report.pods) {
    std::shared_ptr<const ApiPod> pod = api.find(reported);
    // Only the API's own pod is acted on: not a namesake (another UID), not a pod the API
    // places elsewhere or nowhere, and not one the report could not be checked for.
    if (pod && (!reported.verified || reported.uid.empty() || pod->uid != reported.uid ||
                pod->node != report.node)) {
      pod.reset();
    }
    states.push_back(StateOf(reported, pod.get(), api, now));
    api_pods.push_back(std::move(pod));
  }
  absl::StatusOr<NodeActions> actions =
      PlanNodeActions(report.node, report.allocatable, states, now, config, cpu_over);
  if (!actions.ok()) {
    plan.skipped.push_back({report.node, "node", std::string(actions.status().message())});
    return plan;
  }
  const auto key = [&](size_t pod) { return states[pod].demand.Key(); };
  for (const SkippedPodAction& skipped : actions->skipped) {
    plan.skipped.push_back({key(skipped.pod), skipped.action, skipped.why});
  }
  for (const PlannedPodResize& planned : actions->resizes) {
    std::string why;
    std::optional<PlannedResize> resize = ToApiResize(*api_pods[planned.pod], states[planned.pod],
                                                      planned, config.guard.resize_threshold, why);
    if (resize) {
      plan.resizes.push_back(*std::move(resize));
    } else {
      plan.skipped.push_back({key(planned.pod), "resize", why});
    }
  }
  for (const ResourceOutcome* outcome :
       {&actions->optimization.memory, &actions->optimization.cpu}) {
    if (outcome->shortfall.has_value()) plan.shortfalls.push_back(outcome->shortfall->message);
  }
  for (const PlannedPodEviction& eviction : actions->evictions) {
    const ApiPod& pod = *api_pods[eviction.pod];
    plan.evictions.push_back({pod.pod_namespace, pod.name, pod.uid, report.node,
                              "NodeOverCommitted", eviction.reason.message, ControllerKey(pod),
                              pod.ready});
  }
  return plan;
}

}  // namespace headroom::extender
