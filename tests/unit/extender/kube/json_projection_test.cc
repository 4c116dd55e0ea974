// The watch's cut documents (extender/json/json_projection.h): the projection rule on its own, and
// that the bound-pod watch's members (BoundPodFields) are all its consumers read.

#include "extender/json/json_projection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "extender/actuation/cordon_taint.h"
#include "extender/kube/api_nodes.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_index.h"
#include "extender/kube/pod_placements.h"
#include "extender/scheduler/extender_wire.h"
#include "tests/status_matchers.h"

#ifndef HEADROOM_SOURCE_DIR
#error "HEADROOM_SOURCE_DIR must be defined"
#endif

namespace headroom::extender {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;
using json = nlohmann::json;

const FieldMask& Mask() {
  static const FieldMask* const mask = new FieldMask{
      {"keep"},
      {"cut", {{"a"}, {"list", {{"x"}}}}},
  };
  return *mask;
}

struct ProjectionCase {
  const char* name;
  const char* input;
  const char* expected;  // nlohmann's dump of the result
};

class ProjectionTest : public ::testing::TestWithParam<ProjectionCase> {};

TEST_P(ProjectionTest, KeepsTheListedMembersAsNlohmannWouldReadThem) {
  const ProjectionCase& c = GetParam();
  absl::StatusOr<json> cut = ParseProjected(c.input, Mask());
  ASSERT_THAT(cut.status(), IsOk());
  EXPECT_EQ(cut->dump(), c.expected);
  // The same rule on a document nlohmann parsed.
  EXPECT_EQ(Project(json::parse(c.input), Mask()).dump(), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ProjectionTest,
    ::testing::Values(
        ProjectionCase{"DropsUnlistedMembers", R"({"keep":1,"drop":{"deep":[1,2]},"cut":{}})",
                       R"({"cut":{},"keep":1})"},
        ProjectionCase{"KeepsAListedMemberWhole", R"({"keep":{"a":[1,{"b":null}],"c":"d"}})",
                       R"({"keep":{"a":[1,{"b":null}],"c":"d"}})"},
        ProjectionCase{"CutsNestedObjects", R"({"cut":{"a":true,"b":false}})",
                       R"({"cut":{"a":true}})"},
        ProjectionCase{"CutsEachElementOfAnArray",
                       R"({"cut":{"list":[{"x":1,"y":2},{"y":3},{"x":[4]}]}})",
                       R"({"cut":{"list":[{"x":1},{},{"x":[4]}]}})"},
        ProjectionCase{"KeepsScalarsWhereAnObjectWasExpected", R"({"cut":{"a":"s","list":7}})",
                       R"({"cut":{"a":"s","list":7}})"},
        ProjectionCase{"CutsATopLevelArray", R"([{"keep":1,"x":2},3])", R"([{"keep":1},3])"},
        ProjectionCase{
            "NumbersAsNlohmannTypesThem",
            R"({"keep":[0,-1,18446744073709551615,-9223372036854775808,1.5,2e3,-0.0]})",
            R"({"keep":[0,-1,18446744073709551615,-9223372036854775808,1.5,2000.0,-0.0]})"},
        ProjectionCase{"TheLastDuplicateWins", R"({"keep":1,"keep":2})", R"({"keep":2})"},
        ProjectionCase{"TheLastDuplicateWinsInAKeptValue", R"({"keep":{"a":1,"a":2}})",
                       R"({"keep":{"a":2}})"},
        ProjectionCase{"EscapedStrings", R"({"keep":"a\"b\\c\u00e9\n"})",
                       R"({"keep":"a\"b\\cé\n"})"},
        ProjectionCase{"AnIntegerBeyond64Bits", R"({"keep":123456789012345678901234567890,"x":1})",
                       R"({"keep":1.2345678901234568e+29})"}),
    [](const ::testing::TestParamInfo<ProjectionCase>& param) { return param.param.name; });

TEST(ProjectionTypesTest, IntegersKeepNlohmannsSignedness) {
  const json cut = *ParseProjected(R"({"keep":[5,-5]})", Mask());
  EXPECT_TRUE(cut["keep"][0].is_number_unsigned());
  EXPECT_TRUE(cut["keep"][1].is_number_integer());
  EXPECT_FALSE(cut["keep"][1].is_number_unsigned());
}

