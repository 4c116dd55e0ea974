#include "kubelet-hook/nri_plugin.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kubelet-hook/ttrpc_codec.h"
#include "kubelet-hook/workload_identity.h"
#include "shared/workload_policy.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

namespace {

template <typename Message>
bool Parse(const std::string& payload, Message& message) {
  return message.ParseFromString(payload);
}

std::string Ok(const google::protobuf::MessageLite& reply) {
  return EncodeOkResponse(reply.SerializeAsString());
}

std::string EmptyOk() { return EncodeOkResponse(""); }

LabelList ToList(const google::protobuf::RepeatedPtrField<napi::StringEntry>& entries) {
  LabelList out;
  out.reserve(entries.size());
  for (const napi::StringEntry& entry : entries) out.emplace_back(entry.key(), entry.value());
  return out;
}

std::string Reasons(const ResourcePlan& plan) {
  std::vector<std::string> parts;
  parts.reserve(plan.reasons.size());
  for (const Reason& reason : plan.reasons) parts.push_back(reason.message);
  return absl::StrJoin(parts, "; ");
}

}  // namespace

DeclaredResources DeclaredFrom(const napi::LinuxResources& resources) {
  DeclaredResources declared;
  if (resources.has_cpu()) {
    const napi::LinuxCPU& cpu = resources.cpu();
    if (cpu.has_shares()) declared.cpu_shares = cpu.shares().value();
    if (cpu.has_quota()) declared.cpu_quota = cpu.quota().value();
    if (cpu.has_period()) declared.cpu_period = cpu.period().value();
  }
  if (resources.has_memory() && resources.memory().has_limit() &&
      resources.memory().limit().value() > 0) {
    declared.memory_limit_bytes = resources.memory().limit().value();
  }
  return declared;
}

void ApplyPlan(const ResourcePlan& plan, napi::LinuxResources& resources) {
  if (plan.cpu_quota.has_value())
    resources.mutable_cpu()->mutable_quota()->set_value(*plan.cpu_quota);
  if (plan.cpu_shares.has_value()) {
    resources.mutable_cpu()->mutable_shares()->set_value(*plan.cpu_shares);
  }
  if (plan.memory_limit_bytes.has_value()) {
    resources.mutable_memory()->mutable_limit()->set_value(*plan.memory_limit_bytes);
  }
}

DeclaredResources WithPlan(DeclaredResources declared, const ResourcePlan& plan) {
  if (plan.cpu_quota.has_value()) declared.cpu_quota = plan.cpu_quota;
  if (plan.cpu_shares.has_value()) declared.cpu_shares = plan.cpu_shares;
  if (plan.memory_limit_bytes.has_value()) declared.memory_limit_bytes = plan.memory_limit_bytes;
  return declared;
}

DeclaredResources WithResources(DeclaredResources declared, const napi::LinuxResources& applied) {
  const DeclaredResources set = DeclaredFrom(applied);
  if (set.cpu_shares.has_value()) declared.cpu_shares = set.cpu_shares;
  if (set.cpu_quota.has_value()) declared.cpu_quota = set.cpu_quota;
  if (set.cpu_period.has_value()) declared.cpu_period = set.cpu_period;
  if (set.memory_limit_bytes.has_value()) declared.memory_limit_bytes = set.memory_limit_bytes;
  return declared;
}

NriPlugin::NriPlugin(PluginConfig config, NodeState& state, std::function<absl::Time()> clock)
    : config_(std::move(config)), state_(state), clock_(std::move(clock)) {}

