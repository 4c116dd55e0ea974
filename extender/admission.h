#pragma once

// The mutating admission webhook (phase 1 of seed 000): a new pod's containers are sized
// from their workload's history before the scheduler sees them:
//   CPU request    = the CPU peak,
//   memory request = the memory peak,
//   memory limit   = 2 x max(7-day max, memory at OOM), at least the request,
//   CPU limit      = removed (kubelet then puts no CPU quota on the pod's cgroup either); a
//                    container that only had a limit keeps it as its request.
// A container without history keeps its requests (only its CPU limit goes). Nothing is done
// for pods in excluded namespaces, pods annotated headroom.dev/disable, headroom.dev/exclude,
// mode recommend or policy static, or operations other than a Pod CREATE. What was changed
// is written, with the numbers, to the pod's headroom.dev/admission annotation.
//
// Wire format: admission.k8s.io/v1 AdmissionReview in, AdmissionReview out with a
// base64 JSONPatch (k8s.io/api/admission/v1 types; patchType "JSONPatch").

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "shared/usage_stats.h"

namespace headroom::extender {

struct AdmissionOptions {
  std::vector<std::string> excluded_namespaces = {"kube-system", "kube-public", "kube-node-lease"};
  bool strip_cpu_limits = true;
};

struct WorkloadContainerStats {
  std::optional<CpuStats> cpu;
  std::optional<MemoryStats> memory;
};
// Statistics of one container of a workload ("ns/Kind/name", container name).
using StatsLookup = std::function<std::optional<WorkloadContainerStats>(
    const std::string& workload_key, const std::string& container)>;

struct ContainerAdmission {
  std::string name;
  std::string before;  // "cpu 100m/limit 500m, memory 64Mi/limit 128Mi"
  std::string after;
  bool from_history = false;  // sized from statistics (else only the CPU limit was removed)
};

struct AdmissionDecision {
  std::string uid;           // the review's request.uid, echoed in the response
  std::string pod;           // "namespace/name" (or "namespace/generateName*")
  std::string workload_key;  // "" when not a pod
  std::vector<ContainerAdmission> changes;
  std::string skipped;     // why nothing was changed; "" when there are changes
  nlohmann::json patch;    // JSONPatch (an array; empty when nothing changes)
  std::string annotation;  // the headroom.dev/admission value written by the patch
};

// Decides what to do with an AdmissionReview. InvalidArgument (answer 400) when the body is
// not an AdmissionReview with a request and uid; a pod it cannot read is allowed unchanged,
// with the reason in `skipped` (the API must never be blocked by headroom).
absl::StatusOr<AdmissionDecision> DecideAdmission(const nlohmann::json& review,
                                                  const StatsLookup& stats,
                                                  const AdmissionOptions& options);

// The AdmissionReview answer: always allowed; carries the patch when `apply` and there is one
// (dry run and the kill switch answer with no patch).
nlohmann::json AdmissionResponse(const AdmissionDecision& decision, bool apply);

}  // namespace headroom::extender