TEST(ProjectionErrorsTest, RefusesWhatIsNotJsonAndNestsBoundedOnTheFallback) {
  for (const char* bad : {"", "{", R"({"keep":})", "nul", R"({"keep":1} x)"}) {
    EXPECT_THAT(ParseProjected(bad, Mask()).status(), StatusIs(absl::StatusCode::kInvalidArgument))
        << bad;
  }
  // A big integer sends the document to nlohmann, but not one nested deeper than the bound.
  const std::string deep = std::string(500, '[') + "1e999999" + std::string(500, ']');
  EXPECT_THAT(ParseProjected(deep, FieldMask::All()).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

// The fixture's real pod, bound, with every member the consumers read filled in: an
// OOM-killed container, resize conditions, a controller, workload-key labels, a mirror
// annotation, init containers and a deletion time.
json RichBoundPod() {
  std::ifstream in(std::string(HEADROOM_SOURCE_DIR) +
                   "/tests/testdata/kube-scheduler-extender/run1-002-filter.json");
  std::stringstream text;
  text << in.rdbuf();
  json pod = json::parse(text.str())["Pod"];
  pod["spec"]["nodeName"] = "node-7";
  pod["metadata"]["labels"]["pod-template-hash"] = "5d4f8";
  pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = "db-0";
  pod["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "abc";
  pod["metadata"]["annotations"]["headroom.dev/eviction-ranking"] = "high";
  pod["metadata"]["ownerReferences"] = json::parse(
      R"([{"apiVersion":"v1","kind":"Node","name":"n","uid":"1"},
          {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-5d4f8","uid":"2",
           "controller":true,"blockOwnerDeletion":true}])");
  pod["metadata"]["deletionTimestamp"] = "2026-11-22T06:40:00Z";
  pod["spec"]["initContainers"] = json::parse(
      R"([{"name":"init","image":"busybox","restartPolicy":"Always",
           "resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}}}])");
  pod["spec"]["resources"] =
      json::parse(R"({"requests":{"cpu":"2","memory":"1Gi"},"limits":{"memory":"2Gi"}})");
  pod["status"] = json::parse(R"({
    "phase":"Running","hostIP":"10.0.0.7","podIP":"10.1.0.9","qosClass":"Burstable",
    "conditions":[
      {"type":"Ready","status":"True","lastTransitionTime":"2026-11-22T06:34:00Z"},
      {"type":"PodResizePending","status":"True","reason":"Deferred","message":"node is full"},
      {"type":"PodResizeInProgress","status":"True","message":"resizing"}],
    "containerStatuses":[
      {"name":"c","ready":true,"restartCount":1,"image":"busybox","imageID":"sha256:1",
       "containerID":"containerd://new",
       "state":{"running":{"startedAt":"2026-11-22T06:35:00Z"}},
       "lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled",
                                  "containerID":"containerd://old",
                                  "startedAt":"2026-11-22T06:33:30Z",
                                  "finishedAt":"2026-11-22T06:34:59Z"}}}]})");
  return pod;
}

std::string Describe(const DeclaredResources& c) {
  return absl::StrCat(c.name, ":", c.cpu_request_millis.value_or(-1), "/",
                      c.cpu_limit_millis.value_or(-1), "/", c.memory_request_bytes.value_or(-1),
                      "/", c.memory_limit_bytes.value_or(-1));
}

// Every field of an ApiPod, as text.
std::string Describe(const ApiPod& pod) {
  std::string out = absl::StrCat(pod.pod_namespace, "|", pod.name, "|", pod.uid, "|", pod.node, "|",
                                 pod.owner_kind, "|", pod.owner_name, "|");
  for (const auto& [key, value] : pod.key_labels) absl::StrAppend(&out, key, "=", value, ",");
  for (const auto& [key, value] :
       std::map<std::string, std::string>(pod.annotations.begin(), pod.annotations.end())) {
    absl::StrAppend(&out, key, "=", value, ",");
  }
  for (const DeclaredResources& c : pod.containers) absl::StrAppend(&out, Describe(c), ";");
  for (const DeclaredResources& c : pod.init_containers) absl::StrAppend(&out, Describe(c), ";");
  absl::StrAppend(&out, "pod level ", pod.pod_level.requests.cpu_millis, "/",
                  pod.pod_level.requests.memory_bytes, "/", pod.pod_level.limits.cpu_millis, "/",
                  pod.pod_level.limits.memory_bytes, "|");
  absl::StrAppend(&out, pod.resize_pending, "|", pod.resize_in_progress, "|", pod.resize_message,
                  "|", pod.terminating, pod.ready, pod.mirror, "|");
  for (const OomKill& kill : pod.oom_kills) {
    absl::StrAppend(&out, kill.container, "@", kill.container_id, "@",
                    absl::FormatTime(kill.finished_at), ";");
  }
  return out;
}

