#include "sim/report.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace headroom::sim {
namespace {

using nlohmann::ordered_json;

constexpr double kGiB = 1024.0 * 1024 * 1024;

const PolicyRun* FindRun(const SimulationResult& result, PolicyKind kind) {
  for (const PolicyRun& run : result.runs) {
    if (run.kind == kind) return &run;
  }
  return nullptr;
}

std::string Percent(double fraction) { return absl::StrFormat("%.0f%%", 100 * fraction); }

std::string Change(double value, double reference) {
  if (reference <= 0) return "-";
  return absl::StrFormat("%+.0f%%", 100 * (value - reference) / reference);
}

int64_t TotalEvictions(const PolicySummary& s) {
  return s.optimizer_evictions + s.pressure_evictions + s.resize_evictions + s.consolidation_moves;
}

double PerPodDay(int64_t count, double pod_days) {
  return pod_days > 0 ? static_cast<double>(count) / pod_days : 0;
}

double NodesOverOracle(const PolicySummary& s, const OracleSummary& oracle) {
  return oracle.nodes_average > 0 ? s.nodes_average / oracle.nodes_average : 0;
}

ordered_json SummaryJson(const PolicySummary& s, const OracleSummary& oracle) {
  const double days = oracle.pod_days;
  return {
      {"requestedCpuCores", s.requested_cpu_millis / 1000},
      {"requestedMemoryGiB", s.requested_memory_bytes / kGiB},
      {"usedCpuCores", s.used_cpu_millis / 1000},
      {"usedMemoryGiB", s.used_memory_bytes / kGiB},
      {"demandCpuCores", s.demand_cpu_millis / 1000},
      {"allocatableCpuCores", s.allocatable_cpu_millis / 1000},
      {"allocatableMemoryGiB", s.allocatable_memory_bytes / kGiB},
      {"cpuUtilisation", s.cpu_utilisation},
      {"memoryUtilisation", s.memory_utilisation},
      {"nodesAverage", s.nodes_average},
      {"nodesMax", s.nodes_max},
      {"nodesFinal", s.nodes_final},
      {"nodesOverOracle", NodesOverOracle(s, oracle)},
      {"oomKills", s.oom_kills},
      {"memoryStallPodHours", s.memory_stall_pod_hours},
      {"memoryPressureRecords", s.memory_pressure_records},
      {"cpuShortfallCoreHours", s.cpu_shortfall_core_hours},
      {"cpuShortfallFraction", s.cpu_shortfall_fraction},
      {"evictions",
       {{"optimizer", s.optimizer_evictions},
        {"memoryPressure", s.pressure_evictions},
        {"resizeRecreate", s.resize_evictions},
        {"consolidation", s.consolidation_moves}}},
      {"inPlaceResizes", s.resizes},
      {"deferredResizes", s.deferred_resizes},
      {"perPodDay",
       {{"evictions",
         {{"optimizer", PerPodDay(s.optimizer_evictions, days)},
          {"memoryPressure", PerPodDay(s.pressure_evictions, days)},
          {"resizeRecreate", PerPodDay(s.resize_evictions, days)},
          {"consolidation", PerPodDay(s.consolidation_moves, days)},
          {"all", PerPodDay(TotalEvictions(s), days)}}},
        {"resizes",
         {{"up", PerPodDay(s.resizes_up, days)},
          {"down", PerPodDay(s.resizes_down, days)},
          {"mixed", PerPodDay(s.resizes_mixed, days)},
          {"deferred", PerPodDay(s.deferred_resizes, days)},
          {"all", PerPodDay(s.resizes, days)}}}}},
      {"departures", s.departures},
      {"pendingPodHours", s.pending_pod_hours},
  };
}

// Colours per policy, readable on white and for the common colour-vision deficiencies.
const char* Colour(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kStatic:
      return "#7f7f7f";
    case PolicyKind::kVpa:
      return "#1f77b4";
    case PolicyKind::kCrane:
      return "#ff7f0e";
    case PolicyKind::kHeadroom:
      return "#2ca02c";
  }
  return "#000000";
}

struct Panel {
  std::string title;
  double top;
  double (*requested)(const TimePoint&);
  double (*demand)(const TimePoint&);  // usage of every pod, pending ones included
};

double NiceStep(double range) {
  const double raw = range / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

}  // namespace

