// Every input in tests/testdata/fuzz-regressions/ goes through the decoders the fuzzers
// target: each must be answered (a value or a clear error) without a crash, under the
// sanitizers of the test build.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "codec/report_codec.h"
#include "extender/admission/admission.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_index.h"
#include "extender/kube/pod_placements.h"
#include "extender/reports/h2_meter.h"
#include "extender/scheduler/extender_wire.h"
#include "extender/scheduler/judge.h"
#include "extender/view/cluster_view.h"
#include "extender/view/workload_checkpoint.h"
#include "gtest/gtest.h"
#include "headroom/v1/report.pb.h"
#include "shared/json_nesting.h"
#include "shared/quantity.h"
#include "tests/file_contents.h"

namespace headroom {
namespace {

using ::headroom::testing::FileContents;

const std::filesystem::path kRegressions =
    std::filesystem::path(HEADROOM_SOURCE_DIR) / "tests/testdata/fuzz-regressions";

TEST(FuzzRegressionTest, ExtenderRequestsAreAnsweredOrRefused) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "extender")) {
    const std::string body = FileContents(entry.path());
    absl::StatusOr<extender::ExtenderArgs> args = extender::DecodeExtenderArgs(body);
    if (args.ok()) {
      extender::ClusterView view({});
      const extender::FilterOutcome outcome =
          extender::FilterNodes(*args, view, absl::FromUnixSeconds(1));
      EXPECT_FALSE(extender::EncodeFilterResult(*args, outcome.result).empty())
          << entry.path().filename();
    } else {
      EXPECT_FALSE(args.status().message().empty()) << entry.path().filename();
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 7);
}

TEST(FuzzRegressionTest, PodWatchLinesAreAppliedOrRefused) {
  const extender::FieldMask event_fields = extender::WatchEventFields(extender::BoundPodFields());
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "pod-watch")) {
    const std::string line = FileContents(entry.path());
    absl::StatusOr<extender::WatchEvent> event = extender::ParseWatchEvent(line, &event_fields);
    if (event.ok()) {
      extender::ClusterView view({});
      extender::PodPlacementTracker placements(view);
      extender::PodIndex index;
      placements.Apply(*event, absl::FromUnixSeconds(1));
      index.Apply(*event);
    } else {
      EXPECT_FALSE(event.status().message().empty()) << entry.path().filename();
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 8);
}

TEST(FuzzRegressionTest, Http2MeterVerdictsDoNotDependOnTheSplit) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "h2")) {
    const std::string input = FileContents(entry.path());
    ASSERT_FALSE(input.empty()) << entry.path().filename();
    const size_t chunk = input[0] == 0 ? 1 : static_cast<unsigned char>(input[0]);
    const absl::string_view bytes = absl::string_view(input).substr(1);
    const absl::Time now = absl::FromUnixSeconds(1000);
    extender::H2ClientMeter whole;
    const absl::Status at_once = whole.Feed(bytes, now);
    extender::H2ClientMeter split;
    absl::Status in_chunks;
    for (size_t at = 0; at < bytes.size() && in_chunks.ok(); at += chunk) {
      in_chunks = split.Feed(bytes.substr(at, chunk), now);
    }
    EXPECT_EQ(at_once, in_chunks) << entry.path().filename();
    ++inputs;
  }
  EXPECT_GE(inputs, 6);
}

TEST(FuzzRegressionTest, QuantitiesParseOrAreRefused) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "quantity")) {
    const std::string text = FileContents(entry.path());
    absl::StatusOr<int64_t> millis = ParseCpuMillis(text);
    if (millis.ok()) {
      EXPECT_EQ(ParseCpuMillis(FormatCpuMillis(*millis)).value_or(-1), *millis);
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 6);
}

TEST(FuzzRegressionTest, ReportsAreAppliedOrRefusedAndNeverFromTheFuture) {
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "report")) {
    headroom::v1::NodeReport proto;
    ASSERT_TRUE(proto.ParseFromString(FileContents(entry.path()))) << entry.path().filename();
    absl::StatusOr<headroom::NodeReport> report = headroom::codec::NodeReportFromProto(proto, now);
    if (report.ok()) {
      EXPECT_LE(report->reported_at, now) << entry.path().filename();
      extender::ClusterView view({});
      if (view.ApplyReport(*report).ok()) {
        const auto node = view.Nodes({report->node}, now)[0];
        ASSERT_TRUE(node.has_value());
        EXPECT_GE(node->base_total.cpu_millis, 0) << "saturated, never wrapped";
      }
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 2);
}

TEST(FuzzRegressionTest, AdmissionReviewsAreAnsweredOrRefused) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "admission")) {
    const std::string body = FileContents(entry.path());
    if (CheckJsonNesting(body).ok()) {
      const nlohmann::json review = nlohmann::json::parse(body, nullptr, false);
      if (!review.is_discarded()) {
        (void)extender::DecideAdmission(
            review, [](const std::string&, const std::string&) { return std::nullopt; }, {});
      }
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 2);
}

TEST(FuzzRegressionTest, CheckpointsDecodeOnlyToUsableValues) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "checkpoint")) {
    auto workloads = extender::DecodeWorkloads(FileContents(entry.path()));
    if (workloads.ok()) {
      for (const auto& [key, stats] : *workloads) {
        EXPECT_LE(stats.history, kMaxHistory) << key;
        if (stats.cpu) {
          EXPECT_GE(stats.cpu->base_millis, 0) << key;
        }
      }
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 3);
}

}  // namespace
}  // namespace headroom