// Every field of a PodSpec, as text.
std::string Describe(const PodSpec& pod) {
  std::string out =
      absl::StrCat(pod.pod_namespace, "|", pod.name, "|", pod.uid, "|", pod.workload_key, "|");
  for (const auto& [key, value] : pod.annotations) absl::StrAppend(&out, key, "=", value, ",");
  for (const ContainerSpec& c : pod.containers) {
    absl::StrAppend(&out, c.name, ":", c.requests.cpu_millis, "/", c.requests.memory_bytes, "/",
                    c.limits.cpu_millis, "/", c.limits.memory_bytes, ";");
  }
  absl::StrAppend(&out, "pod level ", pod.pod_level.requests.cpu_millis, "/",
                  pod.pod_level.requests.memory_bytes, "/", pod.pod_level.limits.cpu_millis, "/",
                  pod.pod_level.limits.memory_bytes);
  return out;
}

TEST(BoundPodFieldsTest, BothDecodersSeeTheSamePodWholeOrCut) {
  const json whole = RichBoundPod();
  const json cut = *ParseProjected(whole.dump(), BoundPodFields());
  EXPECT_LT(cut.dump().size() * 2, whole.dump().size()) << "the cut should drop most of a pod";

  absl::StatusOr<ApiPod> indexed_whole = DecodeApiPod(whole);
  absl::StatusOr<ApiPod> indexed_cut = DecodeApiPod(cut);
  ASSERT_THAT(indexed_whole.status(), IsOk());
  ASSERT_THAT(indexed_cut.status(), IsOk());
  // The rich pod exercises every branch, so that a member missing from the cut shows.
  EXPECT_EQ(indexed_whole->owner_kind, "ReplicaSet");
  EXPECT_TRUE(indexed_whole->ready && indexed_whole->terminating && indexed_whole->mirror &&
              indexed_whole->resize_in_progress);
  EXPECT_EQ(indexed_whole->resize_pending, "Deferred");
  ASSERT_EQ(indexed_whole->oom_kills.size(), 1u);
  EXPECT_EQ(indexed_whole->init_containers.size(), 1u);
  EXPECT_EQ(indexed_whole->key_labels.size(), 2u);
  EXPECT_TRUE(indexed_whole->pod_level.Any());
  EXPECT_EQ(Describe(*indexed_cut), Describe(*indexed_whole));

  absl::StatusOr<PodSpec> sized_whole = DecodePodObject(whole);
  absl::StatusOr<PodSpec> sized_cut = DecodePodObject(cut);
  ASSERT_THAT(sized_whole.status(), IsOk());
  ASSERT_THAT(sized_cut.status(), IsOk());
  EXPECT_EQ(Describe(*sized_cut), Describe(*sized_whole));
  EXPECT_EQ(sized_whole->workload_key, "default/Deployment/web");
}

// A real Node (a kube-scheduler request's, tests/testdata) with images, labels, annotations,
// addresses, taints (the load cordon's among them) and unschedulable added.
json RichNode() {
  std::ifstream in(std::string(HEADROOM_SOURCE_DIR) +
                   "/tests/testdata/kube-scheduler-extender/run1-002-filter.json");
  std::stringstream text;
  text << in.rdbuf();
  json node = json::parse(text.str())["Nodes"]["items"][0];
  node["metadata"]["resourceVersion"] = "4711";
  node["metadata"]["labels"]["topology.kubernetes.io/zone"] = "a";
  node["metadata"]["annotations"]["node.alpha.kubernetes.io/ttl"] = "0";
  node["spec"]["unschedulable"] = true;
  node["spec"]["podCIDR"] = "10.244.1.0/24";
  node["spec"]["taints"] = json::parse(
      R"([{"key":"headroom.dev/load-cordon","value":"true","effect":"NoSchedule"},
          {"key":"dedicated","value":"gpu","effect":"NoExecute","timeAdded":"2026-11-22T06:00:00Z"}])");
  node["status"]["allocatable"]["pods"] = "58";
  node["status"]["images"] = json::parse(
      R"([{"names":["registry.example/app@sha256:1","registry.example/app:v1"],"sizeBytes":123456789}])");
  node["status"]["addresses"] = json::parse(R"([{"type":"InternalIP","address":"10.0.0.7"}])");
  return node;
}