std::vector<std::vector<std::string>> SummaryRows(const SimulationResult& result) {
  std::vector<std::vector<std::string>> rows = {
      {"POLICY", "NODES avg/max", "÷ORACLE", "CPU REQ", "CPU USED", "CPU UTIL", "MEM REQ",
       "MEM USED", "MEM UTIL", "OOM KILLS", "MEM STALL", "CPU SHORTFALL", "EVICTIONS", "RESIZES",
       "PENDING"}};
  for (const PolicyRun& run : result.runs) {
    const PolicySummary& s = run.summary;
    rows.push_back({
        std::string(SizingPolicyName(run.kind)),
        absl::StrFormat("%.1f/%d", s.nodes_average, s.nodes_max),
        absl::StrFormat("%.2f", NodesOverOracle(s, result.oracle)),
        absl::StrFormat("%.0f cores", s.requested_cpu_millis / 1000),
        absl::StrFormat("%.0f cores", s.used_cpu_millis / 1000),
        Percent(s.cpu_utilisation),
        absl::StrFormat("%.0f GiB", s.requested_memory_bytes / kGiB),
        absl::StrFormat("%.0f GiB", s.used_memory_bytes / kGiB),
        Percent(s.memory_utilisation),
        absl::StrCat(s.oom_kills),
        absl::StrFormat("%.1f pod-h", s.memory_stall_pod_hours),
        absl::StrFormat("%.2f%% (%.1f core-h)", 100 * s.cpu_shortfall_fraction,
                        s.cpu_shortfall_core_hours),
        absl::StrCat(TotalEvictions(s)),
        absl::StrCat(s.resizes),
        absl::StrFormat("%.1f pod-h", s.pending_pod_hours),
    });
  }
  return rows;
}

std::string OracleAndRates(const SimulationResult& result) {
  const OracleSummary& o = result.oracle;
  std::string out = absl::StrFormat(
      "Oracle (perfect packing of the usage, each step): %.1f nodes average, %d at most.\n"
      "Per pod-day (%.0f pod-days): evictions by the policy / kubelet memory pressure / resize "
      "re-created / autoscaler drain; resizes up / down / both / deferred:\n",
      o.nodes_average, o.nodes_max, o.pod_days);
  for (const PolicyRun& run : result.runs) {
    const PolicySummary& s = run.summary;
    const double d = o.pod_days;
    absl::StrAppend(
        &out, absl::StrFormat("  %-9s evictions %.3f (%.3f / %.3f / %.3f / %.3f), resizes %.2f "
                              "(%.2f / %.2f / %.2f / %.2f)\n",
                              SizingPolicyName(run.kind), PerPodDay(TotalEvictions(s), d),
                              PerPodDay(s.optimizer_evictions, d),
                              PerPodDay(s.pressure_evictions, d), PerPodDay(s.resize_evictions, d),
                              PerPodDay(s.consolidation_moves, d), PerPodDay(s.resizes, d),
                              PerPodDay(s.resizes_up, d), PerPodDay(s.resizes_down, d),
                              PerPodDay(s.resizes_mixed, d), PerPodDay(s.deferred_resizes, d)));
  }
  return out;
}

std::string SavingsAgainstStatic(const SimulationResult& result) {
  const PolicyRun* baseline = FindRun(result, PolicyKind::kStatic);
  if (baseline == nullptr) return "";
  std::string out = "Against static (declared requests):\n";
  for (const PolicyRun& run : result.runs) {
    if (run.kind == PolicyKind::kStatic) continue;
    absl::StrAppend(
        &out,
        absl::StrFormat(
            "  %-9s CPU requested %s, memory requested %s, nodes %s\n", SizingPolicyName(run.kind),
            Change(run.summary.requested_cpu_millis, baseline->summary.requested_cpu_millis),
            Change(run.summary.requested_memory_bytes, baseline->summary.requested_memory_bytes),
            Change(run.summary.nodes_average, baseline->summary.nodes_average)));
  }
  return out;
}

ordered_json ResultJson(const SimulationResult& result, const ordered_json& inputs) {
  ordered_json policies = ordered_json::array();
  for (const PolicyRun& run : result.runs) {
    ordered_json series = ordered_json::array();
    for (const TimePoint& p : run.series) {
      series.push_back({{"minute", p.minute},
                        {"requestedCpuMillis", p.requested_cpu_millis},
                        {"requestedMemoryBytes", p.requested_memory_bytes},
                        {"usedCpuMillis", p.used_cpu_millis},
                        {"usedMemoryBytes", p.used_memory_bytes},
                        {"demandCpuMillis", p.demand_cpu_millis},
                        {"demandMemoryBytes", p.demand_memory_bytes},
                        {"allocatableCpuMillis", p.allocatable_cpu_millis},
                        {"allocatableMemoryBytes", p.allocatable_memory_bytes},
                        {"nodes", p.nodes},
                        {"pending", p.pending}});
    }
    policies.push_back({{"policy", std::string(SizingPolicyName(run.kind))},
                        {"summary", SummaryJson(run.summary, result.oracle)},
                        {"series", std::move(series)}});
  }
  return {{"inputs", inputs},
          {"pods", result.pods},
          {"minutes", result.minutes},
          {"oracle",
           {{"nodesAverage", result.oracle.nodes_average},
            {"nodesMax", result.oracle.nodes_max},
            {"podDays", result.oracle.pod_days}}},
          {"policies", std::move(policies)}};
}

