// The scheduler path's JSON helpers: raw spans of Node objects and direct string writing,
// checked against nlohmann::json on the same inputs; and the one Pod decoder, reached from a
// scheduler request and from an API object alike.

#include "extender/scheduler/extender_wire.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "extender/json/json_spans.h"
#include "extender/json/json_writer.h"
#include "extender/view/node_name_key.h"
#include "nlohmann/json.hpp"
#include "tests/file_contents.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

struct SpanCase {
  const char* name;
  const char* json;
  std::vector<std::string> spans;  // empty with `found` false: nullopt
  bool found = true;
};

class ArrayElementSpansTest : public ::testing::TestWithParam<SpanCase> {};

TEST_P(ArrayElementSpansTest, FindsTheElementsAsWritten) {
  const SpanCase& c = GetParam();
  const std::optional<std::vector<absl::string_view>> spans =
      ArrayElementSpans(c.json, {"Nodes", "items"});
  if (!c.found) {
    EXPECT_FALSE(spans.has_value());
    return;
  }
  ASSERT_TRUE(spans.has_value());
  std::vector<std::string> got(spans->begin(), spans->end());
  EXPECT_EQ(got, c.spans);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ArrayElementSpansTest,
    ::testing::Values(
        SpanCase{"compact",
                 R"({"Pod":{},"Nodes":{"items":[{"a":1},{"b":[2,"]"]}]}})",
                 {R"({"a":1})", R"({"b":[2,"]"]})"}},
        SpanCase{"spaces_and_order",
                 "{ \"Nodes\" : { \"metadata\" : {\"x\":\"}\"} , \"items\" : [ {\"a\" : \"\\\"{\"} "
                 ", 3 ] } }",
                 {"{\"a\" : \"\\\"{\"}", "3"}},
        SpanCase{"empty", R"({"Nodes":{"items":[]}})", {}},
        SpanCase{"skips_other_members",
                 R"({"NodeNames":null,"Pod":{"spec":{"items":[9]}},"Nodes":{"items":["n"]}})",
                 {R"("n")"}},
        SpanCase{"first_of_duplicates", R"({"Nodes":{"items":[1]},"Nodes":{"items":[2]}})", {"1"}},
        SpanCase{"null_nodes", R"({"Nodes":null})", {}, false},
        SpanCase{"items_not_array", R"({"Nodes":{"items":{}}})", {}, false},
        SpanCase{"escaped_key", R"({"Nod\u0065s":{"items":[1]}})", {}, false},
        SpanCase{"absent", R"({"NodeNames":["a"]})", {}, false}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(AppendJsonStringTest, WritesWhatNlohmannWrites) {
  for (const std::string& text :
       {std::string("node-1"), std::string(""), std::string("quote \" and \\ back"),
        std::string("tab\tnew\nline\x01"), std::string("caf\xc3\xa9 \xe2\x82\xac"),
        std::string("bad \xff utf8 \xc3"), std::string("del \x7f"),
        // Past the first 8-byte word, and in its tail: each kind of byte that needs care.
        std::string("ip-10-0-12-34.eu-west-1.compute.internal"), std::string("abcdefgh\"ijkl"),
        std::string("abcdefghijklmno\x1f"), std::string("0123456789abcdef\xc3\xa9"),
        std::string("01234567\\"), std::string("0123456789abcdef\xff"),
        std::string("projected cpu 4100m > allocatable 4000m (bases 3600m + headroom 500m)")}) {
    std::string out;
    AppendJsonString(out, text);
    EXPECT_EQ(out,
              nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        << text;
    EXPECT_TRUE(nlohmann::json::accept(out)) << out;
  }
}

TEST(IsPlainJsonTextTest, OnlyTextWrittenWithoutEscapes) {
  for (const char* plain : {"", "node-1", "ip-10-0-12-34.eu-west-1.compute.internal", "del \x7f"}) {
    EXPECT_TRUE(IsPlainJsonText(plain)) << plain;
  }
  for (const char* care : {"a\"b", "0123456789\\", "tab\t", "caf\xc3\xa9", "01234567\x01"}) {
    EXPECT_FALSE(IsPlainJsonText(care)) << care;
  }
}

// The one-pass copy agrees with IsPlainJsonText at every length around its 8-byte steps and
// with the character that needs care at every position, copies plain text exactly and writes
// nothing past it.
TEST(CopyPlainJsonTextTest, AgreesWithTheCheckAtEveryLengthAndPosition) {
  for (size_t size = 0; size <= 25; ++size) {
    const std::string plain = std::string("abcdefghijklmnopqrstuvwxyz").substr(0, size);
    std::string buffer(size + 8, '#');
    EXPECT_TRUE(CopyPlainJsonText(buffer.data(), plain)) << size;
    EXPECT_EQ(buffer.substr(0, size), plain) << size;
    EXPECT_EQ(buffer.substr(size), "########") << size << ": wrote past the text";
    for (size_t at = 0; at < size; ++at) {
      for (const char care : {'"', '\\', '\x01', '\x1f', '\xc3'}) {
        std::string text = plain;
        text[at] = care;
        EXPECT_FALSE(CopyPlainJsonText(buffer.data(), text)) << size << " at " << at;
        EXPECT_FALSE(IsPlainJsonText(text)) << size << " at " << at;
      }
    }
  }
}

// The node-name equality compares in words: it must agree with string equality at every
// length around its 4- and 8-byte steps, for a difference at every position.
TEST(NodeNameEqTest, AgreesWithStringEqualityAtEveryLengthAndPosition) {
  const NodeNameEq equal;
  const std::string letters = "abcdefghijklmnopqrstuvwxyz";
  for (size_t size = 0; size <= 25; ++size) {
    const std::string name = letters.substr(0, size);
    EXPECT_TRUE(equal(name, std::string(name))) << size;
    EXPECT_FALSE(equal(name, letters.substr(0, size + 1))) << size;
    for (size_t at = 0; at < size; ++at) {
      std::string other = name;
      other[at] = '-';
      EXPECT_FALSE(equal(name, other)) << size << " at " << at;
    }
  }
}

// The answers' writers copy plain names straight into a sized buffer and escape the others:
// either way the text is what nlohmann writes for the same values.
TEST(AnswerWritersTest, WriteWhatNlohmannWritesForAnyNames) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"a"},
      {"node-1", "node-2", "ip-10-0-12-34.eu-west-1.compute.internal"},
      {"plain", "quo\"te", "back\\slash"},
      {"caf\xc3\xa9", "bad \xff utf8", "ctl\x01"},
  };
  const int scores[] = {-3, 0, 5, 9, 10, 11};
  for (const std::vector<std::string>& names : cases) {
    const auto nlohmann_text = [](const nlohmann::json& value) {
      return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    std::vector<HostPriority> priorities;
    nlohmann::json expected_priorities = nlohmann::json::array();
    nlohmann::json expected_names = nlohmann::json::array();
    FilterResult result;
    for (size_t i = 0; i < names.size(); ++i) {
      const int score = scores[i % std::size(scores)];
      priorities.push_back({names[i], score});
      expected_priorities.push_back({{"Host", names[i]}, {"Score", std::clamp(score, 0, 10)}});
      result.passed.push_back(names[i]);
      expected_names.push_back(names[i]);
    }
    EXPECT_EQ(EncodeHostPriorities(priorities), nlohmann_text(expected_priorities));
    ExtenderArgs args;  // names mode
    const std::string filter = EncodeFilterResult(args, result);
    EXPECT_THAT(filter, HasSubstr("\"NodeNames\":" + nlohmann_text(expected_names) + ","));
    EXPECT_TRUE(nlohmann::json::accept(filter)) << filter;
  }
}

