#pragma once

// headroom-nri's NRI plugin: what it decides when containerd creates, updates or removes a
// container, as typed handlers for the stub (nri_stub.h, which owns the wire). Handlers only
// read and update NodeState and run the pure policy, so each answers in microseconds; any
// failure inside answers "no adjustment" (fail open) and logs why. UpdateContainers is never
// called from here (containerd holds one lock across events and plugin updates); the node
// loop does that.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "kubelet-hook/container_policy.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_resources.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "nri/v1alpha1/api.pb.h"
#include "shared/reason.h"

namespace headroom::nri {

struct PluginConfig {
  bool dry_run = false;  // compute and log, change nothing
  // The step of a pod whose annotations name none (--default-mode; the extender's too).
  AdoptionStep default_step = AdoptionStep::kInPlace;
  std::vector<std::string> excluded_namespaces = {"kube-system"};
  // Guard rails (warm-up, floors, bounded shrinking); guard.allow_below_declared is the
  // cluster-wide default of headroom.dev/allow-below-declared.
  GuardRailConfig guard = {};
};

class NriPlugin {
 public:
  // `settle_ooms`, when given, is called before a handler replaces a container's record (a
  // restart of the same container in the same pod) or forgets one, so that an OOM kill already
  // in the kernel log is recorded against the container it killed, and the restart it caused
  // is created with the raised memory limit (Sampler::SettleLoggedOoms).
  NriPlugin(PluginConfig config, NodeState& state, std::function<absl::Time()> clock,
            std::function<void()> settle_ooms = nullptr);

  // The handlers the stub calls: CreateContainer, UpdateContainer, RemoveContainer,
  // RemovePodSandbox and Synchronize (so the plugin subscribes to those four events).
  NriHandlers Handlers();

  napi::SynchronizeResponse Synchronize(const std::vector<napi::PodSandbox>& pods,
                                        const std::vector<napi::Container>& containers);
  napi::CreateContainerResponse CreateContainer(const napi::CreateContainerRequest& request);
  napi::UpdateContainerResponse UpdateContainer(const napi::UpdateContainerRequest& request);
  void RemoveContainer(const napi::Container& container);
  void RemovePodSandbox(const napi::PodSandbox& pod);

  // Plan for a container as NRI describes it, against its current resources; `running` is
  // false for a container being created (no shrink steps).
  ResourcePlan PlanFor(const TrackedContainer& container, absl::Time now,
                       bool running = true) const;

  const PluginConfig& config() const { return config_; }
  uint64_t adjustments_made() const { return adjustments_made_.load(); }

 private:
  // `warnings`, when given, receives the pod's ignored annotations and why.
  TrackedContainer Track(const napi::PodSandbox& pod, const napi::Container& container,
                         std::vector<Reason>* warnings = nullptr) const;

  const PluginConfig config_;
  NodeState& state_;
  void SettleOoms() const;

  const std::function<absl::Time()> clock_;
  const std::function<void()> settle_ooms_;
  std::atomic<uint64_t> adjustments_made_{0};
};

}  // namespace headroom::nri
