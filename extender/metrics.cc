#include "extender/metrics.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace headroom::extender {

void Metrics::ObserveRequest(const std::string& verb, int status, absl::Duration latency) {
  const double seconds = absl::ToDoubleSeconds(latency);
  absl::MutexLock lock(&mu_);
  ++requests_[{verb, status}];
  Histogram& h = latency_[verb];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++h.counts[i];
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::CountRejection(const std::string& reason_code) {
  absl::MutexLock lock(&mu_);
  ++rejections_[reason_code];
}

void Metrics::CountUnknownNodes(int count) {
  absl::MutexLock lock(&mu_);
  unknown_nodes_ += static_cast<uint64_t>(count);
}

void Metrics::CountAdmission(const std::string& outcome) {
  absl::MutexLock lock(&mu_);
  ++admissions_[outcome];
}

void Metrics::CountAction(const std::string& action, const std::string& outcome) {
  absl::MutexLock lock(&mu_);
  ++actions_[{action, outcome}];
}

void Metrics::CountReport(const std::string& outcome) {
  absl::MutexLock lock(&mu_);
  ++reports_[outcome];
}

void Metrics::CountUnverifiedPods(size_t count) {
  absl::MutexLock lock(&mu_);
  unverified_pods_ += count;
}

std::string Metrics::Render(const ClusterGauges& cluster) const {
  absl::MutexLock lock(&mu_);
  std::string out;
  absl::StrAppend(&out,
                  "# HELP headroom_extender_requests_total Extender requests by verb and HTTP "
                  "status.\n# TYPE headroom_extender_requests_total counter\n");
  for (const auto& [key, count] : requests_) {
    absl::StrAppend(&out, "headroom_extender_requests_total{verb=\"", key.first, "\",code=\"",
                    key.second, "\"} ", count, "\n");
  }
  absl::StrAppend(&out,
                  "# HELP headroom_extender_request_duration_seconds Time to answer a request.\n"
                  "# TYPE headroom_extender_request_duration_seconds histogram\n");
  for (const auto& [verb, h] : latency_) {
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      absl::StrAppend(&out, "headroom_extender_request_duration_seconds_bucket{verb=\"", verb,
                      "\",le=\"", absl::StrFormat("%g", kBuckets[i]), "\"} ", h.counts[i], "\n");
    }
    absl::StrAppend(
        &out, "headroom_extender_request_duration_seconds_bucket{verb=\"", verb, "\",le=\"+Inf\"} ",
        h.count, "\n", "headroom_extender_request_duration_seconds_sum{verb=\"", verb, "\"} ",
        absl::StrFormat("%.9f", h.sum), "\n",
        "headroom_extender_request_duration_seconds_count{verb=\"", verb, "\"} ", h.count, "\n");
  }
  absl::StrAppend(&out,
                  "# HELP headroom_extender_filter_rejections_total Nodes rejected by filter, by "
                  "reason.\n# TYPE headroom_extender_filter_rejections_total counter\n");
  for (const auto& [reason, count] : rejections_) {
    absl::StrAppend(&out, "headroom_extender_filter_rejections_total{reason=\"", reason, "\"} ",
                    count, "\n");
  }
  absl::StrAppend(&out,
                  "# HELP headroom_extender_admissions_total Pod creations reviewed by the "
                  "admission webhook, by outcome.\n# TYPE headroom_extender_admissions_total "
                  "counter\n");
  for (const auto& [outcome, count] : admissions_) {
    absl::StrAppend(&out, "headroom_extender_admissions_total{outcome=\"", outcome, "\"} ", count,
                    "\n");
  }
  absl::StrAppend(&out,
                  "# HELP headroom_extender_actions_total Resizes and evictions the actuator "
                  "decided, by outcome.\n# TYPE headroom_extender_actions_total counter\n");
  for (const auto& [key, count] : actions_) {
    absl::StrAppend(&out, "headroom_extender_actions_total{action=\"", key.first, "\",outcome=\"",
                    key.second, "\"} ", count, "\n");
  }
  absl::StrAppend(&out,
                  "# HELP headroom_extender_reports_total Node reports received, by outcome.\n"
                  "# TYPE headroom_extender_reports_total counter\n");
  for (const auto& [outcome, count] : reports_) {
    absl::StrAppend(&out, "headroom_extender_reports_total{outcome=\"", outcome, "\"} ", count,
                    "\n");
  }
  absl::StrAppend(&out,
                  "# HELP headroom_extender_unverified_pods_total Reported pods the Kubernetes API "
                  "does not confirm (counted on their node, never acted on).\n"
                  "# TYPE headroom_extender_unverified_pods_total counter\n"
                  "headroom_extender_unverified_pods_total ",
                  unverified_pods_, "\n");
  absl::StrAppend(
      &out,
      "# HELP headroom_extender_unknown_nodes_total Nodes passed without a fresh report.\n"
      "# TYPE headroom_extender_unknown_nodes_total counter\n"
      "headroom_extender_unknown_nodes_total ",
      unknown_nodes_, "\n",
      "# HELP headroom_extender_nodes_reported Nodes with a report.\n"
      "# TYPE headroom_extender_nodes_reported gauge\n"
      "headroom_extender_nodes_reported ",
      cluster.nodes_reported, "\n",
      "# HELP headroom_extender_report_age_seconds Age of the oldest and newest node report.\n"
      "# TYPE headroom_extender_report_age_seconds gauge\n"
      "headroom_extender_report_age_seconds{which=\"oldest\"} ",
      absl::StrFormat("%.3f", absl::ToDoubleSeconds(cluster.oldest_report_age)), "\n",
      "headroom_extender_report_age_seconds{which=\"newest\"} ",
      absl::StrFormat("%.3f", absl::ToDoubleSeconds(cluster.newest_report_age)), "\n",
      "# HELP headroom_extender_pending_placements Pods seen bound that no node report covers "
      "yet.\n"
      "# TYPE headroom_extender_pending_placements gauge\n"
      "headroom_extender_pending_placements ",
      cluster.pending_placements, "\n",
      "# HELP headroom_extender_http_connections Open connections to the HTTP listener.\n"
      "# TYPE headroom_extender_http_connections gauge\n"
      "headroom_extender_http_connections ",
      cluster.http_connections, "\n");
  if (cluster.pod_watch.has_value()) {
    const auto& watch = *cluster.pod_watch;
    absl::StrAppend(
        &out,
        "# HELP headroom_extender_pod_watch_synced 1 once the bound pods have been listed.\n"
        "# TYPE headroom_extender_pod_watch_synced gauge\n"
        "headroom_extender_pod_watch_synced ",
        watch.synced ? 1 : 0, "\n",
        "# HELP headroom_extender_pod_watch_lists_total Lists of bound pods (start and after "
        "410 Gone).\n"
        "# TYPE headroom_extender_pod_watch_lists_total counter\n"
        "headroom_extender_pod_watch_lists_total ",
        watch.lists, "\n",
        "# HELP headroom_extender_pod_watch_errors_total Failed lists or watches (retried with "
        "backoff).\n"
        "# TYPE headroom_extender_pod_watch_errors_total counter\n"
        "headroom_extender_pod_watch_errors_total ",
        watch.errors, "\n",
        "# HELP headroom_extender_pod_watch_placements_total Pods counted on their node when "
        "seen bound.\n"
        "# TYPE headroom_extender_pod_watch_placements_total counter\n"
        "headroom_extender_pod_watch_placements_total ",
        watch.placements, "\n",
        "# HELP headroom_extender_api_nodes Nodes whose allocatable the Kubernetes API "
        "supplied.\n"
        "# TYPE headroom_extender_api_nodes gauge\n"
        "headroom_extender_api_nodes ",
        cluster.api_nodes, "\n");
  }
  return out;
}

}  // namespace headroom::extender
