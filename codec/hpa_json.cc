#include "codec/hpa_json.h"

#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"

namespace headroom::codec {
namespace {

using json = nlohmann::json;

// The resource a Resource or ContainerResource metric targets by utilisation; "" otherwise.
std::string UtilisationResource(const json& metric) {
  const std::string type = StringField(metric, "type");
  const char* source = type == "Resource"            ? "resource"
                       : type == "ContainerResource" ? "containerResource"
                                                     : nullptr;
  if (source == nullptr) return "";
  const json& spec = ObjectField(metric, source);
  if (StringField(ObjectField(spec, "target"), "type") != "Utilization") return "";
  return StringField(spec, "name");
}

}  // namespace

absl::StatusOr<HpaObject> DecodeHpa(const json& object) {
  const json& metadata = ObjectField(object, "metadata");
  const std::string hpa_namespace = StringField(metadata, "namespace");
  const std::string name = StringField(metadata, "name");
  if (hpa_namespace.empty() || name.empty()) {
    return absl::InvalidArgumentError("HPA without metadata.namespace and metadata.name");
  }
  const json& spec = ObjectField(object, "spec");
  const json& target = ObjectField(spec, "scaleTargetRef");
  const std::string kind = StringField(target, "kind");
  const std::string target_name = StringField(target, "name");
  if (kind.empty() || target_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("HPA ", hpa_namespace, "/", name,
                                                   ": spec.scaleTargetRef without kind and name"));
  }
  HpaObject hpa;
  hpa.key = absl::StrCat(hpa_namespace, "/", name);
  hpa.workload_key = absl::StrCat(hpa_namespace, "/", kind, "/", target_name);
  hpa.scaling.hpa = hpa.key;
  const json& metrics = ArrayField(spec, "metrics");
  if (metrics.empty()) hpa.scaling.cpu = true;  // the API's default: 80% CPU utilisation
  for (const json& metric : metrics) {
    const std::string resource = UtilisationResource(metric);
    hpa.scaling.cpu = hpa.scaling.cpu || resource == "cpu";
    hpa.scaling.memory = hpa.scaling.memory || resource == "memory";
  }
  return hpa;
}

}  // namespace headroom::codec