TrackedContainer NriPlugin::Track(const napi::PodSandbox& pod,
                                  const napi::Container& container) const {
  TrackedContainer tracked;
  tracked.id = container.id();
  tracked.name = container.name();
  tracked.pod_id = pod.id().empty() ? container.pod_sandbox_id() : pod.id();
  tracked.pod_uid = pod.uid();
  tracked.pod_namespace = pod.namespace_();
  tracked.pod_name = pod.name();
  tracked.workload_key = WorkloadKeyFromPod(pod.namespace_(), pod.name(), ToList(pod.labels()));
  tracked.stats_key = WorkloadContainerKey(tracked.workload_key, container.name());
  tracked.daemonset = absl::StrContains(tracked.workload_key, "/DaemonSet/");
  if (container.has_linux()) {
    tracked.cgroups_path = container.linux().cgroups_path();
    tracked.declared = DeclaredFrom(container.linux().resources());
  }
  Annotations annotations;
  for (const napi::StringEntry& entry : pod.annotations()) {
    annotations[entry.key()] = entry.value();
  }
  const WorkloadPolicy policy = ResolveWorkloadPolicy({}, annotations, "", std::nullopt);
  const bool namespace_excluded =
      std::find(config_.excluded_namespaces.begin(), config_.excluded_namespaces.end(),
                pod.namespace_()) != config_.excluded_namespaces.end();
  tracked.excluded = policy.disabled || policy.excluded || namespace_excluded;
  tracked.enforce = !config_.dry_run && !policy.recommend_only;
  return tracked;
}

ResourcePlan NriPlugin::PlanFor(const TrackedContainer& container, absl::Time now) const {
  ContainerPolicyInput input;
  input.declared = container.declared;
  input.memory = state_.MemoryHistory(container.stats_key, now);
  input.cpu_request_millis = state_.SizedCpu(container.stats_key);
  input.memory_usage_bytes = container.memory_usage_bytes;
  input.enforce = container.enforce;
  input.excluded = container.excluded;
  return PlanContainerResources(input);
}

std::string NriPlugin::Handle(const ttrpc::Request& request) {
  ++requests_served_;
  if (request.service() != kPluginService) {
    return EncodeErrorResponse(RpcCode::kUnimplemented,
                               absl::StrCat("service ", request.service()));
  }
  const std::string& method = request.method();
  if (method == "Configure") return Configure(request.payload());
  if (method == "Synchronize") return Synchronize(request.payload());
  if (method == "CreateContainer") return CreateContainer(request.payload());
  if (method == "UpdateContainer") return UpdateContainer(request.payload());
  // Not subscribed, but a runtime may still call it: nothing to adjust.
  if (method == "StopContainer") return Ok(napi::StopContainerResponse());
  if (method == "StateChange") return StateChange(request.payload());
  if (method == "Shutdown") return EmptyOk();
  // NRI >= v0.12 falls back to StateChange for events whose dedicated call we do not serve.
  return EncodeErrorResponse(RpcCode::kUnimplemented, absl::StrCat("method ", method));
}

std::string NriPlugin::Configure(const std::string& payload) {
  napi::ConfigureRequest request;
  if (!Parse(payload, request)) {
    spdlog::warn("nri: undecodable Configure ({} bytes); subscribing anyway", payload.size());
  }
  runtime_ = absl::StrCat(request.runtime_name(), " ", request.runtime_version());
  spdlog::info("nri: configured by {} (request timeout {} ms)", runtime_,
               request.request_timeout());
  napi::ConfigureResponse reply;
  reply.set_events(kSubscribedEvents);
  return Ok(reply);
}