TEST(ExtenderWireTest, NodeObjectsGoBackAsSentAndPrioritizeSkipsThem) {
  const std::string body =
      R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[)"
      R"({"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"2","memory":"1Gi"}}}, )"
      R"({"metadata" : {"name":"b"}}]}})";
  absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(body);
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_THAT(
      args->node_items,
      ElementsAre(
          R"({"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"2","memory":"1Gi"}}})",
          R"({"metadata" : {"name":"b"}})"));
  FilterResult result;
  result.passed = {"b"};
  const nlohmann::json out = nlohmann::json::parse(EncodeFilterResult(*args, result));
  EXPECT_EQ(out["Nodes"]["items"], nlohmann::json::parse(R"([{"metadata":{"name":"b"}}])"));

  absl::StatusOr<ExtenderArgs> names_only = DecodeExtenderArgs(body, /*keep_node_objects=*/false);
  ASSERT_TRUE(names_only.ok());
  EXPECT_TRUE(names_only->node_items.empty());
  ASSERT_EQ(names_only->nodes.size(), 2u);
  EXPECT_THAT(names_only->nodes[0].allocatable, Optional(ResourceAmounts{2000, 1LL << 30}));
}

// The scheduler's path decodes each request into the storage of the previous one: nothing of
// an earlier request (its nodes' allocatable, its Node objects, more names) may show through.
TEST(ExtenderWireTest, DecodingIntoUsedArgsEqualsAFreshDecode) {
  const std::string nodes_body =
      R"({"Pod":{"metadata":{"name":"first","namespace":"a"}},"Nodes":{"items":[)"
      R"({"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"2","pods":"9"}}},)"
      R"({"metadata":{"name":"n2"}},{"metadata":{"name":"n3"}}]}})";
  const std::string names_body =
      R"({"Pod":{"metadata":{"name":"second"}},"NodeNames":["x","a-name-longer-than-sso-buffers"]})";
  const std::string fewer_names_body = R"({"Pod":{"metadata":{"name":"third"}},"NodeNames":["y"]})";
  const auto same = [](const ExtenderArgs& used, const ExtenderArgs& fresh) {
    EXPECT_EQ(used.pod.name, fresh.pod.name);
    EXPECT_EQ(used.pod.pod_namespace, fresh.pod.pod_namespace);
    EXPECT_EQ(used.node_cache_capable, fresh.node_cache_capable);
    EXPECT_EQ(used.node_items, fresh.node_items);
    ASSERT_EQ(used.nodes.size(), fresh.nodes.size());
    for (size_t i = 0; i < used.nodes.size(); ++i) {
      EXPECT_EQ(used.nodes[i].name, fresh.nodes[i].name) << i;
      EXPECT_EQ(used.nodes[i].allocatable, fresh.nodes[i].allocatable) << i;
      EXPECT_EQ(used.nodes[i].max_pods, fresh.nodes[i].max_pods) << i;
    }
  };
  ExtenderArgs used;
  for (const std::string* body : {&nodes_body, &names_body, &nodes_body, &fewer_names_body}) {
    ASSERT_TRUE(DecodeExtenderArgsInto(*body, /*keep_node_objects=*/true, used).ok());
    absl::StatusOr<ExtenderArgs> fresh = DecodeExtenderArgs(*body);
    ASSERT_TRUE(fresh.ok());
    same(used, *fresh);
  }
}

