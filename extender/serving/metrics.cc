#include "extender/serving/metrics.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "app/metrics.h"
#include "prometheus/gauge.h"

namespace headroom::extender {
namespace {

using prometheus::BuildCounter;
using prometheus::MetricType;

// The registry's families, each registered from here and declared to the exposition, so a
// family nothing has counted yet still appears (HELP and TYPE).
const app::FamilyHeader kRequests{"headroom_extender_requests_total",
                                  "Extender requests by verb and HTTP status.",
                                  MetricType::Counter};
const app::FamilyHeader kLatency{"headroom_extender_request_duration_seconds",
                                 "Time to answer a request.", MetricType::Histogram};
const app::FamilyHeader kRejections{"headroom_extender_filter_rejections_total",
                                    "Nodes rejected by filter, by reason.", MetricType::Counter};
const app::FamilyHeader kAdmissions{"headroom_extender_admissions_total",
                                    "Pod creations reviewed by the admission webhook, by outcome.",
                                    MetricType::Counter};
const app::FamilyHeader kActions{"headroom_extender_actions_total",
                                 "Resizes and evictions the actuator decided, by outcome.",
                                 MetricType::Counter};
const app::FamilyHeader kReports{"headroom_extender_reports_total",
                                 "Node reports received, by outcome.", MetricType::Counter};
const app::FamilyHeader kRefusedReportConnections{
    "headroom_extender_report_connections_refused_total",
    "Connections to the report port refused or cut by its front door, by reason.",
    MetricType::Counter};
const app::FamilyHeader kUnverifiedPods{
    "headroom_extender_unverified_pods_total",
    "Reported pods the Kubernetes API does not confirm (counted on their node, never acted on).",
    MetricType::Counter};
const app::FamilyHeader kUnknownNodes{"headroom_extender_unknown_nodes_total",
                                      "Nodes passed without a fresh report.", MetricType::Counter};

template <typename Builder>
auto& Registered(Builder builder, const app::FamilyHeader& header, prometheus::Registry& registry) {
  return builder.Name(header.name).Help(header.help).Register(registry);
}

}  // namespace

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(Registered(BuildCounter(), kRequests, *registry_)),
      latency_(Registered(prometheus::BuildHistogram(), kLatency, *registry_)),
      rejections_(Registered(BuildCounter(), kRejections, *registry_)),
      admissions_(Registered(BuildCounter(), kAdmissions, *registry_)),
      actions_(Registered(BuildCounter(), kActions, *registry_)),
      reports_(Registered(BuildCounter(), kReports, *registry_)),
      refused_report_connections_(
          Registered(BuildCounter(), kRefusedReportConnections, *registry_)),
      unverified_pods_(Registered(BuildCounter(), kUnverifiedPods, *registry_).Add({})),
      unknown_nodes_(Registered(BuildCounter(), kUnknownNodes, *registry_).Add({})) {}

Metrics::RequestSeries Metrics::SeriesFor(const std::string& verb, int status) {
  absl::MutexLock lock(&series_mu_);
  auto [it, added] = series_.try_emplace({verb, status});
  if (added) {
    static const prometheus::Histogram::BucketBoundaries kBoundaries(kBuckets.begin(),
                                                                     kBuckets.end());
    it->second.requests = &requests_.Add({{"verb", verb}, {"code", std::to_string(status)}});
    it->second.latency = &latency_.Add({{"verb", verb}}, kBoundaries);
  }
  return it->second;
}

void Metrics::ObserveRequest(const std::string& verb, int status, absl::Duration latency) {
  const RequestSeries series = SeriesFor(verb, status);
  series.requests->Increment();
  series.latency->Observe(absl::ToDoubleSeconds(latency));
}

prometheus::Counter& Metrics::CounterFor(prometheus::Family<prometheus::Counter>& family,
                                         const prometheus::Labels& labels) {
  std::string key;
  for (const auto& [name, value] : labels) absl::StrAppend(&key, value, "\x1f");
  absl::MutexLock lock(&series_mu_);
  prometheus::Counter*& counter = counters_[{&family, std::move(key)}];
  if (counter == nullptr) counter = &family.Add(labels);
  return *counter;
}

void Metrics::CountRejection(const std::string& reason_code) {
  CounterFor(rejections_, {{"reason", reason_code}}).Increment();
}

void Metrics::CountUnknownNodes(int count) {
  if (count > 0) unknown_nodes_.Increment(count);
}

void Metrics::CountAdmission(const std::string& outcome) {
  CounterFor(admissions_, {{"outcome", outcome}}).Increment();
}

void Metrics::CountAction(const std::string& action, const std::string& outcome) {
  CounterFor(actions_, {{"action", action}, {"outcome", outcome}}).Increment();
}

void Metrics::CountReport(const std::string& outcome) {
  CounterFor(reports_, {{"outcome", outcome}}).Increment();
}

void Metrics::CountRefusedReportConnection(const std::string& reason) {
  CounterFor(refused_report_connections_, {{"reason", reason}}).Increment();
}

void Metrics::CountUnverifiedPods(size_t count) {
  if (count > 0) unverified_pods_.Increment(static_cast<double>(count));
}

std::string Metrics::Render(const ClusterGauges& cluster) const {
  std::vector<prometheus::MetricFamily> gauges;
  gauges.push_back(app::ScrapedValue("headroom_extender_nodes_reported", "Nodes with a report.",
                                     MetricType::Gauge,
                                     static_cast<double>(cluster.nodes_reported)));
  gauges.push_back(app::ScrapedValue("headroom_extender_reported_pods",
                                     "Pods of every node's last report.", MetricType::Gauge,
                                     static_cast<double>(cluster.reported_pods)));
  gauges.push_back(app::ScrapedValue("headroom_extender_report_queue_length",
                                     "Node reports waiting for a worker.", MetricType::Gauge,
                                     static_cast<double>(cluster.reports_queued)));
  gauges.push_back(app::ScrapedValue(
      "headroom_extender_report_queue_longest_wait_seconds",
      "The longest any node report has waited for a worker since the start.", MetricType::Gauge,
      absl::ToDoubleSeconds(cluster.report_queue_longest_wait)));
  prometheus::MetricFamily ages = app::ScrapedValue(
      "headroom_extender_report_age_seconds", "Age of the oldest and newest node report.",
      MetricType::Gauge, absl::ToDoubleSeconds(cluster.oldest_report_age), {{"which", "oldest"}});
  app::AddSeries(ages, absl::ToDoubleSeconds(cluster.newest_report_age), {{"which", "newest"}});
  gauges.push_back(std::move(ages));
  gauges.push_back(app::ScrapedValue(
      "headroom_extender_pending_placements", "Pods seen bound that no node report covers yet.",
      MetricType::Gauge, static_cast<double>(cluster.pending_placements)));
  gauges.push_back(app::ScrapedValue("headroom_extender_http_connections",
                                     "Open connections to the HTTP listener.", MetricType::Gauge,
                                     static_cast<double>(cluster.http_connections)));
  gauges.push_back(app::ScrapedValue(
      "headroom_extender_http_refused_busy_total",
      "Requests refused (503) because the bodies in flight left no room for theirs.",
      MetricType::Counter, static_cast<double>(cluster.http_refused_busy)));
  if (cluster.pod_watch.has_value()) {
    const auto& watch = *cluster.pod_watch;
    gauges.push_back(app::ScrapedValue("headroom_extender_pod_watch_synced",
                                       "1 once the bound pods have been listed.", MetricType::Gauge,
                                       watch.synced ? 1 : 0));
    gauges.push_back(app::ScrapedValue("headroom_extender_pod_watch_lists_total",
                                       "Lists of bound pods (start and after 410 Gone).",
                                       MetricType::Counter, static_cast<double>(watch.lists)));
    gauges.push_back(app::ScrapedValue("headroom_extender_pod_watch_errors_total",
                                       "Failed lists or watches (retried with backoff).",
                                       MetricType::Counter, static_cast<double>(watch.errors)));
    gauges.push_back(app::ScrapedValue("headroom_extender_pod_watch_placements_total",
                                       "Pods counted on their node when seen bound.",
                                       MetricType::Counter, static_cast<double>(watch.placements)));
    gauges.push_back(app::ScrapedValue("headroom_extender_api_nodes",
                                       "Nodes whose allocatable the Kubernetes API supplied.",
                                       MetricType::Gauge, static_cast<double>(cluster.api_nodes)));
  }
  static const std::vector<app::FamilyHeader> kDeclared = {kRequests,
                                                           kLatency,
                                                           kRejections,
                                                           kAdmissions,
                                                           kActions,
                                                           kReports,
                                                           kRefusedReportConnections,
                                                           kUnverifiedPods,
                                                           kUnknownNodes};
  return app::ExpositionText({registry_.get()}, std::move(gauges), kDeclared);
}

}  // namespace headroom::extender
