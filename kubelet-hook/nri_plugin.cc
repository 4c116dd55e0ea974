#include "kubelet-hook/nri_plugin.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shared/annotations.h"
#include "shared/log_text.h"
#include "shared/workload_key.h"
#include "shared/workload_policy.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

namespace {

// The labels the workload key reads (shared/workload_key.h).
PodLabels KeyLabels(const google::protobuf::RepeatedPtrField<napi::StringEntry>& entries) {
  PodLabels out;
  for (const napi::StringEntry& entry : entries) {
    if (IsWorkloadKeyLabel(entry.key())) out.emplace_back(entry.key(), entry.value());
  }
  return out;
}

// One log line per container headroom changes, with the old and new values and the reasons.
void LogChange(absl::string_view event, const TrackedContainer& container,
               const RuntimeResources& before, const ResourcePlan& plan) {
  spdlog::info("nri: {} {}", std::string(event), DescribeContainerChange(container, before, plan));
}

}  // namespace

NriPlugin::NriPlugin(PluginConfig config, NodeState& state, std::function<absl::Time()> clock,
                     std::function<void()> settle_ooms)
    : config_(std::move(config)),
      state_(state),
      clock_(std::move(clock)),
      settle_ooms_(std::move(settle_ooms)) {}

void NriPlugin::SettleOoms() const {
  if (settle_ooms_) settle_ooms_();
}

TrackedContainer NriPlugin::Track(const napi::PodSandbox& pod, const napi::Container& container,
                                  std::vector<Reason>* warnings) const {
  TrackedContainer tracked;
  tracked.id = container.id();
  tracked.name = container.name();
  tracked.pod_id = pod.id().empty() ? container.pod_sandbox_id() : pod.id();
  tracked.pod_uid = pod.uid();
  tracked.pod_namespace = pod.namespace_();
  tracked.pod_name = pod.name();
  Annotations annotations;
  for (const napi::StringEntry& entry : pod.annotations()) {
    annotations[entry.key()] = entry.value();
  }
  const auto workload_annotation = annotations.find(kWorkloadAnnotation);
  tracked.workload_key = WorkloadKeyFromSandbox(
      pod.namespace_(), pod.name(), KeyLabels(pod.labels()),
      workload_annotation == annotations.end() ? "" : workload_annotation->second);
  tracked.stats_key = WorkloadContainerKey(tracked.workload_key, container.name());
  const std::string kind = WorkloadKind(tracked.workload_key);
  tracked.daemonset = kind == "DaemonSet";
  if (container.has_linux()) {
    tracked.cgroups_path = container.linux().cgroups_path();
    tracked.current = ResourcesFrom(container.linux().resources());
    tracked.declared = tracked.current;
  }
  PolicyDefaults defaults;
  defaults.allow_below_declared = config_.guard.allow_below_declared;
  defaults.step = config_.default_step;
  // The node knows the owner kind from the pod's labels, not its replica count: the ranking
  // comes from the annotation and the kind here, and the extender resolves it fully. The step
  // the webhook resolved at admission (from the owner, the Namespace or the cluster) stands in
  // for the layers the node cannot see.
  Annotations admitted;
  if (const auto it = annotations.find(kAdmittedModeAnnotation); it != annotations.end()) {
    admitted.emplace(std::string(kModeAnnotation), it->second);
  }
  const WorkloadPolicy policy =
      ResolveWorkloadPolicy(admitted, annotations, kind, std::nullopt, defaults);
  tracked.step = policy.step;
  tracked.allow_below_declared = policy.allow_below_declared;
  tracked.tuning = policy.tuning;
  if (warnings != nullptr) *warnings = policy.warnings;
  tracked.ranking = policy.ranking.ranking;
  const bool namespace_excluded =
      std::find(config_.excluded_namespaces.begin(), config_.excluded_namespaces.end(),
                pod.namespace_()) != config_.excluded_namespaces.end();
  tracked.excluded = policy.disabled || policy.excluded || policy.policy == SizingPolicy::kStatic ||
                     namespace_excluded;
  tracked.enforce = !config_.dry_run;
  return tracked;
}

ResourcePlan NriPlugin::PlanFor(const TrackedContainer& container, absl::Time now,
                                bool running) const {
  return PlanTrackedContainer(state_, container, config_.guard, now, running);
}

NriHandlers NriPlugin::Handlers() {
  NriHandlers handlers;
  handlers.synchronize = [this](const std::vector<napi::PodSandbox>& pods,
                                const std::vector<napi::Container>& containers) {
    return Synchronize(pods, containers);
  };
  handlers.create_container = [this](const napi::CreateContainerRequest& request) {
    return CreateContainer(request);
  };
  handlers.update_container = [this](const napi::UpdateContainerRequest& request) {
    return UpdateContainer(request);
  };
  handlers.remove_container = [this](const napi::Container& c) { RemoveContainer(c); };
  handlers.remove_pod_sandbox = [this](const napi::PodSandbox& pod) { RemovePodSandbox(pod); };
  return handlers;
}