// kube-scheduler sends prioritize the Pod it just sent to filter: a Pod with the uid and
// resourceVersion of the one decoded into the args is kept, anything else is decoded afresh.
TEST(ExtenderWireTest, APodIsDecodedAgainUnlessItsUidAndResourceVersionAreTheSame) {
  const auto body = [](const std::string& metadata, const std::string& cpu) {
    return R"({"Pod":{"metadata":{"name":"p",)" + metadata +
           R"(},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
           R"("}}}]}},"NodeNames":["n"]})";
  };
  struct Case {
    const char* what;
    std::string body;
    bool ok;
    int64_t cpu_millis;  // what args.pod holds afterwards (when ok)
  };
  // Each case decodes into the args the one before left. Two bodies with the same uid and
  // resourceVersion but different contents stand for "already decoded": no API server sends
  // them, so the second's 200m shows whether it was read.
  const std::vector<Case> cases = {
      {"first", body(R"("uid":"u1","resourceVersion":"7")", "100m"), true, 100},
      {"same uid and version: kept", body(R"("uid":"u1","resourceVersion":"7")", "200m"), true,
       100},
      {"new version", body(R"("uid":"u1","resourceVersion":"8")", "300m"), true, 300},
      {"same version, other uid", body(R"("uid":"u2","resourceVersion":"8")", "400m"), true, 400},
      {"no version", body(R"("uid":"u2")", "500m"), true, 500},
      {"no version again", body(R"("uid":"u2")", "600m"), true, 600},
      {"versioned again", body(R"("uid":"u3","resourceVersion":"1")", "700m"), true, 700},
      {"malformed, new version", body(R"("uid":"u3","resourceVersion":"2")", "lots"), false, 0},
      {"the earlier version after the error", body(R"("uid":"u3","resourceVersion":"1")", "800m"),
       true, 800},
  };
  ExtenderArgs args;
  for (const Case& c : cases) {
    const absl::Status status = DecodeExtenderArgsInto(c.body, /*keep_node_objects=*/true, args);
    ASSERT_EQ(status.ok(), c.ok) << c.what << ": " << status;
    if (!c.ok) continue;
    ASSERT_EQ(args.pod.containers.size(), 1u) << c.what;
    EXPECT_EQ(args.pod.containers[0].requests.cpu_millis, c.cpu_millis) << c.what;
  }
}

