#pragma once

// The NRI Plugin service of headroom-nri: what it answers when containerd calls it. Handlers
// only read and update NodeState and run the pure policy, so each answers in microseconds; any
// failure inside answers "no adjustment" (fail open) and logs why -- an error reply would fail
// the container's creation. UpdateContainers is never called from here (containerd holds one
// lock across events and plugin updates); the sampler thread does that.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "kubelet-hook/container_policy.h"
#include "kubelet-hook/node_state.h"
#include "nri/v1alpha1/api.pb.h"
#include "ttrpc/ttrpc.pb.h"

namespace headroom::nri {

namespace napi = ::nri::pkg::api::v1alpha1;

inline constexpr char kPluginService[] = "nri.pkg.api.v1alpha1.Plugin";
inline constexpr char kRuntimeService[] = "nri.pkg.api.v1alpha1.Runtime";

// Event bits (1 << (event - 1)): CreateContainer, UpdateContainer, RemoveContainer,
// RemovePodSandbox. All within NRI v0.3's 0x7ff, so valid on containerd 1.7+.
inline constexpr int32_t kSubscribedEvents = 0x0008 | 0x0080 | 0x0400 | 0x0004;

struct PluginConfig {
  bool dry_run = false;  // compute and log, change nothing
  std::vector<std::string> excluded_namespaces = {"kube-system"};
  // Guard rails (warm-up, floors, bounded shrinking); guard.allow_below_declared is the
  // cluster-wide default of headroom.dev/allow-below-declared.
  GuardRailConfig guard = {};
};

class NriPlugin {
 public:
  NriPlugin(PluginConfig config, NodeState& state, std::function<absl::Time()> clock);

  // Answers one ttrpc request from the runtime with a Response body.
  std::string Handle(const ttrpc::Request& request);

  // Plan for a container as NRI describes it, against its current resources; `running` is
  // false for a container being created (no shrink steps).
  ResourcePlan PlanFor(const TrackedContainer& container, absl::Time now,
                       bool running = true) const;

  const PluginConfig& config() const { return config_; }

  // What the runtime said in Configure (empty before).
  const std::string& runtime() const { return runtime_; }
  uint64_t requests_served() const { return requests_served_; }
  uint64_t adjustments_made() const { return adjustments_made_; }

 private:
  std::string Configure(const std::string& payload);
  std::string Synchronize(const std::string& payload);
  std::string CreateContainer(const std::string& payload);
  std::string UpdateContainer(const std::string& payload);
  std::string StateChange(const std::string& payload);

  TrackedContainer Track(const napi::PodSandbox& pod, const napi::Container& container) const;

  PluginConfig config_;
  NodeState& state_;
  std::function<absl::Time()> clock_;
  std::string runtime_;
  // Pods seen in Synchronize with more = true, kept until the final part arrives.
  std::vector<napi::PodSandbox> pending_pods_;
  std::vector<napi::Container> pending_containers_;
  uint64_t requests_served_ = 0;
  uint64_t adjustments_made_ = 0;
};

// "ns/pod container c (stats key): cpu shares 1024 -> 256, ...; reasons": the log line of a
// change headroom-nri makes to `container`, from `before`.
std::string DescribeContainerChange(const TrackedContainer& container,
                                    const RuntimeResources& before, const ResourcePlan& plan);

// Conversions between NRI's LinuxResources and the policy's view.
RuntimeResources ResourcesFrom(const napi::LinuxResources& resources);
void ApplyPlan(const ResourcePlan& plan, napi::LinuxResources& resources);
RuntimeResources WithPlan(RuntimeResources declared, const ResourcePlan& plan);
// `current` with what `applied` (an update the runtime accepted) sets.
RuntimeResources WithResources(RuntimeResources declared, const napi::LinuxResources& applied);

}  // namespace headroom::nri
