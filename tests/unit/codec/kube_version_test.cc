// The apiserver's /version read (extender/kube/cluster_version.h) and the verdict on it.

#include "codec/kube_version.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom::codec {
namespace {

using ::testing::HasSubstr;

struct ParseCase {
  std::string body;
  int major;
  int minor;
  std::string git_version;
};

TEST(ParseKubeVersionTest, ReadsMajorMinorAndGitVersion) {
  const ParseCase cases[] = {
      // kube-apiserver v1.34.3, as the suites' apiserver answers.
      {R"({"major":"1","minor":"34","gitVersion":"v1.34.3","platform":"linux/amd64"})", 1, 34,
       "v1.34.3"},
      // Managed clusters suffix the minor.
      {R"({"major":"1","minor":"33+","gitVersion":"v1.33.5-gke.1080000"})", 1, 33,
       "v1.33.5-gke.1080000"},
      // No numeric major/minor: gitVersion decides.
      {R"({"major":"","minor":"","gitVersion":"v1.37.2"})", 1, 37, "v1.37.2"},
      {R"({"gitVersion":"v1.36.0-rc.1"})", 1, 36, "v1.36.0-rc.1"},
      // major and minor win over a gitVersion that disagrees.
      {R"({"major":"1","minor":"35","gitVersion":"v1.99.0"})", 1, 35, "v1.99.0"},
  };
  for (const ParseCase& c : cases) {
    SCOPED_TRACE(c.body);
    const absl::StatusOr<KubeVersion> version = ParseKubeVersion(c.body);
    ASSERT_TRUE(version.ok()) << version.status();
    EXPECT_EQ(version->line.major, c.major);
    EXPECT_EQ(version->line.minor, c.minor);
    EXPECT_EQ(version->git_version, c.git_version);
  }
}

TEST(ParseKubeVersionTest, RefusesWhatStatesNoVersion) {
  const std::string bodies[] = {
      "",
      "not json",
      "[1, 34]",
      R"({})",
      R"({"major":"one","minor":"thirty-four"})",
      R"({"major":1,"minor":34})",  // numbers, not the strings the API serves
      R"({"gitVersion":"1.34.3"})",
      R"({"gitVersion":"v1"})",
      R"({"major":"1","minor":"123456"})",
  };
  for (const std::string& body : bodies) {
    SCOPED_TRACE(body);
    const absl::StatusOr<KubeVersion> version = ParseKubeVersion(body);
    ASSERT_FALSE(version.ok());
    EXPECT_EQ(version.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(version.status().message(), HasSubstr("/version"));
  }
}

struct JudgeCase {
  int major;
  int minor;
  KubeVersionFit fit;
};

TEST(JudgeKubeVersionTest, SupportsOneThirtyThreeToOneThirtySeven) {
  const JudgeCase cases[] = {
      {0, 99, KubeVersionFit::kTooOld},          {1, 20, KubeVersionFit::kTooOld},
      {1, 32, KubeVersionFit::kTooOld},          {1, 33, KubeVersionFit::kSupported},
      {1, 34, KubeVersionFit::kSupported},       {1, 37, KubeVersionFit::kSupported},
      {1, 38, KubeVersionFit::kNewerThanTested}, {2, 0, KubeVersionFit::kNewerThanTested},
  };
  for (const JudgeCase& c : cases) {
    SCOPED_TRACE(testing::Message() << c.major << "." << c.minor);
    EXPECT_EQ(JudgeKubeVersion({{c.major, c.minor}, ""}).fit, c.fit);
  }
}

TEST(JudgeKubeVersionTest, MessageNamesTheReleaseTheRangeAndWhy) {
  const KubeVersionVerdict old = JudgeKubeVersion({{1, 32}, "v1.32.9"});
  EXPECT_THAT(old.message, HasSubstr("v1.32.9"));
  EXPECT_THAT(old.message, HasSubstr("1.33–1.37"));
  EXPECT_THAT(old.message, HasSubstr("pods/resize"));
  EXPECT_THAT(old.message, HasSubstr("needs 1.33 or newer"));
  EXPECT_THAT(JudgeKubeVersion({{1, 38}, ""}).message, HasSubstr("v1.38 is newer"));
  EXPECT_THAT(JudgeKubeVersion({{1, 34}, "v1.34.3"}).message,
              HasSubstr("Kubernetes v1.34.3 (supported: 1.33–1.37)"));
}

TEST(ReleaseDefaults, NamesWhatEachLineTurnsOn) {
  struct Case {
    KubeMinor line;
    std::vector<std::string> has;
    std::vector<std::string> lacks;
  };
  const Case cases[] = {
      {{1, 32}, {"actuator stays off", "pod-level resources off", "Memory QoS off"}, {"refused"}},
      {{1, 34},
       {"in-place resize beta", "marked Infeasible", "pod-level resources beta"},
       {"GA", "Memory QoS beta"}},
      {{1, 35}, {"sized at admission only"}, {"resized in place"}},
      {{1, 36},
       {"in-place resize GA", "refused by the API", "Memory QoS off",
        "sized at admission and resized in place"},
       {"Infeasible"}},
      {{1, 37}, {"Memory QoS beta", "memory.high follows"}, {"off by default"}},
      {{2, 0}, {"in-place resize GA", "Memory QoS beta"}, {}},
  };
  for (const Case& c : cases) {
    const std::string text = ReleaseDefaults(c.line);
    for (const std::string& want : c.has) {
      EXPECT_NE(text.find(want), std::string::npos) << c.line.minor << ": " << text;
    }
    for (const std::string& not_want : c.lacks) {
      EXPECT_EQ(text.find(not_want), std::string::npos) << c.line.minor << ": " << text;
    }
  }
}

TEST(PodLevelResizeByDefault, FromOneThirtySix) {
  EXPECT_FALSE(PodLevelResizeByDefault({1, 34}));
  EXPECT_FALSE(PodLevelResizeByDefault({1, 35}));  // alpha, off
  EXPECT_TRUE(PodLevelResizeByDefault({1, 36}));
  EXPECT_TRUE(PodLevelResizeByDefault({1, 37}));
  EXPECT_TRUE(PodLevelResizeByDefault({2, 0}));
}

}  // namespace
}  // namespace headroom::codec