// What a thread may keep for the next request is bounded whatever clients send: by the body,
// Node objects, the node count, and the names' storage accumulated across requests.
// A body over kWholeParseBytes is read in pieces: it decodes exactly as the same request
// does whole, whatever large member nobody reads it carries, and a piece too large for any
// real object is refused by name.
TEST(ExtenderWireTest, ALargeBodyDecodesInPiecesAsItWouldWhole) {
  const std::string pod =
      R"({"metadata":{"name":"p","namespace":"shop","uid":"u"},)"
      R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})";
  const std::string nodes =
      R"({"items":[{"metadata":{"name":"a"},"status":{"allocatable":{"cpu":"2","memory":"1Gi"}}},)"
      R"( {"metadata":{"name":"b"}}]})";
  // [0,0,...]: the unknown field that cost 891 MiB in simdjson's DOM at 63 MiB.
  std::string zeros = "[0";
  while (zeros.size() < kWholeParseBytes) zeros += ",0";
  zeros += "]";
  const auto same = [](const ExtenderArgs& a, const ExtenderArgs& b, const std::string& what) {
    EXPECT_EQ(a.pod.name, b.pod.name) << what;
    EXPECT_EQ(a.pod.containers.size(), b.pod.containers.size()) << what;
    EXPECT_EQ(a.node_cache_capable, b.node_cache_capable) << what;
    EXPECT_EQ(a.node_items, b.node_items) << what;
    ASSERT_EQ(a.nodes.size(), b.nodes.size()) << what;
    for (size_t i = 0; i < a.nodes.size(); ++i) {
      EXPECT_EQ(a.nodes[i].name, b.nodes[i].name) << what;
      EXPECT_EQ(a.nodes[i].allocatable, b.nodes[i].allocatable) << what;
    }
  };
  for (const std::string& tail : {R"("Nodes":)" + nodes, std::string(R"("NodeNames":["a","b"])")}) {
    const std::string small = "{\"Pod\":" + pod + "," + tail + "}";
    const std::string large =
        "{\"Unknown\":" + zeros + ",\"Pod\":" + pod + "," + tail + ",\"Pod\":{\"later\":1}}";
    ASSERT_GT(large.size(), kWholeParseBytes);
    absl::StatusOr<ExtenderArgs> whole = DecodeExtenderArgs(small);
    absl::StatusOr<ExtenderArgs> pieces = DecodeExtenderArgs(large);
    ASSERT_TRUE(whole.ok()) << whole.status();
    ASSERT_TRUE(pieces.ok()) << pieces.status();
    same(*whole, *pieces, tail);
  }
  // Malformed anywhere, even where nobody reads: 400 with where.
  const absl::StatusOr<ExtenderArgs> malformed =
      DecodeExtenderArgs("{\"Unknown\":" + zeros.substr(0, zeros.size() - 1) + ",],\"Pod\":" + pod +
                         ",\"NodeNames\":[]}");
  ASSERT_FALSE(malformed.ok());
  EXPECT_THAT(std::string(malformed.status().message()), HasSubstr("not valid JSON"));
  // A Pod larger than the API server stores.
  const std::string huge_pod = "{\"metadata\":{\"name\":\"p\"},\"junk\":" + zeros + "}";
  const absl::StatusOr<ExtenderArgs> too_large =
      DecodeExtenderArgs("{\"Pod\":" + huge_pod + ",\"NodeNames\":[]}");
  ASSERT_FALSE(too_large.ok());
  EXPECT_THAT(std::string(too_large.status().message()), HasSubstr("Pod: "));
  EXPECT_THAT(std::string(too_large.status().message()), HasSubstr("larger than any object"));
  // The same checks as the whole decode's, through the pieces.
  const absl::StatusOr<ExtenderArgs> no_pod =
      DecodeExtenderArgs("{\"Unknown\":" + zeros + ",\"NodeNames\":[]}");
  ASSERT_FALSE(no_pod.ok());
  EXPECT_THAT(std::string(no_pod.status().message()), HasSubstr("Pod: required"));
  const absl::StatusOr<ExtenderArgs> bad_items = DecodeExtenderArgs(
      "{\"Unknown\":" + zeros + ",\"Pod\":" + pod + ",\"Nodes\":{\"items\":{}}}");
  ASSERT_FALSE(bad_items.ok());
  EXPECT_THAT(std::string(bad_items.status().message()), HasSubstr("Nodes.items"));
}

