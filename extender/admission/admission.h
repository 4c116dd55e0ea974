#pragma once

// The mutating admission webhook (phase 1 of seed 000): a new pod's containers are sized
// from their workload's history before the scheduler sees them, through the guard rails
// (shared/node_actions.h's SizeNewContainer, shared/guard_rails.h):
//   CPU request    = the CPU peak (at least the daily peak of the base),
//   memory request = the memory peak (likewise),
//   memory limit   = 2 x max(7-day max, memory at OOM), at least the request and the floor,
//   CPU limit      = removed (kubelet then puts no CPU quota on the pod's cgroup either); a
//                    container that only had a limit keeps it as its request;
// never below the declared requests unless the pod opted in (headroom.dev/allow-below-
// declared). A container whose workload has been observed for less than the warm-up
// (--min-history) keeps its declared values (only its CPU limit goes). The original values
// are written to headroom.dev/declared, so later resizes know the declared floor. Nothing is done
// for pods in excluded namespaces, pods annotated headroom.dev/disable, headroom.dev/exclude,
// mode recommend or policy static, or operations other than a Pod CREATE. What was changed
// is written, with the numbers, to the pod's headroom.dev/admission annotation. Every pod
// created outside the excluded namespaces gets headroom.dev/workload, its workload key as
// decided here from its owner references, which headroom-nri files its statistics under
// (shared/workload_key.h).
//
// Wire format: admission.k8s.io/v1 AdmissionReview in, AdmissionReview out with a
// base64 JSONPatch (k8s.io/api/admission/v1 types; patchType "JSONPatch"). A v1beta1 review
// (same fields) is answered as v1beta1: the API server refuses an answer in another version.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "extender/kube/policy_layers.h"
#include "nlohmann/json.hpp"
#include "shared/guard_rails.h"
#include "shared/hpa.h"
#include "shared/usage_stats.h"

namespace headroom::extender {

struct AdmissionOptions {
  std::vector<std::string> excluded_namespaces = {"kube-system", "kube-public", "kube-node-lease"};
  bool strip_cpu_limits = true;
  GuardRailConfig guard;  // guard.allow_below_declared: the cluster-wide default
  // The HPAs of a workload ("namespace/Kind/name"), and what to do about them (shared/hpa.h);
  // unset: no HPA is known.
  std::function<std::optional<HpaScaling>(const std::string& workload_key)> hpa_for;
  HpaResourcesMode hpa_mode = HpaResourcesMode::kKeep;
  AdoptionStep default_step = AdoptionStep::kInPlace;  // the cluster's step (--default-mode)
  // The owners' and Namespaces' annotations (the policy's middle layers); null: none.
  PolicyLayers layers;
};

using WorkloadContainerStats = UsageSnapshot;
// Statistics of one container of a workload ("ns/Kind/name", container name).
using StatsLookup = std::function<std::optional<WorkloadContainerStats>(
    const std::string& workload_key, const std::string& container)>;

struct ContainerAdmission {
  std::string name;
  std::string before;  // "cpu 100m/limit 500m, memory 64Mi/limit 128Mi"
  std::string after;
  bool from_history = false;          // sized from statistics (else only the CPU limit was removed)
  std::vector<Reason> guard_reasons;  // guard rails that shaped it (warm-up, floors)
};

struct AdmissionDecision {
  std::string uid;  // the review's request.uid, echoed in the response
  std::string api_version = "admission.k8s.io/v1";  // the review's, echoed in the response
  std::string pod;           // "namespace/name" (or "namespace/generateName*")
  std::string workload_key;  // "" when not a pod
  std::vector<ContainerAdmission> changes;
  std::string skipped;     // why nothing was changed; "" when there are changes
  nlohmann::json patch;    // JSONPatch (an array; empty when nothing changes)
  std::string annotation;  // the headroom.dev/admission value written by the patch
  std::string declared;    // the headroom.dev/declared value written by the patch
  // Annotations headroom ignored (typos, bad values) and why: shown to the user by kubectl
  // as the AdmissionReview's warnings, whatever else is decided.
  std::vector<std::string> warnings;
};

// Decides what to do with an AdmissionReview. InvalidArgument (answer 400) when the body is
// not an admission.k8s.io/v1 (or v1beta1) AdmissionReview with a request and uid; a pod it cannot
// read is allowed unchanged, with the reason in `skipped` (the API must never be blocked by
// headroom).
absl::StatusOr<AdmissionDecision> DecideAdmission(const nlohmann::json& review,
                                                  const StatsLookup& stats,
                                                  const AdmissionOptions& options);

// The AdmissionReview answer: always allowed; carries the patch when `apply` and there is one
// (dry run and the kill switch answer with no patch), and the decision's warnings.
nlohmann::json AdmissionResponse(const AdmissionDecision& decision, bool apply);

}  // namespace headroom::extender