std::string ResultSvg(const SimulationResult& result, const std::string& title) {
  const double width = 960;
  const double left = 70;
  const double right = 180;
  const double panel_height = 240;
  const double plot_width = width - left - right;
  const std::vector<Panel> panels = {
      {"CPU (cores)", 60, [](const TimePoint& p) { return p.requested_cpu_millis / 1000.0; },
       [](const TimePoint& p) { return p.demand_cpu_millis / 1000.0; }},
      {"Memory (GiB)", 360, [](const TimePoint& p) { return p.requested_memory_bytes / kGiB; },
       [](const TimePoint& p) { return p.demand_memory_bytes / kGiB; }},
  };
  const double height = 660;
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"white\"/>\n<text x=\"%.0f\" y=\"28\" font-size=\"16\">%s</text>\n",
      width, height, left, title);
  const double minutes = std::max(1, result.minutes);
  for (const Panel& panel : panels) {
    double max_value = 0;
    for (const PolicyRun& run : result.runs) {
      for (const TimePoint& p : run.series) {
        max_value = std::max({max_value, panel.requested(p), panel.demand(p)});
      }
    }
    const double step = NiceStep(std::max(max_value, 1.0));
    const double top_value = step * std::ceil(max_value / step);
    const auto x = [&](int minute) { return left + plot_width * minute / minutes; };
    const auto y = [&](double value) {
      return panel.top + panel_height * (1 - value / std::max(top_value, 1e-9));
    };
    absl::StrAppend(
        &svg, absl::StrFormat("<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", left,
                              panel.top - 10, panel.title));
    for (double v = 0; v <= top_value + 1e-9; v += step) {
      absl::StrAppend(&svg,
                      absl::StrFormat("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                                      "stroke=\"#dddddd\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                                      "text-anchor=\"end\">%g</text>\n",
                                      left, left + plot_width, y(v), y(v), left - 6, y(v) + 4, v));
    }
    for (int hour = 0; hour * 60 <= result.minutes; hour += 12) {
      absl::StrAppend(
          &svg, absl::StrFormat("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                                "stroke=\"#eeeeee\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                                "text-anchor=\"middle\">%dh</text>\n",
                                x(hour * 60), x(hour * 60), panel.top, panel.top + panel_height,
                                x(hour * 60), panel.top + panel_height + 16, hour));
    }
    const auto polyline = [&](const PolicyRun& run, double (*value)(const TimePoint&),
                              const char* colour, const char* dash, double stroke) {
      std::string points;
      for (const TimePoint& p : run.series) {
        absl::StrAppend(&points, absl::StrFormat("%.1f,%.1f ", x(p.minute), y(value(p))));
      }
      absl::StrAppend(&svg,
                      absl::StrFormat("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
                                      "stroke-dasharray=\"%s\" points=\"%s\"/>\n",
                                      colour, stroke, dash, points));
    };
    // Demand (every pod's usage, pending ones included) is the same input for every policy:
    // drawn once, in grey.
    if (!result.runs.empty()) polyline(result.runs.front(), panel.demand, "#999999", "4,3", 1.5);
    for (const PolicyRun& run : result.runs) {
      polyline(run, panel.requested, Colour(run.kind), "none", 2);
    }
  }
  // Legend.
  double legend_y = 70;
  const double legend_x = width - right + 20;
  for (const PolicyRun& run : result.runs) {
    absl::StrAppend(
        &svg, absl::StrFormat("<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" "
                              "stroke-width=\"3\"/>\n<text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
                              legend_x, legend_x + 24, legend_y, legend_y, Colour(run.kind),
                              legend_x + 30, legend_y + 4, SizingPolicyName(run.kind)));
    legend_y += 20;
  }
  absl::StrAppend(
      &svg,
      absl::StrFormat("<text x=\"%.0f\" y=\"%.0f\">lines: requested</text>\n<text x=\"%.0f\" "
                      "y=\"%.0f\" fill=\"#777777\">grey dashed: usage</text>\n<text x=\"%.0f\" "
                      "y=\"%.0f\" fill=\"#777777\">(all pods)</text>\n</svg>\n",
                      legend_x, legend_y + 10, legend_x, legend_y + 28, legend_x, legend_y + 46));
  return svg;
}

}  // namespace headroom::sim
