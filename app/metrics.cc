#include "app/metrics.h"

#include <utility>

#include "prometheus/text_serializer.h"

namespace headroom::app {

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
                           std::vector<prometheus::MetricFamily> scraped) {
  std::vector<prometheus::MetricFamily> families;
  for (const prometheus::Collectable* registry : registries) {
    std::vector<prometheus::MetricFamily> collected = registry->Collect();
    families.insert(families.end(), std::make_move_iterator(collected.begin()),
                    std::make_move_iterator(collected.end()));
  }
  families.insert(families.end(), std::make_move_iterator(scraped.begin()),
                  std::make_move_iterator(scraped.end()));
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace headroom::app