std::string NriPlugin::Synchronize(const std::string& payload) {
  napi::SynchronizeRequest request;
  if (!Parse(payload, request)) {
    spdlog::warn("nri: undecodable Synchronize ({} bytes): no updates", payload.size());
    return EmptyOk();
  }
  for (const auto& pod : request.pods()) pending_pods_.push_back(pod);
  for (const auto& container : request.containers()) pending_containers_.push_back(container);
  napi::SynchronizeResponse reply;
  if (request.more()) {  // every part but the last is answered with more = true, no updates
    reply.set_more(true);
    return Ok(reply);
  }
  const absl::Time now = clock_();
  size_t updates = 0;
  for (const napi::Container& container : pending_containers_) {
    const auto pod = std::find_if(pending_pods_.begin(), pending_pods_.end(), [&](const auto& p) {
      return p.id() == container.pod_sandbox_id();
    });
    TrackedContainer tracked =
        Track(pod == pending_pods_.end() ? napi::PodSandbox() : *pod, container);
    if (container.state() == napi::CONTAINER_STOPPED) continue;
    if (std::optional<TrackedContainer> known = state_.Get(tracked.id); known.has_value()) {
      CarrySamplerState(*known, tracked);
    }
    const ResourcePlan plan = WithoutNoOps(PlanFor(tracked, now), tracked.declared);
    if (plan.changes_anything()) {
      napi::ContainerUpdate* update = reply.add_update();
      update->set_container_id(tracked.id);
      update->set_ignore_failure(true);
      ApplyPlan(plan, *update->mutable_linux()->mutable_resources());
      tracked.declared = WithPlan(tracked.declared, plan);
      ++updates;
    }
    state_.Upsert(tracked);
  }
  spdlog::info("nri: synchronized {} pods, {} containers; {} updated", pending_pods_.size(),
               pending_containers_.size(), updates);
  adjustments_made_ += updates;
  pending_pods_.clear();
  pending_containers_.clear();
  return Ok(reply);
}

std::string NriPlugin::CreateContainer(const std::string& payload) {
  napi::CreateContainerRequest request;
  if (!Parse(payload, request)) {
    spdlog::warn("nri: undecodable CreateContainer ({} bytes): no adjustment", payload.size());
    return EmptyOk();
  }
  TrackedContainer tracked = Track(request.pod(), request.container());
  tracked.oom_kills_seen = 0;  // a new cgroup: every kill from now on is this container's
  const ResourcePlan plan = PlanFor(tracked, clock_());
  napi::CreateContainerResponse reply;
  if (plan.changes_anything()) {
    ApplyPlan(plan, *reply.mutable_adjust()->mutable_linux()->mutable_resources());
    tracked.declared = WithPlan(tracked.declared, plan);
    ++adjustments_made_;
  }
  spdlog::info("nri: create {}/{} container {} ({}): {}", tracked.pod_namespace, tracked.pod_name,
               tracked.name, tracked.stats_key, Reasons(plan));
  state_.Upsert(tracked);
  return Ok(reply);
}

std::string NriPlugin::UpdateContainer(const std::string& payload) {
  napi::UpdateContainerRequest request;
  if (!Parse(payload, request)) {
    spdlog::warn("nri: undecodable UpdateContainer ({} bytes): no adjustment", payload.size());
    return EmptyOk();
  }
  TrackedContainer tracked = Track(request.pod(), request.container());
  if (std::optional<TrackedContainer> known = state_.Get(tracked.id); known.has_value()) {
    CarrySamplerState(*known, tracked);
  }
  // The resources kubelet asks for now; where they conflict with the policy, the policy wins.
  tracked.declared = DeclaredFrom(request.linux_resources());
  const ResourcePlan plan = PlanFor(tracked, clock_());
  napi::UpdateContainerResponse reply;
  if (plan.changes_anything()) {
    napi::ContainerUpdate* update = reply.add_update();
    update->set_container_id(tracked.id);
    ApplyPlan(plan, *update->mutable_linux()->mutable_resources());
    tracked.declared = WithPlan(tracked.declared, plan);
    ++adjustments_made_;
  }
  spdlog::info("nri: update {}/{} container {}: {}", tracked.pod_namespace, tracked.pod_name,
               tracked.name, Reasons(plan));
  state_.Upsert(tracked);
  return Ok(reply);
}

std::string NriPlugin::StateChange(const std::string& payload) {
  napi::StateChangeEvent event;
  if (!Parse(payload, event)) return EmptyOk();
  if (event.event() == napi::REMOVE_CONTAINER) state_.Remove(event.container().id());
  return EmptyOk();
}

}  // namespace headroom::nri
