#include "shared/workload_key.h"

#include <gtest/gtest.h>

namespace headroom {
namespace {

TEST(WorkloadKey, ContainerKey) {
  EXPECT_EQ(WorkloadContainerKey("ns/Deployment/web", "app"), "ns/Deployment/web#app");
}

TEST(WorkloadKey, KindTable) {
  struct Case {
    const char* key;
    const char* want;
  };
  const Case cases[] = {
      {"ns/Deployment/web", "Deployment"},
      {"ns/DaemonSet/agent", "DaemonSet"},
      {"ns/Pod/lonely", "Pod"},
      {"ns//web", ""},
      {"ns/Deployment", ""},
      {"web", ""},
      {"", ""},
  };
  for (const Case& c : cases) EXPECT_EQ(WorkloadKind(c.key), c.want) << c.key;
}

TEST(WorkloadKeyFromSandbox, InfersTheOwnerFromNamesAndLabels) {
  struct Case {
    std::string name;
    PodLabels labels;
    std::string want;
  } cases[] = {
      {"web-7d4b9c5f6-x2x9k", {{"pod-template-hash", "7d4b9c5f6"}}, "ns/Deployment/web"},
      {"my-api-v2-5c8d-abcde", {{"pod-template-hash", "5c8d"}}, "ns/Deployment/my-api-v2"},
      {"canary-5f8c9-q2w3e", {{"rollouts-pod-template-hash", "5f8c9"}}, "ns/Rollout/canary"},
      {"db-0",
       {{"statefulset.kubernetes.io/pod-name", "db-0"}, {"controller-revision-hash", "x"}},
       "ns/StatefulSet/db"},
      {"backup-28861-q8k2l", {{"job-name", "backup-28861"}}, "ns/Job/backup-28861"},
      {"backup-28861-q8k2l",
       {{"batch.kubernetes.io/job-name", "backup-28861"}, {"job-name", "backup-28861"}},
       "ns/Job/backup-28861"},
      {"agent-4hx2p", {{"controller-revision-hash", "6f9"}}, "ns/DaemonSet/agent"},
      // A CronJob's run: every run is the CronJob.
      {"nightly-29402880-x7k2p",
       {{"batch.kubernetes.io/job-name", "nightly-29402880"}},
       "ns/CronJob/nightly"},
      {"lonely", {}, "ns/Pod/lonely"},
      // The hash label must actually appear in the name.
      {"odd-name", {{"pod-template-hash", "zzz"}}, "ns/Pod/odd-name"},
      {"zzz-a", {{"pod-template-hash", "zzz"}}, "ns/Pod/zzz-a"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(WorkloadKeyFromSandbox("ns", c.name, c.labels, ""), c.want) << c.name;
  }
}

TEST(WorkloadKeyFromSandbox, TakesTheWebhooksKeyOnlyWhenWellFormedAndOfItsNamespace) {
  const PodLabels deployment = {{"pod-template-hash", "7d4b"}};
  struct Case {
    const char* annotation;
    const char* want;
  } cases[] = {
      {"ns/ReplicaSet/plain", "ns/ReplicaSet/plain"},
      {"ns/VirtualMachineInstance/vm1", "ns/VirtualMachineInstance/vm1"},
      // Another namespace's workload, or no key at all: inferred as without the annotation.
      {"other/Deployment/web", "ns/Deployment/web"},
      {"ns/Deployment", "ns/Deployment/web"},
      {"ns//web", "ns/Deployment/web"},
      {"ns/Deployment/", "ns/Deployment/web"},
      {"ns/Deployment/a/b", "ns/Deployment/web"},
      {"ns/Deployment/web#app", "ns/Deployment/web"},
      {"ns/Dep#x/web", "ns/Deployment/web"},
      {"nsx/Deployment/web", "ns/Deployment/web"},
      {"", "ns/Deployment/web"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(WorkloadKeyFromSandbox("ns", "web-7d4b-abcde", deployment, c.annotation), c.want)
        << c.annotation;
  }
}

TEST(WorkloadKeyFromController, AgreesWithTheSandboxRuleForEveryKindTheLabelsName) {
  struct Case {
    std::string pod;
    PodLabels labels;
    std::optional<ControllerRef> controller;
    std::string want;
    bool node_alone_agrees;  // without the webhook's annotation
  } cases[] = {
      {"web-7d4b-abcde",
       {{"pod-template-hash", "7d4b"}},
       ControllerRef{"ReplicaSet", "web-7d4b"},
       "ns/Deployment/web",
       true},
      {"canary-5f8c9-q2w3e",
       {{"rollouts-pod-template-hash", "5f8c9"}},
       ControllerRef{"ReplicaSet", "canary-5f8c9"},
       "ns/Rollout/canary",
       true},
      {"db-0",
       {{"statefulset.kubernetes.io/pod-name", "db-0"}, {"controller-revision-hash", "x"}},
       ControllerRef{"StatefulSet", "db"},
       "ns/StatefulSet/db",
       true},
      {"agent-4hx2p",
       {{"controller-revision-hash", "6f9"}},
       ControllerRef{"DaemonSet", "agent"},
       "ns/DaemonSet/agent",
       true},
      {"backup-1-q8k2l",
       {{"job-name", "backup-1"}},
       ControllerRef{"Job", "backup-1"},
       "ns/Job/backup-1",
       true},
      {"nightly-29402880-x7k2p",
       {{"batch.kubernetes.io/job-name", "nightly-29402880"}},
       ControllerRef{"Job", "nightly-29402880"},
       "ns/CronJob/nightly",
       true},
      {"lonely", {}, std::nullopt, "ns/Pod/lonely", true},
      {"plain-x2x9k", {}, ControllerRef{"ReplicaSet", "plain"}, "ns/ReplicaSet/plain", false},
  };
  for (const Case& c : cases) {
    const std::string key = WorkloadKeyFromController("ns", c.pod, c.labels, c.controller);
    EXPECT_EQ(key, c.want) << c.pod;
    EXPECT_EQ(WorkloadKeyFromSandbox("ns", c.pod, c.labels, key), key) << c.pod;
    EXPECT_EQ(WorkloadKeyFromSandbox("ns", c.pod, c.labels, "") == key, c.node_alone_agrees)
        << c.pod;
  }
}

TEST(CronJobOfJob, TheControllersRunNamesOnly) {
  const struct {
    const char* job;
    const char* cronjob;
  } cases[] = {
      {"nightly-29402880", "nightly"},      // 2025-11-26 16:00Z, as the controller names it
      {"db-backup-23667840", "db-backup"},  // 2015-01-01, the first minute taken
      {"db-backup-68374080", "db-backup"},  // 2100-01-01, the last
      {"db-backup-23667839", ""},           // before 2015: not a run's name
      {"db-backup-68374081", ""},           // after 2100
      {"backup-20261128", ""},              // a date, not minutes (2008)
      {"backup-1", ""},                     // a person's numbering
      {"migrate-v2", ""},                   // no number
      {"-29402880", ""},                    // no CronJob name
      {"nightly-2940288a", ""},             // not all digits
      {"nightly-00000000029402880", ""},    // too long
  };
  for (const auto& c : cases) EXPECT_EQ(CronJobOfJob(c.job), c.cronjob) << c.job;
}

TEST(WorkloadKey, OnlyTheKeyLabelsAreKeyLabels) {
  for (absl::string_view label : kWorkloadKeyLabels) EXPECT_TRUE(IsWorkloadKeyLabel(label));
  EXPECT_FALSE(IsWorkloadKeyLabel("app"));
  EXPECT_FALSE(IsWorkloadKeyLabel("headroom.dev/workload"));
}

}  // namespace
}  // namespace headroom