TEST(ExtenderWireTest, KeptArgsAreBounded) {
  const auto names = [](size_t count, size_t length) {
    ExtenderArgs args;
    args.nodes.resize(count);
    for (NodeSpec& node : args.nodes) node.name.assign(length, 'n');
    return args;
  };
  struct Case {
    const char* what;
    ExtenderArgs args;
    size_t body_bytes;
    bool kept;
  };
  ExtenderArgs with_objects = names(3, 8);
  with_objects.node_items = {"{}", "{}", "{}"};
  const Case cases[] = {
      {"500 short names", names(500, 9), 20 << 10, true},
      {"kKeptNodes names", names(kKeptNodes, 9), 200 << 10, true},
      {"one more node", names(kKeptNodes + 1, 9), 200 << 10, false},
      {"a body over the bound", names(1, 9), kKeptBytes + 1, false},
      {"Node objects", with_objects, 1 << 10, false},
      // Each request small, but long names kept at many positions add up across requests.
      {"names' storage over the bound", names(2000, 1000), 10 << 10, false},
  };
  for (const Case& c : cases) EXPECT_EQ(KeepForReuse(c.args, c.body_bytes), c.kept) << c.what;
}

TEST(ExtenderWireTest, APodDecodesTheSameFromARequestAndFromTheApi) {
  // An API pod carries much more than headroom reads (managed fields, status, the rest of the
  // spec); the result must be the same as from the scheduler's request.
  const nlohmann::json pod = nlohmann::json::parse(R"({
    "metadata": {"name": "web-6d9f7b-x", "namespace": "shop", "uid": "u1",
                 "labels": {"app": "web", "pod-template-hash": "6d9f7b"},
                 "annotations": {"a": "1", "n": 2},
                 "ownerReferences": [{"kind": "ReplicaSet", "name": "web-6d9f7b", "controller": true}],
                 "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]},
    "spec": {"nodeName": "n1", "containers": [
      {"name": "app", "image": "x", "resources": {"requests": {"cpu": "250m"}, "limits": {"memory": "1Gi"}}},
      {"name": "side", "resources": {"limits": {"cpu": 1}}}]},
    "status": {"phase": "Running"}})");
  absl::StatusOr<PodSpec> from_api = DecodePodObject(pod);
  absl::StatusOr<ExtenderArgs> from_request =
      DecodeExtenderArgs(nlohmann::json{{"Pod", pod}, {"NodeNames", {"n1"}}}.dump());
  ASSERT_TRUE(from_api.ok()) << from_api.status();
  ASSERT_TRUE(from_request.ok()) << from_request.status();
  for (const PodSpec* spec : {&*from_api, &from_request->pod}) {
    EXPECT_EQ(spec->workload_key, "shop/Deployment/web");
    EXPECT_EQ(spec->uid, "u1");
    EXPECT_EQ(spec->annotations, (std::map<std::string, std::string>{{"a", "1"}}));
    ASSERT_EQ(spec->containers.size(), 2u);
    EXPECT_EQ(spec->containers[0].requests, (ResourceAmounts{250, 1LL << 30}));
    EXPECT_EQ(spec->containers[1].requests, (ResourceAmounts{1000, 0}));
  }
  EXPECT_FALSE(DecodePodObject(nlohmann::json::array()).ok());
  EXPECT_FALSE(DecodePodObject(nlohmann::json{{"metadata", "x"}}).ok());
}

using ::headroom::testing::FileContents;
using ::headroom::testing::IsOk;
using ::headroom::testing::SourceFile;
using ::headroom::testing::StatusIs;

constexpr int64_t kGi = 1LL << 30;
constexpr int64_t kMi = 1LL << 20;

std::string Fixture(const std::string& name) {
  return FileContents(SourceFile("tests/testdata/kube-scheduler-extender/" + name));
}

