#pragma once

// Prometheus metrics of both daemons, with prometheus-cpp (Debian's prometheus-cpp-dev):
// counters and histograms a component updates live in a prometheus::Registry; values owned
// elsewhere (a component's own counter, a gauge of the cluster view) are read at scrape
// time as ScrapedValue families. ExpositionText writes both in the text format 0.0.4.

#include <string>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/labels.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"

namespace headroom::app {

// One family of one series (`labels` may be empty) with `value`; type Counter or Gauge.
prometheus::MetricFamily ScrapedValue(const std::string& name, const std::string& help,
                                      prometheus::MetricType type, double value,
                                      const prometheus::Labels& labels = {});

// Adds a series to a family made by ScrapedValue (same type).
void AddSeries(prometheus::MetricFamily& family, double value, const prometheus::Labels& labels);

// A family's name, help and type, as registered.
struct FamilyHeader {
  std::string name;
  std::string help;
  prometheus::MetricType type;
};

// The text exposition of every family of `registries`, then of `scraped`, then the HELP and
// TYPE lines of each `declared` family that has no series yet.
std::string ExpositionText(const std::vector<const prometheus::Collectable*>& registries,
                           std::vector<prometheus::MetricFamily> scraped = {},
                           const std::vector<FamilyHeader>& declared = {});

inline constexpr char kExpositionContentType[] = "text/plain; version=0.0.4";

}  // namespace headroom::app
