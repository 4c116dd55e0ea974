#include "app/metrics.h"

#include <algorithm>
#include <utility>

#include "prometheus/text_serializer.h"

namespace headroom::app {
namespace {

const char* TypeName(prometheus::MetricType type) {
  switch (type) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Summary:
      return "summary";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Untyped:
      return "untyped";
  }
  return "untyped";
}

}  // namespace

prometheus::MetricFamily ScrapedValue(const std::string& name, const std::string& help,
                                      prometheus::MetricType type, double value,
                                      const prometheus::Labels& labels) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  AddSeries(family, value, labels);
  return family;
}

void AddSeries(prometheus::MetricFamily& family, double value, const prometheus::Labels& labels) {
  prometheus::ClientMetric metric;
  for (const auto& [name, label_value] : labels) metric.label.push_back({name, label_value});
  if (family.type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(std::move(metric));
}

std::string ExpositionText(const std::vector<const prometheus::Collectable*>& registries,
                           std::vector<prometheus::MetricFamily> scraped,
                           const std::vector<FamilyHeader>& declared) {
  std::vector<prometheus::MetricFamily> families;
  for (const prometheus::Collectable* registry : registries) {
    std::vector<prometheus::MetricFamily> collected = registry->Collect();
    families.insert(families.end(), std::make_move_iterator(collected.begin()),
                    std::make_move_iterator(collected.end()));
  }
  families.insert(families.end(), std::make_move_iterator(scraped.begin()),
                  std::make_move_iterator(scraped.end()));
  std::string text = prometheus::TextSerializer().Serialize(families);
  // prometheus-cpp collects nothing of a family without series (a labelled counter nothing has
  // counted yet); its HELP and TYPE lines still say that the metric exists, so dashboards and
  // alerts can be checked against a fresh daemon (scripts/check-dashboard.sh).
  for (const FamilyHeader& header : declared) {
    const bool collected = std::any_of(families.begin(), families.end(),
                                       [&](const auto& f) { return f.name == header.name; });
    if (collected) continue;
    text += "# HELP " + header.name + " " + header.help + "\n";
    text += "# TYPE " + header.name + " " + TypeName(header.type) + "\n";
  }
  return text;
}

}  // namespace headroom::app