TEST(ExtenderWireTest, DecodesFullNodesMode) {
  absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(Fixture("run1-002-filter.json"));
  ASSERT_THAT(args, IsOk());
  EXPECT_FALSE(args->node_cache_capable);
  EXPECT_EQ(args->pod.name, "pod1");
  EXPECT_EQ(args->pod.pod_namespace, "default");
  EXPECT_EQ(args->pod.workload_key, "default/Pod/pod1");
  ASSERT_EQ(args->pod.containers.size(), 1u);
  EXPECT_EQ(args->pod.containers[0].requests, (ResourceAmounts{500, 256 * kMi}));
  EXPECT_EQ(args->pod.containers[0].limits, (ResourceAmounts{1000, 512 * kMi}));
  ASSERT_EQ(args->nodes.size(), 2u);
  EXPECT_EQ(args->nodes[0].name, "node-a");
  EXPECT_EQ(args->nodes[0].allocatable, (ResourceAmounts{4000, 8 * kGi}));
  EXPECT_EQ(args->nodes[0].max_pods, 110);
}

TEST(ExtenderWireTest, DecodesNodeNamesMode) {
  absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(Fixture("run2-001-filter.json"));
  ASSERT_THAT(args, IsOk());
  EXPECT_TRUE(args->node_cache_capable);
  ASSERT_EQ(args->nodes.size(), 2u);
  EXPECT_FALSE(args->nodes[0].allocatable.has_value());
}

TEST(ExtenderWireTest, FilterResultMirrorsTheRequestMode) {
  const ExtenderArgs full = *DecodeExtenderArgs(Fixture("run1-002-filter.json"));
  FilterResult result;
  result.passed = {"node-b"};
  result.failed["node-a"] = "full";
  const nlohmann::json out = nlohmann::json::parse(EncodeFilterResult(full, result));
  EXPECT_TRUE(out["NodeNames"].is_null());
  ASSERT_EQ(out["Nodes"]["items"].size(), 1u);
  // The Node object goes back unchanged.
  EXPECT_EQ(out["Nodes"]["items"][0],
            nlohmann::json::parse(Fixture("run1-002-filter.json"))["Nodes"]["items"][1]);
  EXPECT_EQ(out["FailedNodes"]["node-a"], "full");
  EXPECT_EQ(out["Error"], "");

  const ExtenderArgs names = *DecodeExtenderArgs(Fixture("run2-001-filter.json"));
  const nlohmann::json none = nlohmann::json::parse(EncodeFilterResult(names, FilterResult{}));
  EXPECT_TRUE(none["NodeNames"].is_array());  // never null: null means "no feasible node"
  EXPECT_TRUE(none["Nodes"].is_null());
  EXPECT_TRUE(none["FailedNodes"].is_object());
}

TEST(ExtenderWireTest, PrioritiesAreABareArray) {
  EXPECT_EQ(EncodeHostPriorities({{"a", 10}, {"b", 0}}),
            R"([{"Host":"a","Score":10},{"Host":"b","Score":0}])");
}

struct BadBody {
  const char* name;
  const char* body;
  const char* message;
};

class BadArgsTest : public ::testing::TestWithParam<BadBody> {};

TEST_P(BadArgsTest, IsRejectedWithTheField) {
  EXPECT_THAT(DecodeExtenderArgs(GetParam().body),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, BadArgsTest,
    ::testing::Values(
        BadBody{"not_json", "{", "not valid JSON"}, BadBody{"array", "[]", "ExtenderArgs"},
        BadBody{"no_pod", R"({"NodeNames":[]})", "Pod: required"},
        BadBody{"no_name", R"({"Pod":{"metadata":{}},"NodeNames":[]})", "Pod.metadata.name"},
        BadBody{"no_nodes", R"({"Pod":{"metadata":{"name":"p"}}})", "neither NodeNames"},
        BadBody{"names_type", R"({"Pod":{"metadata":{"name":"p"}},"NodeNames":"a"})",
                "NodeNames: expected an array"},
        BadBody{"bad_quantity",
                R"({"Pod":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c",
                "resources":{"requests":{"cpu":"lots"}}}]}},"NodeNames":[]})",
                "Pod.spec.containers[0].resources.requests.cpu"},
        BadBody{"annotations_type",
                R"({"Pod":{"metadata":{"name":"p","annotations":[]}},"NodeNames":[]})",
                "Pod.metadata.annotations: expected an object"},
        BadBody{"labels_type", R"({"Pod":{"metadata":{"name":"p","labels":"x"}},"NodeNames":[]})",
                "Pod.metadata.labels: expected an object"},
        BadBody{"node_without_name", R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[{}]}})",
                "Nodes.items[0].metadata.name"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace headroom::extender
