#pragma once

// Between NRI's LinuxResources and the policy's view of a container's resources
// (container_policy.h), and the log line of a change: used by the plugin at NRI events and by
// the sampler for the periodic updates.

#include <string>

#include "absl/strings/string_view.h"
#include "kubelet-hook/container_policy.h"
#include "kubelet-hook/node_state.h"
#include "nri/v1alpha1/api.pb.h"

namespace headroom::nri {

namespace napi = ::nri::pkg::api::v1alpha1;

// "ns/pod container c (stats key): cpu shares 1024 -> 256, ...; reasons": the log line of a
// change headroom-nri makes to `container`, from `before`.
std::string DescribeContainerChange(const TrackedContainer& container,
                                    const RuntimeResources& before, const ResourcePlan& plan);

// The cgroup v2 file of the kubelet's Memory QoS throttling point, in LinuxResources.unified.
inline constexpr absl::string_view kMemoryHighKey = "memory.high";

// Conversions between NRI's LinuxResources and the policy's view.
RuntimeResources ResourcesFrom(const napi::LinuxResources& resources);
void ApplyPlan(const ResourcePlan& plan, napi::LinuxResources& resources);
RuntimeResources WithPlan(RuntimeResources declared, const ResourcePlan& plan);
// `current` with what `applied` (an update the runtime accepted) sets.
RuntimeResources WithResources(RuntimeResources declared, const napi::LinuxResources& applied);

}  // namespace headroom::nri
