// The load cordon as a node taint (extender/actuation/cordon_taint.h): the decision, the patch, the
// node index and the view's cordon states. Against a real API server: scheduler-suite.sh.

#include "extender/actuation/cordon_taint.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

const json kOurs = {
    {"key", "headroom.dev/load-cordon"}, {"value", "load"}, {"effect", "NoSchedule"}};
const json kOther = {{"key", "dedicated"}, {"value", "gpu"}, {"effect", "NoSchedule"}};
const json kForeignKey = {
    {"key", "headroom.dev/load-cordon"}, {"value", "manual"}, {"effect", "NoSchedule"}};

NodeTaints Node(json taints, bool unschedulable = false) {
  return {"n1", "42", std::move(taints), unschedulable};
}

TEST(DecideCordonTaint, Table) {
  const struct {
    std::string name;
    bool cordoned;
    NodeTaints node;
    TaintChange want;
    std::string why;
  } cases[] = {
      {"cordoned, untainted: add", true, Node(json::array({kOther})), TaintChange::kAdd, ""},
      {"cordoned, already ours: nothing", true, Node(json::array({kOurs})), TaintChange::kNone, ""},
      {"released, ours: remove", false, Node(json::array({kOther, kOurs})), TaintChange::kRemove,
       ""},
      {"released, untainted: nothing", false, Node(json::array()), TaintChange::kNone, ""},
      {"someone cordoned the node: no taint added", true, Node(json::array(), true),
       TaintChange::kNone, "cordoned (spec.unschedulable) by someone else"},
      {"the key set by someone else: left alone", true, Node(json::array({kForeignKey})),
       TaintChange::kNone, "set by someone else"},
      {"the key set by someone else, released: left alone", false, Node(json::array({kForeignKey})),
       TaintChange::kNone, ""},
  };
  for (const auto& c : cases) {
    const TaintDecision decision = DecideCordonTaint(c.cordoned, c.node);
    EXPECT_EQ(decision.change, c.want) << c.name;
    EXPECT_THAT(decision.why, ::testing::HasSubstr(c.why)) << c.name;
  }
}

TEST(CordonTaintPatch, KeepsOtherTaintsAndCarriesTheResourceVersion) {
  EXPECT_EQ(CordonTaintPatch(Node(json::array({kOther})), TaintChange::kAdd),
            json({{"metadata", {{"resourceVersion", "42"}}},
                  {"spec", {{"taints", json::array({kOther, kOurs})}}}}));
  EXPECT_EQ(CordonTaintPatch(Node(json::array({kOurs, kOther})), TaintChange::kRemove),
            json({{"metadata", {{"resourceVersion", "42"}}},
                  {"spec", {{"taints", json::array({kOther})}}}}));
  // The last taint gone: an empty list, which a merge patch writes as such.
  EXPECT_EQ(CordonTaintPatch(Node(json::array({kOurs})), TaintChange::kRemove)["spec"]["taints"],
            json::array());
}

TEST(NodeTaintIndex, FollowsTheNodeWatch) {
  NodeTaintIndex index;
  const json node = {{"metadata", {{"name", "n1"}, {"resourceVersion", "7"}}},
                     {"spec", {{"taints", json::array({kOurs})}, {"unschedulable", true}}}};
  index.Replace({node, json::object()});
  std::vector<NodeTaints> nodes = index.Nodes();
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].resource_version, "7");
  EXPECT_TRUE(nodes[0].unschedulable);
  EXPECT_EQ(nodes[0].taints, json::array({kOurs}));
  json changed = node;
  changed["metadata"]["resourceVersion"] = "8";
  changed["spec"].erase("taints");
  index.Apply({WatchEventType::kModified, changed});
  nodes = index.Nodes();
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].resource_version, "8");
  EXPECT_TRUE(nodes[0].taints.empty());
  index.Apply({WatchEventType::kDeleted, changed});
  EXPECT_TRUE(index.Nodes().empty());
}

TEST(ClusterViewLoadCordons, FreshNodesOnlyWithTheirState) {
  const absl::Time now = absl::FromUnixSeconds(1'795'341'600);
  ClusterView view({});
  const auto report = [&](std::string node, double load1, absl::Duration age) {
    NodeReport r;
    r.node = std::move(node);
    r.reported_at = now - age;
    r.allocatable = {4000, int64_t{8} << 30};
    r.load1 = load1;
    r.cpus = 4;
    return r;
  };
  ASSERT_TRUE(view.ApplyReport(report("hot", 8, absl::Seconds(5))).ok());
  ASSERT_TRUE(view.ApplyReport(report("cool", 0.5, absl::Seconds(5))).ok());
  ASSERT_TRUE(view.ApplyReport(report("stale", 8, absl::Minutes(10))).ok());
  const auto cordons = view.LoadCordons(now);
  ASSERT_EQ(cordons.size(), 2u);
  EXPECT_TRUE(cordons.at("hot").cordoned);
  EXPECT_THAT(cordons.at("hot").reason.message, ::testing::HasSubstr("load"));
  EXPECT_FALSE(cordons.at("cool").cordoned);
  EXPECT_FALSE(cordons.contains("stale"));
}

}  // namespace
}  // namespace headroom::extender
