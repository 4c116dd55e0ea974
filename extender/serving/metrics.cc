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
template <typename Builder>
auto& Registered(Builder builder, const app::FamilyHeader& header, prometheus::Registry& registry) {
  return builder.Name(header.name).Help(header.help).Register(registry);
}

}  // namespace

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(Registered(BuildCounter(), kRequests, *registry_)),
      latency_(Registered(prometheus::BuildHistogram(), kLatency, *registry_)) {}

prometheus::Family<prometheus::Counter>& Metrics::CounterFamily(const app::FamilyHeader& header) {
  absl::MutexLock lock(&families_mu_);
  prometheus::Family<prometheus::Counter>*& family = families_[header.name];
  if (family == nullptr) {
    family = &Registered(BuildCounter(), header, *registry_);
    declared_.push_back(header);
  }
  return *family;
}

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

LabelledCounter::LabelledCounter(Metrics& metrics, const app::FamilyHeader& header)
    : family_(metrics.CounterFamily(header)) {}

void LabelledCounter::Increment(const prometheus::Labels& labels, double by) {
  std::string key;
  for (const auto& [name, value] : labels) absl::StrAppend(&key, value, "\x1f");
  prometheus::Counter* counter = nullptr;
  {
    absl::MutexLock lock(&mu_);
    prometheus::Counter*& found = series_[std::move(key)];
    if (found == nullptr) found = &family_.Add(labels);
    counter = found;
  }
  counter->Increment(by);
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
  std::vector<app::FamilyHeader> declared = {kRequests, kLatency};
  {
    absl::MutexLock lock(&families_mu_);
    declared.insert(declared.end(), declared_.begin(), declared_.end());
  }
  return app::ExpositionText({registry_.get()}, std::move(gauges), declared);
}

}  // namespace headroom::extender
