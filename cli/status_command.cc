#include "cli/status_command.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/display.h"
#include "cli/exit_codes.h"
#include "httplib.h"
#include "shared/quantity.h"

namespace headroom::cli {
namespace {

using json = nlohmann::json;

int64_t Int(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<int64_t>() : 0;
}
std::string Cpu(const json& amounts) { return FormatCpuMillis(Int(amounts, "cpuMillis")); }
std::string Mem(const json& amounts) { return FormatMemoryBytes(Int(amounts, "memoryBytes")); }
std::string Text(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}
std::string Percent(double fraction) { return absl::StrCat(std::lround(fraction * 100), "%"); }
std::string Duration(int64_t seconds) {
  if (seconds >= 86400) return absl::StrFormat("%.1fd", seconds / 86400.0);
  if (seconds >= 3600) return absl::StrFormat("%.1fh", seconds / 3600.0);
  if (seconds >= 60) return absl::StrCat(seconds / 60, "m");
  return absl::StrCat(seconds, "s");
}

absl::StatusOr<json> Get(const StatusSource& source, const std::string& path, int* status) {
  absl::StatusOr<ExtenderAnswer> result = GetFromExtender(source, path);
  if (!result.ok()) return result.status();
  *status = result->status;
  json body = json::parse(result->body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) {
    return absl::UnavailableError(
        absl::StrCat(source.url, path, " answered HTTP ", result->status, " without JSON"));
  }
  if (result->status == 404 && path == "/api/v1/status") {
    return absl::UnavailableError(
        absl::StrCat(source.url, " serves no status API (headroom-extender --status-api)"));
  }
  return body;
}

}  // namespace

absl::StatusOr<ExtenderAnswer> GetFromExtender(const StatusSource& source,
                                               const std::string& path) {
  if (!absl::StartsWith(source.url, "http://") && !absl::StartsWith(source.url, "https://")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--extender-url must start with http:// or https://, got \"", source.url, "\""));
  }
  httplib::Client client(source.url);
  if (!source.ca_file.empty()) client.set_ca_cert_path(source.ca_file.c_str());
  const auto seconds = absl::ToInt64Seconds(source.timeout);
  const auto micros = absl::ToInt64Microseconds(source.timeout) % 1000000;
  client.set_connection_timeout(seconds, micros);
  client.set_read_timeout(seconds, micros);
  httplib::Result result = client.Get(path);
  if (!result) {
    return absl::UnavailableError(
        absl::StrCat("cannot reach ", source.url, path, ": ", httplib::to_string(result.error())));
  }
  return ExtenderAnswer{result->status, std::move(result->body)};
}

std::string FormatStatus(const json& status) {
  const json& cluster = status.value("cluster", json::object());
  const json& savings = cluster.value("savings", json::object());
  const json& worth = cluster.value("nodesWorth", json::object());
  const json& declared = cluster.value("declared", json::object());
  const json& projected = cluster.value("projected", json::object());
  const json& allocatable = cluster.value("allocatable", json::object());
  std::string out = absl::StrCat(
      "headroom-extender as of ", Text(status, "generatedAt"), ": ", Int(cluster, "nodes"),
      " nodes reporting, ", Int(cluster, "pods"), " pods",
      status.value("apiConnected", false) ? "" : " (no Kubernetes API: declared = requested now)",
      "\n");
  absl::StrAppend(&out, "  CPU     declared ", Cpu(declared), " -> projected ", Cpu(projected),
                  " of ", Cpu(allocatable), " allocatable: ", Percent(savings.value("cpu", 0.0)),
                  " saved\n");
  absl::StrAppend(&out, "  memory  declared ", Mem(declared), " -> projected ", Mem(projected),
                  " of ", Mem(allocatable), " allocatable: ", Percent(savings.value("memory", 0.0)),
                  " saved\n");
  absl::StrAppend(
      &out, absl::StrFormat("  nodes' worth (average nodes the requests fill): %.1f -> %.1f\n",
                            worth.value("declared", 0.0), worth.value("projected", 0.0)));
  std::vector<std::vector<std::string>> nodes = {
      {"NODE", "CPU PROJECTED/ALLOC", "MEMORY PROJECTED/ALLOC", "PODS", "LOAD", "STATE"}};
  for (const json& node : status.value("nodes", json::array())) {
    std::string state = node.value("cordoned", false)
                            ? absl::StrCat("load-cordoned: ", Text(node, "cordonReason"))
                        : node.value("fits", true) ? "fits"
                                                   : "projection over allocatable";
    nodes.push_back(
        {Text(node, "name"), absl::StrCat(Cpu(node["projected"]), "/", Cpu(node["allocatable"])),
         absl::StrCat(Mem(node["projected"]), "/", Mem(node["allocatable"])),
         absl::StrCat(Int(node, "pods")), absl::StrFormat("%.2f", node.value("load", 0.0)), state});
  }
  absl::StrAppend(&out, "\n", FormatTable(nodes));
  const json& workloads = status.value("workloads", json::array());
  std::vector<std::vector<std::string>> rows = {
      {"WORKLOAD", "REPLICAS", "DECLARED/POD", "HEADROOM/POD", "HISTORY", "OOM", "SIZING"}};
  for (const json& w : workloads) {
    rows.push_back({Text(w, "key"), absl::StrCat(Int(w, "replicas")),
                    absl::StrCat(Cpu(w["declared"]), " ", Mem(w["declared"])),
                    absl::StrCat(Cpu(w["recommended"]), " ", Mem(w["recommended"])),
                    Duration(Int(w, "historySeconds")), w.value("oomKilled", false) ? "yes" : "",
                    Text(w, "sizing")});
  }
  absl::StrAppend(&out, "\n", FormatTable(rows));
  absl::StrAppend(&out, "(", workloads.size(), " of ", Int(status, "workloadsTotal"),
                  " workloads, largest declared CPU first; explain a pod with "
                  "'headroom explain NAMESPACE/POD')\n");
  return out;
}

std::string FormatExplanation(const json& explained) {
  std::string out = absl::StrCat("pod ", Text(explained, "pod"), "\n");
  for (const json& line : explained.value("explanation", json::array())) {
    if (line.is_string()) absl::StrAppend(&out, "  - ", line.get<std::string>(), "\n");
  }
  return out;
}

int RunStatus(const StatusSource& source, absl::string_view output, std::ostream& out,
              std::ostream& err) {
  if (output != "table" && output != "json") {
    err << "headroom status: --output must be table or json\n";
    return kExitBadInput;
  }
  int code = 0;
  absl::StatusOr<json> status = Get(source, "/api/v1/status", &code);
  if (!status.ok()) {
    err << "headroom status: " << status.status().message() << "\n";
    return absl::IsInvalidArgument(status.status()) ? kExitBadInput : kExitFailure;
  }
  if (code != 200) {
    err << "headroom status: HTTP " << code << ": " << status->value("error", std::string())
        << "\n";
    return kExitFailure;
  }
  out << (output == "json" ? status->dump(2) + "\n" : FormatStatus(*status));
  return kExitOk;
}

int RunExplain(const StatusSource& source, absl::string_view pod, absl::string_view output,
               std::ostream& out, std::ostream& err) {
  if (output != "table" && output != "json") {
    err << "headroom explain: --output must be table or json\n";
    return kExitBadInput;
  }
  const size_t slash = pod.find('/');
  if (slash == absl::string_view::npos || slash == 0 || slash + 1 == pod.size()) {
    err << "headroom explain: want NAMESPACE/POD, got \"" << pod << "\"\n";
    return kExitBadInput;
  }
  int code = 0;
  absl::StatusOr<json> explained = Get(
      source,
      absl::StrCat("/api/v1/explain?pod=", httplib::detail::encode_query_param(std::string(pod))),
      &code);
  if (!explained.ok()) {
    err << "headroom explain: " << explained.status().message() << "\n";
    return absl::IsInvalidArgument(explained.status()) ? kExitBadInput : kExitFailure;
  }
  if (code != 200) {
    err << "headroom explain: " << explained->value("error", absl::StrCat("HTTP ", code)) << "\n";
    return code == 404 || code == 400 ? kExitBadInput : kExitFailure;
  }
  out << (output == "json" ? explained->dump(2) + "\n" : FormatExplanation(*explained));
  return kExitOk;
}

}  // namespace headroom::cli
