#include "codec/kube_version.h"

#include <cctype>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace headroom::codec {
namespace {

// The leading decimal digits of `text` ("34+" -> 34); nullopt without any, or beyond 9999.
std::optional<int> LeadingNumber(std::string_view text) {
  int value = 0;
  size_t digits = 0;
  for (; digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])); ++digits) {
    if (digits == 4) return std::nullopt;
    value = value * 10 + (text[digits] - '0');
  }
  if (digits == 0) return std::nullopt;
  return value;
}

std::optional<int> NumberMember(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return LeadingNumber(it->get_ref<const std::string&>());
}

// "v1.34.3..." -> {1, 34}.
bool ReadGitVersion(std::string_view git, KubeVersion& version) {
  if (git.empty() || git.front() != 'v') return false;
  git.remove_prefix(1);
  const std::optional<int> major = LeadingNumber(git);
  const size_t dot = git.find('.');
  if (!major || dot == std::string_view::npos) return false;
  const std::optional<int> minor = LeadingNumber(git.substr(dot + 1));
  if (!minor) return false;
  version.line = {*major, *minor};
  return true;
}

bool Older(const KubeMinor& a, const KubeMinor& b) {
  return a.major != b.major ? a.major < b.major : a.minor < b.minor;
}

std::string LineText(const KubeMinor& line) { return absl::StrCat(line.major, ".", line.minor); }

std::string Range() {
  return absl::StrCat(LineText(kOldestSupportedKube), "–", LineText(kNewestTestedKube));
}

}  // namespace

absl::StatusOr<KubeVersion> ParseKubeVersion(std::string_view version_json) {
  const nlohmann::json body = nlohmann::json::parse(version_json, nullptr, false);
  if (!body.is_object()) {
    return absl::InvalidArgumentError("the apiserver's /version is not a JSON object");
  }
  KubeVersion version;
  if (const auto git = body.find("gitVersion"); git != body.end() && git->is_string()) {
    version.git_version = git->get<std::string>();
  }
  const std::optional<int> major = NumberMember(body, "major");
  const std::optional<int> minor = NumberMember(body, "minor");
  if (major && minor) {
    version.line = {*major, *minor};
    return version;
  }
  if (ReadGitVersion(version.git_version, version)) return version;
  return absl::InvalidArgumentError(
      "the apiserver's /version has neither numeric major and minor nor a gitVersion "
      "vMAJOR.MINOR");
}

KubeVersionVerdict JudgeKubeVersion(const KubeVersion& version) {
  const KubeMinor& line = version.line;
  const std::string release =
      version.git_version.empty() ? absl::StrCat("v", LineText(line)) : version.git_version;
  if (Older(line, kOldestSupportedKube)) {
    return {KubeVersionFit::kTooOld,
            absl::StrCat("Kubernetes ", release, " is older than headroom supports (", Range(),
                         "): it has no pods/resize subresource for in-place resize, which "
                         "needs ",
                         LineText(kOldestSupportedKube), " or newer")};
  }
  if (Older(kNewestTestedKube, line)) {
    return {KubeVersionFit::kNewerThanTested,
            absl::StrCat("Kubernetes ", release, " is newer than headroom was tested on (", Range(),
                         "); carrying on")};
  }
  return {KubeVersionFit::kSupported,
          absl::StrCat("Kubernetes ", release, " (supported: ", Range(), ")")};
}

std::string ReleaseDefaults(KubeMinor line) {
  const auto at_least = [&](int minor) { return !Older(line, KubeMinor{1, minor}); };
  std::vector<std::string> parts;
  parts.push_back(at_least(35)   ? "in-place resize GA"
                  : at_least(33) ? "in-place resize beta (on)"
                                 : "in-place resize not on by default: the actuator stays off");
  if (at_least(33)) {
    parts.push_back(at_least(36) ? "a resize beyond the node's capacity is refused by the API "
                                   "(backed off, counted as refused)"
                                 : "a resize beyond the node's capacity is marked Infeasible");
  }
  parts.push_back(PodLevelResizeByDefault(line)
                      ? "pod-level resources beta (on): sized at admission and resized in place"
                  : at_least(34) ? "pod-level resources beta (on): sized at admission only"
                                 : "pod-level resources off by default");
  parts.push_back(at_least(37) ? "Memory QoS beta (on, cgroup v2 nodes): memory.high follows "
                                 "headroom-nri's limits"
                               : "Memory QoS off by default");
  return absl::StrJoin(parts, "; ");
}

bool PodLevelResizeByDefault(KubeMinor line) { return !Older(line, KubeMinor{1, 36}); }

}  // namespace headroom::codec
