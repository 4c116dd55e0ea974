#pragma once

// headroom-extender's metrics, with prometheus-cpp (app/metrics.h): the counters and the
// latency histogram live in a registry; the cluster gauges are read at each scrape.
//   headroom_extender_requests_total{verb,code}
//   headroom_extender_request_duration_seconds{verb} (histogram)
//   headroom_extender_filter_rejections_total{reason}
//   headroom_extender_unknown_nodes_total           nodes passed without a fresh report
//   headroom_extender_nodes_reported
//   headroom_extender_report_age_seconds{which="oldest"|"newest"}
//   headroom_extender_pending_placements           placements no report covers yet
//   headroom_extender_http_connections             open connections to the HTTP listener
//   headroom_extender_http_refused_busy_total       503s: no room for a body beside those in flight
//   headroom_extender_pod_watch_synced, _lists_total, _errors_total, _placements_total
//   headroom_extender_api_nodes                    nodes with allocatable from the API
//   headroom_extender_admissions_total{outcome}    mutated | not_applied | unchanged | malformed
//   headroom_extender_actions_total{action,outcome} resizes and evictions (actuator.h)
//   headroom_extender_reports_total{outcome}       node reports: accepted | unauthenticated |
//                                                  forbidden | invalid | unknown_node |
//                                                  unavailable | throttled | busy (queue full) |
//                                                  expired (deadline passed in the queue) |
//                                                  over_limit (nodes or pods at their bound)
//   headroom_extender_reported_pods                pods of every node's last report
//   headroom_extender_report_queue_length          reports waiting for a worker
//   headroom_extender_report_queue_longest_wait_seconds  the longest any report waited
//   headroom_extender_unverified_pods_total        reported pods the API does not confirm
//   headroom_extender_report_connections_refused_total{reason}  cut by the report port's
//                                                  front door: connection_cap | address_cap |
//                                                  handshake | http2_flood | http2_protocol

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
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
  void CountRejection(const std::string& reason_code);
  void CountUnknownNodes(int count);
  void CountAdmission(const std::string& outcome);
  void CountAction(const std::string& action, const std::string& outcome);
  void CountReport(const std::string& outcome);
  void CountUnverifiedPods(size_t count);
  void CountRefusedReportConnection(const std::string& reason);

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
  // The counter of `family` with `labels`, found once (CountRejection runs per rejected node).
  prometheus::Counter& CounterFor(prometheus::Family<prometheus::Counter>& family,
                                  const prometheus::Labels& labels);

  std::shared_ptr<prometheus::Registry> registry_;
  absl::Mutex series_mu_;
  absl::flat_hash_map<std::pair<std::string, int>, RequestSeries> series_
      ABSL_GUARDED_BY(series_mu_);
  // By family and label values.
  absl::flat_hash_map<std::pair<const void*, std::string>, prometheus::Counter*> counters_
      ABSL_GUARDED_BY(series_mu_);
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& latency_;
  prometheus::Family<prometheus::Counter>& rejections_;
  prometheus::Family<prometheus::Counter>& admissions_;
  prometheus::Family<prometheus::Counter>& actions_;
  prometheus::Family<prometheus::Counter>& reports_;
  prometheus::Family<prometheus::Counter>& refused_report_connections_;
  prometheus::Counter& unverified_pods_;
  prometheus::Counter& unknown_nodes_;
};

}  // namespace headroom::extender