napi::SynchronizeResponse NriPlugin::Synchronize(const std::vector<napi::PodSandbox>& pods,
                                                 const std::vector<napi::Container>& containers) {
  SettleOoms();
  napi::SynchronizeResponse reply;
  const absl::Time now = clock_();
  size_t updates = 0;
  absl::flat_hash_map<std::string, const napi::PodSandbox*> pods_by_id;
  for (const napi::PodSandbox& pod : pods) pods_by_id.emplace(pod.id(), &pod);
  static const napi::PodSandbox kNoPod;
  for (const napi::Container& container : containers) {
    const auto pod = pods_by_id.find(container.pod_sandbox_id());
    TrackedContainer tracked = Track(pod == pods_by_id.end() ? kNoPod : *pod->second, container);
    if (container.state() == napi::CONTAINER_STOPPED) continue;
    if (std::optional<TrackedContainer> known = state_.Get(tracked.id); known.has_value()) {
      CarrySamplerState(*known, tracked);
    } else if (std::optional<ContainerRecord> record = state_.RestoredContainer(tracked.id)) {
      // Adjusted by this plugin before a restart: the runtime shows our values, the
      // checkpoint kubelet's, and when they last shrank.
      tracked.declared = record->declared;
      tracked.last_shrink = record->last_shrink;
    }
    const ResourcePlan plan = WithoutNoOps(PlanFor(tracked, now), tracked.current);
    if (plan.changes_anything()) {
      napi::ContainerUpdate* update = reply.add_update();
      update->set_container_id(tracked.id);
      update->set_ignore_failure(true);
      ApplyPlan(plan, *update->mutable_linux()->mutable_resources());
      LogChange("synchronize", tracked, tracked.current, plan);
      tracked.current = WithPlan(tracked.current, plan);
      tracked.last_shrink = plan.last_shrink;
      ++updates;
    }
    state_.Upsert(tracked);
  }
  // What the checkpoint held of containers the runtime no longer runs is of no further use.
  const size_t forgotten = state_.ForgetRestoredContainers();
  spdlog::info(
      "nri: synchronized {} pods, {} containers; {} updated; {} checkpointed container "
      "records dropped (every running container is tracked now)",
      pods.size(), containers.size(), updates, forgotten);
  adjustments_made_ += updates;
  return reply;
}

napi::CreateContainerResponse NriPlugin::CreateContainer(
    const napi::CreateContainerRequest& request) {
  SettleOoms();  // a restart's kill first: it raises this container's memory limit
  std::vector<Reason> warnings;
  TrackedContainer tracked = Track(request.pod(), request.container(), &warnings);
  for (const Reason& warning : warnings) {
    spdlog::warn("nri: create {}/{} {}: {}", LogText(tracked.pod_namespace),
                 LogText(tracked.pod_name), LogText(tracked.name), LogText(warning.message));
  }
  tracked.oom_kills_seen = 0;  // a new cgroup: every kill from now on is this container's
  const ResourcePlan plan =
      WithoutNoOps(PlanFor(tracked, clock_(), /*running=*/false), tracked.current);
  napi::CreateContainerResponse reply;
  LogChange("create", tracked, tracked.current, plan);
  if (plan.changes_anything()) {
    ApplyPlan(plan, *reply.mutable_adjust()->mutable_linux()->mutable_resources());
    tracked.current = WithPlan(tracked.current, plan);
    ++adjustments_made_;
  }
  state_.Upsert(tracked);
  return reply;
}

napi::UpdateContainerResponse NriPlugin::UpdateContainer(
    const napi::UpdateContainerRequest& request) {
  TrackedContainer tracked = Track(request.pod(), request.container());
  if (std::optional<TrackedContainer> known = state_.Get(tracked.id); known.has_value()) {
    CarrySamplerState(*known, tracked);
  }
  // The resources kubelet asks for now (an in-place resize): they are the new declared values;
  // where they conflict with the policy, the policy wins. A resize that lowers a value (the
  // actuator's shrink step) is this hour's step: the plugin does not take another on top.
  const RuntimeResources before = tracked.current;
  tracked.current = ResourcesFrom(request.linux_resources());
  tracked.declared = tracked.current;
  const absl::Time now = clock_();
  if (before.cpu_shares && tracked.current.cpu_shares &&
      *tracked.current.cpu_shares < *before.cpu_shares) {
    tracked.last_shrink.cpu_request = now;
  }
  if (before.memory_limit_bytes && tracked.current.memory_limit_bytes &&
      *tracked.current.memory_limit_bytes < *before.memory_limit_bytes) {
    tracked.last_shrink.memory_limit = now;
  }
  const ResourcePlan plan = WithoutNoOps(PlanFor(tracked, now), tracked.current);
  napi::UpdateContainerResponse reply;
  LogChange("update", tracked, tracked.current, plan);
  if (plan.changes_anything()) {
    napi::ContainerUpdate* update = reply.add_update();
    update->set_container_id(tracked.id);
    ApplyPlan(plan, *update->mutable_linux()->mutable_resources());
    tracked.current = WithPlan(tracked.current, plan);
    tracked.last_shrink = plan.last_shrink;
    ++adjustments_made_;
  }
  state_.Upsert(tracked);
  return reply;
}

void NriPlugin::RemoveContainer(const napi::Container& container) {
  SettleOoms();
  state_.Remove(container.id());
}

void NriPlugin::RemovePodSandbox(const napi::PodSandbox& pod) {
  if (pod.id().empty()) return;  // would match every container whose pod is unknown
  SettleOoms();
  if (const size_t removed = state_.RemovePod(pod.id()); removed > 0) {
    spdlog::info("nri: pod {}/{} removed: forgot {} containers whose removal was not seen",
                 LogText(pod.namespace_()), LogText(pod.name()), removed);
  }
}

}  // namespace headroom::nri
