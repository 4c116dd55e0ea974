#pragma once

// headroom-extender's metrics, with prometheus-cpp (app/metrics.h): one registry, the request
// counter and latency histogram every HTTP route shares, and the cluster gauges read at each
// scrape. Each area owns its own counters (scheduler/scheduler_metrics.h,
// admission/admission_metrics.h, actuation/actuation_metrics.h, reports/report_metrics.h),
// registered here through CounterFamily.
//   headroom_extender_requests_total{verb,code}
//   headroom_extender_request_duration_seconds{verb} (histogram)
//   headroom_extender_nodes_reported
//   headroom_extender_report_age_seconds{which="oldest"|"newest"}
//   headroom_extender_pending_placements           placements no report covers yet
//   headroom_extender_http_connections             open connections to the HTTP listener
//   headroom_extender_http_refused_busy_total       503s: no room for a body beside those in flight
//   headroom_extender_pod_watch_synced, _lists_total, _errors_total, _placements_total
//   headroom_extender_api_nodes                    nodes with allocatable from the API
//   headroom_extender_reported_pods                pods of every node's last report
//   headroom_extender_report_queue_length          reports waiting for a worker
//   headroom_extender_report_queue_longest_wait_seconds  the longest any report waited

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "app/metrics.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace headroom::extender {

class Metrics {
 public:
  // Upper bounds of the latency histogram, in seconds.
  static constexpr std::array<double, 14> kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};

  Metrics();

  void ObserveRequest(const std::string& verb, int status, absl::Duration latency);

  // The counter family `header` names, registered once (asking again returns the same family)
  // and declared to the exposition, so it has HELP and TYPE before anything is counted.
  prometheus::Family<prometheus::Counter>& CounterFamily(const app::FamilyHeader& header);

  struct ClusterGauges {
    size_t nodes_reported = 0;
    size_t reported_pods = 0;
    size_t reports_queued = 0;
    absl::Duration report_queue_longest_wait;
    absl::Duration oldest_report_age;
    absl::Duration newest_report_age;
    size_t pending_placements = 0;
    size_t http_connections = 0;     // open connections to the HTTP listener
    uint64_t http_refused_busy = 0;  // requests refused: bodies in flight at their budget
    // The watch of bound pods; absent when no Kubernetes API is configured.
    struct PodWatch {
      bool synced = false;
      int64_t lists = 0;
      int64_t errors = 0;
      int64_t placements = 0;
    };
    std::optional<PodWatch> pod_watch;
    size_t api_nodes = 0;  // nodes whose allocatable the API supplied
  };
  // The text exposition: the registry's series, then `cluster`.
  std::string Render(const ClusterGauges& cluster) const;

 private:
  struct RequestSeries {
    prometheus::Counter* requests;
    prometheus::Histogram* latency;
  };
  // The series of (verb, status): prometheus-cpp finds a series by hashing its label map
  // (about 200 ns, measured by bench/metrics_bench.cc); this is looked up once.
  RequestSeries SeriesFor(const std::string& verb, int status);
  std::shared_ptr<prometheus::Registry> registry_;
  absl::Mutex series_mu_;
  absl::flat_hash_map<std::pair<std::string, int>, RequestSeries> series_
      ABSL_GUARDED_BY(series_mu_);
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& latency_;
  mutable absl::Mutex families_mu_;
  absl::flat_hash_map<std::string, prometheus::Family<prometheus::Counter>*> families_
      ABSL_GUARDED_BY(families_mu_);
  std::vector<app::FamilyHeader> declared_ ABSL_GUARDED_BY(families_mu_);
};

// The series of one counter family an area owns, by label values, each found once
// (prometheus-cpp finds a series by hashing its label map, about 200 ns).
class LabelledCounter {
 public:
  LabelledCounter(Metrics& metrics, const app::FamilyHeader& header);
  void Increment(const prometheus::Labels& labels, double by = 1);

 private:
  prometheus::Family<prometheus::Counter>& family_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, prometheus::Counter*> series_ ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::extender