TEST(NodeFieldsTest, TheTrackerAndTheTaintIndexSeeTheSameNodeWholeOrCut) {
  const json whole = RichNode();
  const json cut = *ParseProjected(whole.dump(), NodeFields());
  EXPECT_LT(cut.dump().size() * 2, whole.dump().size()) << "the cut should drop most of a node";

  const auto tracked_whole = ApiNodeFromObject(whole);
  const auto tracked_cut = ApiNodeFromObject(cut);
  ASSERT_TRUE(tracked_whole.has_value());
  ASSERT_TRUE(tracked_cut.has_value());
  EXPECT_EQ(tracked_cut->first, tracked_whole->first);
  EXPECT_EQ(tracked_cut->second.allocatable, tracked_whole->second.allocatable);
  EXPECT_EQ(tracked_whole->second.max_pods, std::optional<int>(58));
  EXPECT_EQ(tracked_cut->second.max_pods, tracked_whole->second.max_pods);

  const std::optional<NodeTaints> taints_whole = NodeTaintsFromObject(whole);
  const std::optional<NodeTaints> taints_cut = NodeTaintsFromObject(cut);
  ASSERT_TRUE(taints_whole.has_value());
  ASSERT_TRUE(taints_cut.has_value());
  EXPECT_EQ(taints_whole->resource_version, "4711");
  EXPECT_TRUE(taints_whole->unschedulable);
  EXPECT_EQ(taints_whole->taints.size(), 2u);
  EXPECT_EQ(taints_cut->name, taints_whole->name);
  EXPECT_EQ(taints_cut->resource_version, taints_whole->resource_version);
  EXPECT_EQ(taints_cut->unschedulable, taints_whole->unschedulable);
  // The taints go back in full in a merge patch: they must be kept exactly.
  EXPECT_EQ(taints_cut->taints, taints_whole->taints);
  EXPECT_EQ(CordonTaintPatch(*taints_cut, TaintChange::kRemove),
            CordonTaintPatch(*taints_whole, TaintChange::kRemove));
}

TEST(BoundPodFieldsTest, TheWatchKeepsTheVersionAndErrorsWhole) {
  const FieldMask event_fields = WatchEventFields(BoundPodFields());
  const json line = {{"type", "MODIFIED"}, {"object", RichBoundPod()}};
  absl::StatusOr<WatchEvent> event = ParseWatchEvent(line.dump(), &event_fields);
  ASSERT_THAT(event.status(), IsOk());
  EXPECT_EQ(event->type, WatchEventType::kModified);
  EXPECT_EQ(ResourceVersionOf(event->object), "213");
  EXPECT_EQ(event->object["spec"]["nodeName"], "node-7");
  EXPECT_FALSE(event->object["metadata"].contains("managedFields"));
  EXPECT_FALSE(event->object["spec"]["containers"][0].contains("image"));

  absl::StatusOr<WatchEvent> gone = ParseWatchEvent(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old"}})",
      &event_fields);
  ASSERT_THAT(gone.status(), IsOk());
  EXPECT_EQ(ErrorEventCode(*gone), 410);
  EXPECT_EQ(gone->object.value("message", ""), "too old");
  absl::StatusOr<WatchEvent> bookmark = ParseWatchEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"99"}}})",
      &event_fields);
  ASSERT_THAT(bookmark.status(), IsOk());
  EXPECT_EQ(ResourceVersionOf(bookmark->object), "99");
  for (const char* bad : {"", "[]", R"({"type":"ADDED"})", R"({"type":"ADDED","object":[]})",
                          R"({"type":"RENAMED","object":{}})", "{\"type\":\"ADDED\",\"obj"}) {
    EXPECT_THAT(ParseWatchEvent(bad, &event_fields).status(),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << bad;
  }
}

}  // namespace
}  // namespace headroom::extender
