#pragma once

// The workload key: one rule, used by every part of headroom, so that a pod's statistics are
// filed under the same key on the node and in the cluster.
//
// A workload is "namespace/Kind/name" and a container of it "namespace/Kind/name#container":
// headroom-nri's statistics key, the extender's workload statistics and checkpoint key, and
// the key of ReportReply.history_seconds.
//
// Who decides: the cluster side, which sees the pod's owner references
// (WorkloadKeyFromController). The admission webhook writes that key on every pod it admits
// as the annotation headroom.dev/workload; the node, which sees only the sandbox's name,
// labels and annotations, takes it from there (WorkloadKeyFromSandbox). Only for a pod the
// webhook did not see does the node infer the owner from the labels and name shapes the
// controllers give their pods -- the same label rules the cluster side applies, so the two
// agree for Deployments, StatefulSets, DaemonSets, Jobs, CronJobs (every run one workload,
// CronJobOfJob), Argo Rollouts and
// bare pods even then; a bare ReplicaSet's or a custom controller's pods are "Pod" keys on
// the node until the webhook names them. The extender checks every reported key against its
// own (extender/reports/report_verification.h): a pod whose keys disagree is reported but its
// statistics never join the workload's.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace headroom {

// A pod's labels, as either side has them (only the few below are read).
using PodLabels = std::vector<std::pair<std::string, std::string>>;

// Labels the key rule reads; a decoder may keep only these.
inline constexpr absl::string_view kPodTemplateHashLabel = "pod-template-hash";
inline constexpr absl::string_view kRolloutsPodTemplateHashLabel = "rollouts-pod-template-hash";
inline constexpr absl::string_view kStatefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name";
inline constexpr absl::string_view kJobNameLabel = "batch.kubernetes.io/job-name";
inline constexpr absl::string_view kLegacyJobNameLabel = "job-name";
inline constexpr absl::string_view kControllerRevisionHashLabel = "controller-revision-hash";
inline constexpr absl::string_view kWorkloadKeyLabels[] = {
    kPodTemplateHashLabel, kRolloutsPodTemplateHashLabel, kStatefulSetPodNameLabel,
    kJobNameLabel,         kLegacyJobNameLabel,           kControllerRevisionHashLabel};
bool IsWorkloadKeyLabel(absl::string_view label);

// The controlling owner reference of a pod (controller: true).
struct ControllerRef {
  std::string kind;
  std::string name;
};

// The key from the pod's controlling owner (nullopt: none). A ReplicaSet named
// "<x>-<h>" whose pods carry pod-template-hash=h belongs to Deployment x (the hash changes
// with every rollout, the workload does not); with rollouts-pod-template-hash=h, to Argo
// Rollout x; otherwise it is the workload itself. Without an owner the pod is "ns/Pod/name".
std::string WorkloadKeyFromController(absl::string_view pod_namespace, absl::string_view pod_name,
                                      const PodLabels& labels,
                                      const std::optional<ControllerRef>& controller);

// The key the node gives a sandbox: `workload_annotation` (headroom.dev/workload, written by
// the webhook) when it is a well-formed key of the pod's own namespace; otherwise inferred:
// "<d>-<h>-<suffix>" with pod-template-hash=h is Deployment d (Rollout d with
// rollouts-pod-template-hash), statefulset.kubernetes.io/pod-name marks "<set>-<ordinal>",
// a job-name label names the Job (or the CronJob of a run, CronJobOfJob),
// controller-revision-hash marks DaemonSet "<set>-<suffix>";
// anything else is "ns/Pod/name".
std::string WorkloadKeyFromSandbox(absl::string_view pod_namespace, absl::string_view pod_name,
                                   const PodLabels& labels, absl::string_view workload_annotation);

// Whether `key` is "namespace/Kind/name" with all three parts non-empty, the namespace
// `pod_namespace`, and no '/' or '#' in Kind or name.
bool IsWorkloadKeyOfNamespace(absl::string_view key, absl::string_view pod_namespace);

// "<workload key>#<container name>".
std::string WorkloadContainerKey(absl::string_view workload_key, absl::string_view container);

// The CronJob whose run `job_name` is, or "". The CronJob controller names each run
// "<cronjob>-<scheduled time in minutes since the epoch>" (pkg/controller/cronjob's
// getJobName); a Job named so, with minutes between 2015 and 2100, is taken for a run of
// CronJob <cronjob>, so that its history outlives each run: its workload key is
// "namespace/CronJob/<cronjob>" on both sides. A Job a person names "<x>-<8 digits in that
// range>" is grouped the same way.
inline constexpr int64_t kCronJobMinutesFrom = 23667840;  // 2015-01-01T00:00Z
inline constexpr int64_t kCronJobMinutesTo = 68374080;    // 2100-01-01T00:00Z
absl::string_view CronJobOfJob(absl::string_view job_name);

// The Kind of a workload key "namespace/Kind/name"; "" for anything else.
std::string WorkloadKind(absl::string_view workload_key);

}  // namespace headroom
