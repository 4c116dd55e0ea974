#include "shared/workload_key.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace headroom {

absl::string_view CronJobOfJob(absl::string_view job_name) {
  const size_t dash = job_name.rfind('-');
  if (dash == absl::string_view::npos || dash == 0) return {};
  const absl::string_view digits = job_name.substr(dash + 1);
  if (digits.empty() || digits.size() > 10 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return {};
  }
  int64_t minutes = 0;
  for (char c : digits) minutes = minutes * 10 + (c - '0');
  if (minutes < kCronJobMinutesFrom || minutes > kCronJobMinutesTo) return {};
  return job_name.substr(0, dash);
}

namespace {

const std::string* Label(const PodLabels& labels, absl::string_view key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

// The non-empty value of `key`, or "".
absl::string_view LabelValue(const PodLabels& labels, absl::string_view key) {
  const std::string* value = Label(labels, key);
  return value == nullptr ? absl::string_view() : absl::string_view(*value);
}

// "<prefix>-<suffix>" -> prefix, when there is a dash and something on both sides.
absl::string_view StripLastDashPart(absl::string_view name) {
  const size_t dash = name.rfind('-');
  if (dash == absl::string_view::npos || dash == 0 || dash + 1 == name.size()) return {};
  return name.substr(0, dash);
}

// "<prefix>-<hash>" -> prefix, when `name` ends so and hash is not empty.
absl::string_view StripHashSuffix(absl::string_view name, absl::string_view hash) {
  if (hash.empty() || name.size() < hash.size() + 2) return {};
  const size_t dash = name.size() - hash.size() - 1;
  if (name[dash] != '-' || name.substr(dash + 1) != hash) return {};
  return name.substr(0, dash);
}

// The owner a pod template hash label names from a pod's name "<owner>-<hash>-<suffix>".
absl::string_view OwnerBeforeHash(absl::string_view pod_name, absl::string_view hash) {
  if (hash.empty()) return {};
  const std::string marker = absl::StrCat("-", hash, "-");
  const size_t at = pod_name.rfind(marker);
  if (at == absl::string_view::npos || at == 0) return {};
  return pod_name.substr(0, at);
}

absl::string_view JobName(const PodLabels& labels) {
  absl::string_view job = LabelValue(labels, kJobNameLabel);
  return job.empty() ? LabelValue(labels, kLegacyJobNameLabel) : job;
}

std::string Key(absl::string_view pod_namespace, absl::string_view kind, absl::string_view name) {
  return absl::StrCat(pod_namespace, "/", kind, "/", name);
}

// A Job's key: a CronJob's run "<cronjob>-<minutes>" is the CronJob, so that its history
// outlives each run; any other Job is itself.
std::string JobKey(absl::string_view pod_namespace, absl::string_view job) {
  if (absl::string_view cronjob = CronJobOfJob(job); !cronjob.empty()) {
    return Key(pod_namespace, "CronJob", cronjob);
  }
  return Key(pod_namespace, "Job", job);
}

}  // namespace

bool IsWorkloadKeyLabel(absl::string_view label) {
  return std::find(std::begin(kWorkloadKeyLabels), std::end(kWorkloadKeyLabels), label) !=
         std::end(kWorkloadKeyLabels);
}

std::string WorkloadKeyFromController(absl::string_view pod_namespace, absl::string_view pod_name,
                                      const PodLabels& labels,
                                      const std::optional<ControllerRef>& controller) {
  if (!controller.has_value() || controller->kind.empty() || controller->name.empty()) {
    return Key(pod_namespace, "Pod", pod_name);
  }
  if (controller->kind == "ReplicaSet") {
    if (absl::string_view deployment =
            StripHashSuffix(controller->name, LabelValue(labels, kPodTemplateHashLabel));
        !deployment.empty()) {
      return Key(pod_namespace, "Deployment", deployment);
    }
    if (absl::string_view rollout =
            StripHashSuffix(controller->name, LabelValue(labels, kRolloutsPodTemplateHashLabel));
        !rollout.empty()) {
      return Key(pod_namespace, "Rollout", rollout);
    }
  }
  if (controller->kind == "Job") return JobKey(pod_namespace, controller->name);
  return Key(pod_namespace, controller->kind, controller->name);
}

bool IsWorkloadKeyOfNamespace(absl::string_view key, absl::string_view pod_namespace) {
  if (pod_namespace.empty() || key.size() <= pod_namespace.size() + 1 ||
      key.substr(0, pod_namespace.size()) != pod_namespace || key[pod_namespace.size()] != '/') {
    return false;
  }
  const absl::string_view rest = key.substr(pod_namespace.size() + 1);
  const size_t slash = rest.find('/');
  if (slash == absl::string_view::npos || slash == 0 || slash + 1 == rest.size()) return false;
  return rest.find_first_of("/#", slash + 1) == absl::string_view::npos &&
         rest.substr(0, slash).find('#') == absl::string_view::npos;
}

std::string WorkloadKeyFromSandbox(absl::string_view pod_namespace, absl::string_view pod_name,
                                   const PodLabels& labels, absl::string_view workload_annotation) {
  if (IsWorkloadKeyOfNamespace(workload_annotation, pod_namespace)) {
    return std::string(workload_annotation);
  }
  if (absl::string_view deployment =
          OwnerBeforeHash(pod_name, LabelValue(labels, kPodTemplateHashLabel));
      !deployment.empty()) {
    return Key(pod_namespace, "Deployment", deployment);
  }
  if (absl::string_view rollout =
          OwnerBeforeHash(pod_name, LabelValue(labels, kRolloutsPodTemplateHashLabel));
      !rollout.empty()) {
    return Key(pod_namespace, "Rollout", rollout);
  }
  if (Label(labels, kStatefulSetPodNameLabel) != nullptr) {
    if (absl::string_view set = StripLastDashPart(pod_name); !set.empty()) {
      return Key(pod_namespace, "StatefulSet", set);
    }
  }
  if (absl::string_view job = JobName(labels); !job.empty()) return JobKey(pod_namespace, job);
  if (Label(labels, kControllerRevisionHashLabel) != nullptr) {
    if (absl::string_view set = StripLastDashPart(pod_name); !set.empty()) {
      return Key(pod_namespace, "DaemonSet", set);
    }
  }
  return Key(pod_namespace, "Pod", pod_name);
}

std::string WorkloadContainerKey(absl::string_view workload_key, absl::string_view container) {
  return absl::StrCat(workload_key, "#", container);
}

std::string WorkloadKind(absl::string_view workload_key) {
  const size_t first = workload_key.find('/');
  if (first == absl::string_view::npos) return "";
  const size_t second = workload_key.find('/', first + 1);
  if (second == absl::string_view::npos) return "";
  return std::string(workload_key.substr(first + 1, second - first - 1));
}

}  // namespace headroom
