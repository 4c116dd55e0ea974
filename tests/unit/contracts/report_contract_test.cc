// The node report is a contract between headroom-nri (which writes it) and headroom-extender
// (which reads it): what the node knows must arrive as the extender judges it.

#include <gtest/gtest.h>

#include "codec/report_codec.h"
#include "extender/reports/report_service.h"
#include "kubelet-hook/node_reporter.h"
#include "kubelet-hook/node_state.h"

namespace headroom {
namespace {

constexpr int64_t kMi = 1 << 20;

// Container "app" (id `id`) of pod shop/`pod` in sandbox `sandbox`, of workload `workload`.
nri::TrackedContainer Tracked(const std::string& id, const std::string& sandbox,
                              const std::string& pod, const std::string& workload) {
  nri::TrackedContainer c;
  c.id = id;
  c.name = "app";
  c.pod_id = sandbox;
  c.pod_uid = "uid-" + sandbox;
  c.pod_namespace = "shop";
  c.pod_name = pod;
  c.workload_key = workload;
  c.stats_key = workload + "#app";
  return c;
}

// The node's report of `state` (4 CPUs, 8 GiB), as the extender reads it.
absl::StatusOr<headroom::NodeReport> ReadByExtender(const nri::NodeState& state, absl::Time now) {
  return headroom::codec::NodeReportFromProto(
      nri::BuildNodeReport(state, "node-a", {4000, 8192 * kMi}, 0.5, 4, now), now);
}

TEST(ReportContract, WhatTheNodeKnowsIsWhatTheExtenderReads) {
  const absl::Time start = absl::FromUnixSeconds(1'795'300'000);
  nri::NodeState state;
  nri::TrackedContainer c = Tracked("c1", "sandbox-1", "db-0", "shop/StatefulSet/db");
  c.declared = {512, std::nullopt, std::nullopt, 256 * kMi};
  c.current = {1024, -1, 100000, 512 * kMi};  // what headroom set: the report says what kubelet did
  c.ranking = EvictionRanking::kMedium;
  state.Upsert(c);
  // 30 h of samples, one an hour.
  for (int h = 0; h <= 30; ++h) {
    const absl::Time at = start + absl::Hours(h);
    state.AddCpuSample(c.stats_key, at, 100 + h);
    state.AddMemorySample(c.stats_key, at, 64 * kMi);
  }
  const absl::Time now = start + absl::Hours(30);
  state.RecordOom(c.stats_key, now, 300 * kMi);
  state.RecordPressure(c.stats_key, now - absl::Minutes(5), 120 * kMi);

  const headroom::v1::NodeReport proto =
      nri::BuildNodeReport(state, "node-a", {4000, 8192 * kMi}, 0.5, 4, now);
  absl::StatusOr<headroom::NodeReport> report = headroom::codec::NodeReportFromProto(proto, now);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->pods.size(), 1u);
  const headroom::ReportedPod& pod = report->pods[0];
  EXPECT_EQ(pod.workload_key, "shop/StatefulSet/db");
  EXPECT_EQ(pod.ranking, EvictionRanking::kMedium);
  EXPECT_EQ(pod.requests, (ResourceAmounts{500, 256 * kMi}));  // kubelet's: 512 shares, 256Mi
  ASSERT_EQ(pod.containers.size(), 1u);
  const ContainerDemand& container = pod.containers[0];
  EXPECT_EQ(container.history, absl::Hours(30));
  EXPECT_EQ(container.declared_requests, (ResourceAmounts{500, 256 * kMi}));
  ASSERT_TRUE(container.cpu.has_value());
  ASSERT_TRUE(container.memory.has_value());
  const std::optional<CpuStats> cpu = state.CpuHistory(c.stats_key, now);
  const std::optional<MemoryStats> memory = state.MemoryHistory(c.stats_key, now);
  EXPECT_EQ(container.cpu->base_millis, cpu->base_millis);
  EXPECT_EQ(container.cpu->daily_base_millis, cpu->daily_base_millis);
  EXPECT_EQ(container.cpu->daily_peak_millis, cpu->daily_peak_millis);
  EXPECT_EQ(container.memory->oom_bytes, 300 * kMi);
  EXPECT_EQ(container.memory->pressure_bytes, 120 * kMi);
  EXPECT_EQ(container.memory->daily_peak_bytes, memory->daily_peak_bytes);
  // And the extender's own encoding reads back the same (the CLI's `headroom report`).
  absl::StatusOr<headroom::NodeReport> again =
      headroom::codec::NodeReportFromProto(headroom::codec::NodeReportToProto(*report), now);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->pods[0].containers[0].history, absl::Hours(30));
  EXPECT_EQ(again->pods[0].containers[0].cpu->daily_base_millis, cpu->daily_base_millis);
}

// A container restarted by the kubelet (after an OOM kill, say) is a new container of the same
// name in the same pod; the exited one stays in the runtime until the kubelet removes it. The
// report must still name each container of a pod once, or the extender refuses the whole
// node's report (found by e2e/local/system-suite.sh: every report after the first OOM kill).
TEST(ReportContract, ARestartedContainerIsReportedOnceWithItsOom) {
  const absl::Time now = absl::FromUnixSeconds(1'795'300'000);
  nri::NodeState state;
  const nri::TrackedContainer first =
      Tracked("c1", "sandbox-1", "hog-7d4b-x2x9k", "shop/Deployment/hog");
  state.Upsert(first);
  state.AddMemorySample(first.stats_key, now - absl::Seconds(10), 40 * kMi);
  state.RecordOom(first.stats_key, now - absl::Seconds(5), 48 * kMi);
  nri::TrackedContainer restarted = first;
  restarted.id = "c2";
  state.Upsert(restarted);
  // Another pod's container of the same name stays.
  state.Upsert(Tracked("c3", "sandbox-2", "hog-7d4b-q2w3e", "shop/Deployment/hog"));

  absl::StatusOr<headroom::NodeReport> report = ReadByExtender(state, now);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->pods.size(), 2u);
  for (const headroom::ReportedPod& pod : report->pods) {
    ASSERT_EQ(pod.containers.size(), 1u) << pod.name;
    ASSERT_TRUE(pod.containers[0].memory.has_value());
    EXPECT_EQ(pod.containers[0].memory->oom_bytes, 48 * kMi);
  }
  EXPECT_FALSE(state.Get("c1").has_value());
  EXPECT_TRUE(state.Get("c2").has_value());
  EXPECT_TRUE(state.Get("c3").has_value());
}

// A container OOM-killed in its first seconds, before any sample: the kill is in the report
// (headroom-nri reports at once after a kill), so the extender sizes the next pod from it.
TEST(ReportContract, AnOomBeforeTheFirstSampleIsReported) {
  const absl::Time now = absl::FromUnixSeconds(1'795'300'000);
  nri::NodeState state;
  const nri::TrackedContainer hog =
      Tracked("c1", "sandbox-1", "hog-7d4b-x2x9k", "shop/Deployment/hog");
  state.Upsert(hog);
  state.RecordOom(hog.stats_key, now, 48 * kMi);
  absl::StatusOr<headroom::NodeReport> report = ReadByExtender(state, now);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->pods.size(), 1u);
  ASSERT_EQ(report->pods[0].containers.size(), 1u);
  ASSERT_TRUE(report->pods[0].containers[0].memory.has_value());
  EXPECT_EQ(report->pods[0].containers[0].memory->oom_bytes, 48 * kMi);
}

TEST(ReportContract, ANewNodeLearnsTheWorkloadsHistoryFromTheOtherReplicas) {
  const absl::Time now = absl::FromUnixSeconds(1'795'300'000);
  extender::ClusterView view({});
  extender::ReportServiceImpl service(view, [now] { return now; });
  // node-a has run a replica of shop/Deployment/web for 30 h.
  const auto report_from = [&](const std::string& node, nri::NodeState& state) {
    headroom::v1::ReportReply reply;
    const headroom::v1::NodeReport report =
        nri::BuildNodeReport(state, node, {4000, 8192 * kMi}, 0.5, 4, now);
    EXPECT_TRUE(service.Handle(nullptr, report, &reply).ok());
    return reply;
  };
  const auto replica = [&](nri::NodeState& state, absl::Duration observed) {
    nri::TrackedContainer c;
    c.id = "c-" + std::to_string(absl::ToInt64Seconds(observed));
    c.name = "app";
    c.pod_id = c.id;
    c.pod_namespace = "shop";
    c.pod_name = "web-" + c.id;
    c.workload_key = "shop/Deployment/web";
    c.stats_key = "shop/Deployment/web#app";
    state.Upsert(c);
    state.AddCpuSample(c.stats_key, now - observed, 100);
    state.AddMemorySample(c.stats_key, now - observed, kMi);
    state.AddCpuSample(c.stats_key, now, 100);
    state.AddMemorySample(c.stats_key, now, kMi);
  };
  nri::NodeState node_a;
  replica(node_a, absl::Hours(30));
  report_from("node-a", node_a);
  // A new replica on node-b, 10 s old there: the reply carries the workload's 30 h.
  nri::NodeState node_b;
  replica(node_b, absl::Seconds(10));
  EXPECT_EQ(node_b.History("shop/Deployment/web#app", now), absl::Seconds(10));
  const headroom::v1::ReportReply reply = report_from("node-b", node_b);
  ASSERT_EQ(reply.history_seconds().count("shop/Deployment/web#app"), 1u);
  for (const auto& [key, seconds] : reply.history_seconds()) {
    node_b.MergeClusterHistory(key, absl::Seconds(seconds), now);
  }
  EXPECT_EQ(node_b.History("shop/Deployment/web#app", now), absl::Hours(30));
  // A key the node does not track is ignored.
  node_b.MergeClusterHistory("other/Pod/x#c", absl::Hours(99), now);
  EXPECT_EQ(node_b.workload_count(), 1u);
}

}  // namespace
}  // namespace headroom
