// Who may report a node and how far a report is believed: extender/reports/reporter_identity.h,
// extender/reports/report_verification.h, the report codec's clock clamp, the cluster view's use of
// unverified pods, and shared/log_text.h.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codec/report_codec.h"
#include "extender/reports/report_service.h"
#include "extender/reports/report_verification.h"
#include "extender/reports/reporter_identity.h"
#include "extender/status/readiness.h"
#include "extender/view/cluster_view.h"
#include "shared/json_nesting.h"
#include "shared/log_text.h"
#include "tests/status_matchers.h"

using headroom::testing::IsOkAndHolds;
using ::testing::HasSubstr;

namespace headroom::extender {
namespace {

using json = nlohmann::json;
const absl::Time kNow = absl::FromUnixSeconds(1795341600);

TEST(CertificateSpeaksFor, OnlyTheNodeItNames) {
  struct Case {
    std::vector<std::string> common_names;
    std::vector<std::string> alt_names;
    std::string node;
    bool allowed;
  };
  const std::vector<Case> cases = {
      {{"node-a"}, {}, "node-a", true},
      {{"system:node:node-a"}, {}, "node-a", true},
      {{"headroom-nri"}, {"node-a", "10.0.0.1"}, "node-a", true},
      {{"node-b"}, {}, "node-a", false},
      {{"system:node:node-b"}, {"node-b"}, "node-a", false},
      {{"system:node:"}, {}, "", false},
      {{""}, {""}, "", false},
      {{"node-a.example"}, {}, "node-a", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CertificateSpeaksFor(c.common_names, c.alt_names, c.node), c.allowed)
        << c.node << " / " << (c.common_names.empty() ? "" : c.common_names[0]);
  }
}

json Review(bool authenticated, std::string user, json extra,
            json audiences = json::array({"headroom-extender"})) {
  return {{"status",
           {{"authenticated", authenticated},
            {"audiences", audiences},
            {"user", {{"username", user}, {"extra", extra}}}}}};
}

TEST(NodeOfTokenReview, NeedsTheAudienceTheAccountAndOneNode) {
  const std::vector<std::string> accounts = {"system:serviceaccount:headroom-system:headroom-nri"};
  const std::string nri = accounts[0];
  const json node_a = {{kNodeNameExtra, {"node-a"}}};
  EXPECT_THAT(NodeOfTokenReview(Review(true, nri, node_a), "headroom-extender", accounts),
              IsOkAndHolds(std::string("node-a")));
  struct Case {
    std::string name;
    json review;
    absl::StatusCode code;
  };
  const std::vector<Case> cases = {
      {"not authenticated", Review(false, nri, node_a), absl::StatusCode::kUnauthenticated},
      {"no status", json::object(), absl::StatusCode::kUnauthenticated},
      {"other audience", Review(true, nri, node_a, json::array({"https://kubernetes"})),
       absl::StatusCode::kUnauthenticated},
      {"other account", Review(true, "system:serviceaccount:default:default", node_a),
       absl::StatusCode::kPermissionDenied},
      {"no node (a Secret-bound token)", Review(true, nri, json::object()),
       absl::StatusCode::kPermissionDenied},
      {"two nodes", Review(true, nri, {{kNodeNameExtra, {"node-a", "node-b"}}}),
       absl::StatusCode::kPermissionDenied},
      {"node not a string", Review(true, nri, {{kNodeNameExtra, {7}}}),
       absl::StatusCode::kPermissionDenied},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(NodeOfTokenReview(c.review, "headroom-extender", accounts).status().code(), c.code)
        << c.name;
  }
}

TEST(TokenAuthenticator, CachesAnswersBoundedAndRetriesWhenTheApiFails) {
  absl::Time now = kNow;
  int reviews = 0;
  bool api_up = true;
  TokenAuthenticator::Options options;
  options.max_entries = 3;
  TokenAuthenticator tokens(
      [&](const std::string& body) -> absl::StatusOr<json> {
        ++reviews;
        if (!api_up) return absl::UnavailableError("connection refused");
        const std::string token = json::parse(body)["spec"]["token"];
        if (token.rfind("good-", 0) != 0) return Review(false, "", json::object());
        return Review(true, options.service_accounts[0], {{kNodeNameExtra, {token.substr(5)}}});
      },
      options, [&] { return now; });
  EXPECT_THAT(tokens.NodeOf("good-node-a"), IsOkAndHolds(std::string("node-a")));
  EXPECT_THAT(tokens.NodeOf("good-node-a"), IsOkAndHolds(std::string("node-a")));
  EXPECT_EQ(reviews, 1);  // cached
  EXPECT_EQ(tokens.NodeOf("forged").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(tokens.NodeOf("forged").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(reviews, 2);  // refusals are cached too
  EXPECT_EQ(tokens.NodeOf("").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(tokens.NodeOf(std::string(options.max_token_bytes + 1, 'x')).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(reviews, 2);  // neither was sent to the API
  now += options.ttl + absl::Seconds(1);
  api_up = false;
  EXPECT_EQ(tokens.NodeOf("good-node-a").status().code(), absl::StatusCode::kUnavailable);
  api_up = true;
  EXPECT_THAT(tokens.NodeOf("good-node-a"), IsOkAndHolds(std::string("node-a")));
  for (int i = 0; i < 10; ++i) (void)tokens.NodeOf("good-n" + std::to_string(i));
  EXPECT_LE(tokens.cached(), options.max_entries);
}

// A flood of random tokens from one address costs the API server a few reviews, not one per
// token; a node elsewhere is reviewed as usual, and a node's cached token survives a flood of
// distinct bad tokens from many addresses.
TEST(TokenAuthenticator, AFloodOfNewTokensCostsItsSenderNotTheApiServer) {
  absl::Time now = kNow;
  int reviews = 0;
  TokenAuthenticator::Options options;
  options.max_entries = 100;
  TokenAuthenticator tokens(
      [&](const std::string& body) -> absl::StatusOr<json> {
        ++reviews;
        const std::string token = json::parse(body)["spec"]["token"];
        if (token.rfind("good-", 0) != 0) return Review(false, "", json::object());
        return Review(true, options.service_accounts[0], {{kNodeNameExtra, {token.substr(5)}}});
      },
      options, [&] { return now; });
  EXPECT_THAT(tokens.NodeOf("good-node-a", "10.0.0.1"), IsOkAndHolds(std::string("node-a")));
  int throttled = 0;
  for (int i = 0; i < 1000; ++i) {
    const absl::StatusCode code =
        tokens.NodeOf(absl::StrCat("random-", i), "10.9.9.9").status().code();
    if (code == absl::StatusCode::kResourceExhausted) ++throttled;
  }
  EXPECT_EQ(reviews, 1 + 5);  // the node's, and the attacker's burst
  EXPECT_EQ(throttled, 995);
  EXPECT_EQ(tokens.throttled(), 995u);
  now += absl::Seconds(2);  // two more a second later
  for (int i = 0; i < 10; ++i) (void)tokens.NodeOf(absl::StrCat("later-", i), "10.9.9.9");
  EXPECT_EQ(reviews, 1 + 5 + 2);
  // Another node is not held back by the attacker.
  EXPECT_THAT(tokens.NodeOf("good-node-b", "10.0.0.2"), IsOkAndHolds(std::string("node-b")));
  // Distinct bad tokens from many addresses fill the refusal cache, never the node's entry.
  for (int i = 0; i < 500; ++i) {
    (void)tokens.NodeOf(absl::StrCat("many-", i), absl::StrCat("10.1.", i / 250, ".", i % 250));
  }
  const int before = reviews;
  EXPECT_THAT(tokens.NodeOf("good-node-a", "10.0.0.1"), IsOkAndHolds(std::string("node-a")));
  EXPECT_EQ(reviews, before);  // still cached
}

// At most max_concurrent_reviews are asked at once; the others are refused, not queued.
TEST(TokenAuthenticator, BoundsTheReviewsInFlight) {
  TokenAuthenticator::Options options;
  options.max_concurrent_reviews = 2;
  absl::Mutex mu;
  int waiting = 0;
  bool release = false;
  TokenAuthenticator tokens(
      [&](const std::string&) -> absl::StatusOr<json> {
        absl::MutexLock lock(&mu);
        ++waiting;
        mu.Await(absl::Condition(&release));
        return Review(false, "", json::object());
      },
      options);
  std::vector<std::thread> slow;
  for (int i = 0; i < 2; ++i) {
    slow.emplace_back(
        [&, i] { (void)tokens.NodeOf(absl::StrCat("slow-", i), absl::StrCat("a", i)); });
  }
  {
    absl::MutexLock lock(&mu);
    mu.Await(absl::Condition(
        +[](int* n) { return *n == 2; }, &waiting));
  }
  const absl::Status third = tokens.NodeOf("third", "a3").status();
  EXPECT_EQ(third.code(), absl::StatusCode::kUnavailable) << third;
  EXPECT_THAT(std::string(third.message()), HasSubstr("in flight"));
  {
    absl::MutexLock lock(&mu);
    release = true;
  }
  for (std::thread& t : slow) t.join();
  EXPECT_EQ(tokens.NodeOf("fourth", "a4").status().code(), absl::StatusCode::kUnauthenticated);
}

ApiPod Pod(std::string name, std::string node) {
  ApiPod pod;
  pod.pod_namespace = "shop";
  pod.name = name;
  pod.uid = "uid-" + name;
  pod.node = std::move(node);
  pod.owner_kind = "ReplicaSet";
  pod.owner_name = "web-7d9f";
  pod.key_labels = {{"pod-template-hash", "7d9f"}};
  return pod;
}

ReportedPod Reported(std::string name, std::string uid, std::string workload_key) {
  ReportedPod pod;
  pod.pod_namespace = "shop";
  pod.name = std::move(name);
  pod.uid = std::move(uid);
  pod.workload_key = std::move(workload_key);
  return pod;
}

TEST(PodMismatch, APodIsTheApisOnlyWhenEverythingAgrees) {
  struct Case {
    ReportedPod reported;
    std::optional<ApiPod> api;
    std::string why;  // a part of the reason; "" : verified
  };
  const std::vector<Case> cases = {
      {Reported("web-1", "uid-web-1", "shop/Deployment/web"), Pod("web-1", "n1"), ""},
      {Reported("web-1", "uid-web-1", ""), Pod("web-1", "n1"), ""},
      {Reported("web-1", "uid-web-1", "shop/Deployment/web"), std::nullopt, "no such pod"},
      {Reported("web-1", "", "shop/Deployment/web"), Pod("web-1", "n1"), "no UID"},
      {Reported("web-1", "uid-other", "shop/Deployment/web"), Pod("web-1", "n1"), "UID"},
      {Reported("web-1", "uid-web-1", "shop/Deployment/web"), Pod("web-1", "n2"), "node n2"},
      {Reported("web-1", "uid-web-1", "shop/Deployment/web"), Pod("web-1", ""), "not bound"},
      {Reported("web-1", "uid-web-1", "kube-system/Deployment/coredns"), Pod("web-1", "n1"),
       "workload key"},
  };
  for (const Case& c : cases) {
    const std::string why = PodMismatch(c.reported, "n1", c.api);
    if (c.why.empty()) {
      EXPECT_EQ(why, "") << c.reported.name;
    } else {
      EXPECT_NE(why.find(c.why), std::string::npos) << why;
    }
  }
}

TEST(VerifyReport, RefusesUnknownNodesAndMarksPods) {
  NodeReport report;
  report.node = "n1";
  report.pods = {Reported("web-1", "uid-web-1", "shop/Deployment/web"),
                 Reported("ghost", "uid-ghost", "shop/Deployment/web")};
  ApiFacts api;
  bool pods_synced = true;
  bool nodes_synced = true;
  api.find_pod = [](const std::string&, const std::string& name) -> std::optional<ApiPod> {
    if (name == "web-1") return Pod("web-1", "n1");
    return std::nullopt;
  };
  api.pods_synced = [&] { return pods_synced; };
  api.node_exists = [](const std::string& node) { return node == "n1"; };
  api.nodes_synced = [&] { return nodes_synced; };

  absl::StatusOr<std::vector<UnverifiedPod>> unverified = VerifyReport(report, api);
  ASSERT_TRUE(unverified.ok());
  ASSERT_EQ(unverified->size(), 1u);
  EXPECT_EQ((*unverified)[0].pod, "shop/ghost");
  EXPECT_TRUE(report.pods[0].verified);
  EXPECT_FALSE(report.pods[1].verified);

  pods_synced = false;  // before the first list nothing can be confirmed
  EXPECT_EQ(VerifyReport(report, api)->size(), 2u);
  EXPECT_FALSE(report.pods[0].verified);

  report.node = "invented";
  EXPECT_EQ(VerifyReport(report, api).status().code(), absl::StatusCode::kFailedPrecondition);
  nodes_synced = false;  // not listed yet: not refused for it
  EXPECT_TRUE(VerifyReport(report, api).ok());

  EXPECT_TRUE(VerifyReport(report, ApiFacts{})->empty());  // no API: nothing to check
  EXPECT_TRUE(report.pods[1].verified);
}

TEST(NodeReportFromProto, AReportTimeInTheFutureIsItsArrivalOrRefused) {
  headroom::v1::NodeReport proto;
  proto.set_node("n1");
  proto.set_reported_at_unix_millis(absl::ToUnixMillis(kNow + absl::Hours(24 * 365)));
  EXPECT_EQ(codec::NodeReportFromProto(proto, kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
  proto.set_reported_at_unix_millis(absl::ToUnixMillis(kNow + absl::Minutes(5)));  // skew
  EXPECT_EQ(codec::NodeReportFromProto(proto, kNow)->reported_at, kNow);
  proto.set_reported_at_unix_millis(absl::ToUnixMillis(kNow - absl::Seconds(5)));
  EXPECT_EQ(codec::NodeReportFromProto(proto, kNow)->reported_at, kNow - absl::Seconds(5));
}

TEST(NodeReportFromProto, NamesMustBeKubernetesNames) {
  EXPECT_TRUE(codec::IsDnsSubdomain("node-a.example.com"));
  EXPECT_TRUE(codec::IsDnsSubdomain("a"));
  for (const std::string& bad : std::vector<std::string>{
           "", "Node-A", "node_a", "-a", "a-", "node\nforged", "a b", std::string(254, 'a')}) {
    EXPECT_FALSE(codec::IsDnsSubdomain(bad)) << bad;
  }
  headroom::v1::NodeReport proto;
  proto.set_node("evil\n[2026-11-24 00:00:00.000] [headroom-extender] [info] forged");
  EXPECT_EQ(codec::NodeReportFromProto(proto, kNow).status().code(),
            absl::StatusCode::kInvalidArgument);
  proto.set_node("n1");
  headroom::v1::PodReport* pod = proto.add_pods();
  pod->set_namespace_("shop");
  pod->set_name("web-1");
  pod->add_containers()->set_name("app");
  EXPECT_TRUE(codec::NodeReportFromProto(proto, kNow).ok());
  pod->mutable_containers(0)->set_name("App\r");
  EXPECT_FALSE(codec::NodeReportFromProto(proto, kNow).ok());
  pod->mutable_containers(0)->set_name("app");
  pod->set_name(std::string(300, 'p'));
  EXPECT_FALSE(codec::NodeReportFromProto(proto, kNow).ok());
}

TEST(ClusterView, AnUnverifiedPodCountsOnItsNodeButFeedsNoWorkload) {
  ClusterView view(ClusterView::Options{});
  NodeReport report;
  report.node = "n1";
  report.reported_at = kNow;
  report.allocatable = {4000, 8LL << 30};
  ReportedPod forged = Reported("fake", "uid-fake", "shop/Deployment/web");
  forged.requests = {3000, 1LL << 30};
  ContainerDemand container;
  container.name = "app";
  container.cpu = CpuStats{3000, 3500};
  container.history = absl::Hours(30);
  forged.containers = {container};
  forged.verified = false;
  report.pods = {forged};
  ASSERT_TRUE(view.ApplyReport(report).ok());
  EXPECT_FALSE(view.WorkloadContainer("shop/Deployment/web", "app").has_value());
  const std::optional<NodeFootprint> node = view.Nodes({"n1"}, kNow)[0];
  ASSERT_TRUE(node.has_value());
  EXPECT_GE(node->base_total.cpu_millis, 3000);  // counted: the node looks fuller, never emptier
  report.pods[0].verified = true;  // the control: a verified pod does feed its workload
  ASSERT_TRUE(view.ApplyReport(report).ok());
  EXPECT_TRUE(view.WorkloadContainer("shop/Deployment/web", "app").has_value());
}

TEST(LogText, ControlCharactersCannotForgeALine) {
  struct Case {
    std::string in;
    std::string out;
  };
  const std::vector<Case> cases = {
      {"node-a", "node-a"},
      {"node-a\n2026-11-24 [info] forged", "node-a\\x0a2026-11-24 [info] forged"},
      {"a\rb\tc\x1b[31m", "a\\x0db\\x09c\\x1b[31m"},
      {"del\x7f", "del\\x7f"},
      {"ünïcode", "ünïcode"},
  };
  for (const Case& c : cases) EXPECT_EQ(LogText(c.in), c.out);
  EXPECT_EQ(LogText(std::string(600, 'x'), 4), "xxxx...(600 bytes)");
}

TEST(CheckJsonNesting, RefusesDeepNestingOutsideStringsOnly) {
  struct Case {
    std::string text;
    bool ok;
  };
  const std::vector<Case> cases = {
      {R"({"a":[1,{"b":[]}]})", true},
      {std::string(100, '[') + std::string(100, ']'), true},
      {std::string(101, '['), false},
      {std::string(50, '{') + std::string(51, '['), false},
      {"\"" + std::string(5000, '[') + "\"", true},         // inside a string
      {R"(["\"", )" + std::string(101, '[') + "]", false},  // an escaped quote does not end it
      {"not json at all", true},                            // for the decoder to refuse
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CheckJsonNesting(c.text).ok(), c.ok) << c.text.substr(0, 40);
  }
  EXPECT_TRUE(CheckJsonNesting(std::string(5, '['), 5).ok());
  EXPECT_FALSE(CheckJsonNesting(std::string(6, '['), 5).ok());
}

TEST(JudgeReadiness, NotReadyUntilTheNodesHaveReportedOrTheGraceIsOver) {
  struct Case {
    std::string name;
    ReadinessFacts facts;
    bool ready;
  };
  const auto facts = [](bool api, bool listed, size_t nodes, size_t fresh, absl::Duration since) {
    ReadinessFacts f;
    f.api = api;
    f.watches_listed = listed;
    f.api_nodes = nodes;
    f.api_nodes_fresh = fresh;
    f.nodes_reported = fresh;
    f.since_start = since;
    return f;
  };
  const std::vector<Case> cases = {
      {"watches not listed", facts(true, false, 3, 3, absl::Hours(1)), false},
      {"2 of 3 reported, early", facts(true, true, 3, 2, absl::Seconds(30)), false},
      {"all reported, early", facts(true, true, 3, 3, absl::Seconds(30)), true},
      {"2 of 3 reported, after the grace", facts(true, true, 3, 2, absl::Seconds(91)), true},
      {"no API, early", facts(false, false, 0, 2, absl::Seconds(30)), false},
      {"no API, after the grace", facts(false, false, 0, 0, absl::Seconds(91)), true},
  };
  for (const Case& c : cases) {
    const Readiness readiness = JudgeReadiness(c.facts);
    EXPECT_EQ(readiness.ready, c.ready) << c.name << ": " << readiness.message;
    EXPECT_FALSE(readiness.message.empty());
  }
}

TEST(ClusterView, NodesAndWorkloadsAreBounded) {
  ClusterView::Options options;
  options.max_nodes = 2;
  options.max_workload_containers = 1;
  options.node_retention = absl::Minutes(10);
  ClusterView view(options);
  const auto report = [](std::string node, absl::Time at, std::string workload) {
    NodeReport r;
    r.node = std::move(node);
    r.reported_at = at;
    ReportedPod pod = Reported("p-" + r.node, "uid-" + r.node, std::move(workload));
    ContainerDemand container;
    container.name = "app";
    container.cpu = CpuStats{100, 200};
    pod.containers = {container};
    r.pods = {pod};
    return r;
  };
  ASSERT_TRUE(view.ApplyReport(report("n1", kNow - absl::Minutes(20), "shop/Deployment/a")).ok());
  ASSERT_TRUE(view.ApplyReport(report("n2", kNow, "shop/Deployment/b")).ok());
  EXPECT_EQ(view.ApplyReport(report("n3", kNow, "shop/Deployment/c")).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(view.ApplyReport(report("n2", kNow, "shop/Deployment/b")).ok());  // known: fine
  EXPECT_EQ(view.WorkloadContainerCount(), 1u);
  EXPECT_TRUE(view.WorkloadContainer("shop/Deployment/a", "app").has_value());
  EXPECT_FALSE(view.WorkloadContainer("shop/Deployment/b", "app").has_value());
  EXPECT_EQ(view.ExpireNodes(kNow), 1u);  // n1: 20 min without a report
  EXPECT_EQ(view.NodeCount(), 1u);
  EXPECT_TRUE(view.ApplyReport(report("n3", kNow, "shop/Deployment/c")).ok());
}

// The union a workload's readers see, kept as parts change, is the union merged anew from
// every node's latest part, whatever order the parts rise and fall in.
TEST(ClusterView, AWorkloadsUnionFollowsItsPartsUpAndDown) {
  ClusterView::Options options;
  options.workload_retention = absl::Hours(1);
  ClusterView view(options);
  std::mt19937 random(7);
  std::map<std::string, UsageSnapshot> latest;
  for (int step = 0; step < 2000; ++step) {
    const std::string node = absl::StrCat("n", random() % 6);
    UsageSnapshot part;
    if (random() % 5 != 0) part.cpu = CpuStats{int64_t(random() % 50), int64_t(random() % 80)};
    if (random() % 5 != 0) {
      part.memory =
          MemoryStats{int64_t(random() % 50), int64_t(random() % 80), 0, int64_t(random() % 3)};
    }
    part.history = absl::Minutes(random() % 100);
    NodeReport r;
    r.node = node;
    r.reported_at = kNow;
    ReportedPod pod = Reported("p-" + node, "uid-" + node, "shop/DaemonSet/agent");
    ContainerDemand container;
    container.name = "app";
    container.cpu = part.cpu;
    container.memory = part.memory;
    container.history = part.history;
    pod.containers = {container};
    r.pods = {pod};
    ASSERT_TRUE(view.ApplyReport(r).ok());
    if (part.cpu.has_value() || part.memory.has_value()) latest[node] = part;
    UsageSnapshot expected;
    for (const auto& [n, p] : latest) expected = MergeSnapshots(expected, p);
    const std::optional<UsageSnapshot> seen = view.WorkloadContainer("shop/DaemonSet/agent", "app");
    ASSERT_TRUE(seen.has_value());
    ASSERT_EQ(seen->history, expected.history) << "step " << step;
    ASSERT_EQ(seen->cpu.has_value(), expected.cpu.has_value()) << "step " << step;
    if (expected.cpu) {
      ASSERT_EQ(seen->cpu->base_millis, expected.cpu->base_millis) << "step " << step;
      ASSERT_EQ(seen->cpu->peak_millis, expected.cpu->peak_millis) << "step " << step;
    }
    ASSERT_EQ(seen->memory.has_value(), expected.memory.has_value()) << "step " << step;
    if (expected.memory) {
      ASSERT_EQ(seen->memory->base_bytes, expected.memory->base_bytes) << "step " << step;
      ASSERT_EQ(seen->memory->peak_bytes, expected.memory->peak_bytes) << "step " << step;
      ASSERT_EQ(seen->memory->oom_bytes, expected.memory->oom_bytes) << "step " << step;
    }
  }
}

TEST(ClusterView, PodsAcrossAllNodesAreBounded) {
  ClusterView::Options options;
  options.max_reported_pods = 5;
  options.node_retention = absl::Minutes(10);
  ClusterView view(options);
  const auto report = [](std::string node, absl::Time at, int pods) {
    NodeReport r;
    r.node = std::move(node);
    r.reported_at = at;
    for (int i = 0; i < pods; ++i) {
      r.pods.push_back(Reported(absl::StrCat(r.node, "-p", i), absl::StrCat(r.node, "-u", i), ""));
    }
    return r;
  };
  ASSERT_TRUE(view.ApplyReport(report("n1", kNow - absl::Minutes(20), 3)).ok());
  ASSERT_TRUE(view.ApplyReport(report("n2", kNow, 2)).ok());
  EXPECT_EQ(view.ReportedPodCount(), 5u);
  // A third node, or a node that grows, would go beyond: refused, and nothing changed.
  const absl::Status refused = view.ApplyReport(report("n3", kNow, 1));
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("the limit is 5"));
  EXPECT_EQ(view.ApplyReport(report("n2", kNow, 3)).code(), absl::StatusCode::kResourceExhausted);
  // The same answer before a report is decoded.
  EXPECT_EQ(view.CheckRoom("n3", 1).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(view.CheckRoom("n2", 3).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(view.CheckRoom("n2", 2).ok());
  EXPECT_TRUE(view.CheckRoom("n1", 0).ok());
  EXPECT_EQ(view.NodeCount(), 2u);
  EXPECT_EQ(view.ReportedPodCount(), 5u);
  // A node that shrinks or stays is always heard; the room it leaves is another's.
  EXPECT_TRUE(view.ApplyReport(report("n2", kNow, 2)).ok());
  EXPECT_TRUE(view.ApplyReport(report("n1", kNow - absl::Minutes(20), 1)).ok());
  EXPECT_EQ(view.ReportedPodCount(), 3u);
  EXPECT_TRUE(view.ApplyReport(report("n3", kNow, 2)).ok());
  EXPECT_EQ(view.ReportedPodCount(), 5u);
  // An expired node's pods leave with it.
  EXPECT_EQ(view.ExpireNodes(kNow), 1u);
  EXPECT_EQ(view.ReportedPodCount(), 4u);
  EXPECT_TRUE(view.ApplyReport(report("n4", kNow, 1)).ok());
}

// gRPC's quota leaves every connection the front door admits its idle reservation (below
// it gRPC closes idle report connections), and never goes below the configured floor.
TEST(GrpcMemoryQuota, CoversEveryAdmittedConnection) {
  ReportServerLimits limits;
  EXPECT_EQ(GrpcMemoryQuota(limits), size_t{192} << 20);  // 8192 connections
  EXPECT_GE(GrpcMemoryQuota(limits), limits.max_connections * (size_t{16} << 10));
  limits.max_connections = 100;
  EXPECT_EQ(GrpcMemoryQuota(limits), size_t{64} << 20);
  limits.max_memory_bytes = size_t{256} << 20;
  limits.max_connections = 8192;
  EXPECT_EQ(GrpcMemoryQuota(limits), size_t{256} << 20);
}

}  // namespace
}  // namespace headroom::extender
