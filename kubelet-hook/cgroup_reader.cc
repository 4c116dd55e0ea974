#include "kubelet-hook/cgroup_reader.h"

#include <sys/stat.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "io/atomic_file.h"
#include "shared/status_macros.h"

namespace headroom::nri {

namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

absl::StatusOr<uint64_t> ReadNumber(const std::string& path) {
  HEADROOM_ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  uint64_t value = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &value)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a number"));
  }
  return value;
}

// "a-b-c.slice" -> "/a.slice/a-b.slice/a-b-c.slice" (systemd's slice nesting).
std::string ExpandSlice(absl::string_view slice) {
  if (slice == "-.slice" || slice.empty()) return "";
  absl::string_view name = slice;
  if (absl::EndsWith(name, ".slice")) name.remove_suffix(6);
  std::string path;
  std::string prefix;
  for (absl::string_view part : absl::StrSplit(name, '-')) {
    prefix = prefix.empty() ? std::string(part) : absl::StrCat(prefix, "-", part);
    absl::StrAppend(&path, "/", prefix, ".slice");
  }
  return path;
}

}  // namespace

std::optional<uint64_t> KeyedValue(absl::string_view text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (fields.size() == 2 && fields[0] == key) {
      uint64_t value = 0;
      if (absl::SimpleAtoi(fields[1], &value)) return value;
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> PsiSomeTotal(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "some ")) continue;
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      uint64_t value = 0;
      if (absl::ConsumePrefix(&field, "total=") && absl::SimpleAtoi(field, &value)) return value;
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::string> CgroupRelativeDir(absl::string_view cgroups_path) {
  if (cgroups_path.empty()) return absl::InvalidArgumentError("empty cgroups path");
  if (absl::StrContains(cgroups_path, "..")) {
    return absl::InvalidArgumentError(absl::StrCat("cgroups path climbs: ", cgroups_path));
  }
  if (cgroups_path.front() == '/') return std::string(cgroups_path);
  std::vector<absl::string_view> parts = absl::StrSplit(cgroups_path, ':');
  if (parts.size() != 3 || parts[2].empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cgroups path is neither absolute nor slice:prefix:name: ", cgroups_path));
  }
  return absl::StrCat(ExpandSlice(parts[0]), "/",
                      parts[1].empty() ? "" : absl::StrCat(parts[1], "-"), parts[2], ".scope");
}

absl::string_view PsiSourceName(PsiSource source) {
  switch (source) {
    case PsiSource::kNone:
      return "none";
    case PsiSource::kV2:
      return "v2";
    case PsiSource::kHybrid:
      return "hybrid";
  }
  return "none";
}

CgroupReader::CgroupReader(std::string root)
    : CgroupReader(
          root, Exists(root + "/cgroup.controllers") ? CgroupVersion::kV2 : CgroupVersion::kV1) {}

CgroupReader::CgroupReader(std::string root, CgroupVersion version)
    : root_(std::move(root)),
      version_(version),
      hybrid_(version == CgroupVersion::kV1 && Exists(root_ + "/unified/cgroup.controllers")) {}

void CgroupReader::ReadPressure(const std::string& dir, PsiSource source, CgroupSample& sample) {
  // A kernel booted with psi=0 has the files but refuses to read them: no PSI, not an error.
  if (absl::StatusOr<std::string> cpu = io::ReadFile(dir + "/cpu.pressure"); cpu.ok()) {
    sample.cpu_waiting_micros = PsiSomeTotal(*cpu);
  }
  if (absl::StatusOr<std::string> memory = io::ReadFile(dir + "/memory.pressure"); memory.ok()) {
    sample.memory_waiting_micros = PsiSomeTotal(*memory);
  }
  if (sample.cpu_waiting_micros.has_value()) sample.psi_source = source;
}

std::string CgroupReader::Dir(absl::string_view controller, absl::string_view relative) const {
  if (version_ == CgroupVersion::kV2) return absl::StrCat(root_, relative);
  return absl::StrCat(root_, "/", controller, relative);
}

absl::StatusOr<uint64_t> CgroupReader::ReadOomKills(absl::string_view cgroups_path) const {
  HEADROOM_ASSIGN_OR_RETURN(std::string relative, CgroupRelativeDir(cgroups_path));
  const std::string file = version_ == CgroupVersion::kV2
                               ? Dir("", relative) + "/memory.events"
                               : Dir("memory", relative) + "/memory.oom_control";
  HEADROOM_ASSIGN_OR_RETURN(std::string text, io::ReadFile(file));
  return KeyedValue(text, "oom_kill").value_or(0);
}

absl::StatusOr<CgroupSample> CgroupReader::Read(absl::string_view cgroups_path) const {
  HEADROOM_ASSIGN_OR_RETURN(std::string relative, CgroupRelativeDir(cgroups_path));
  CgroupSample sample;
  if (version_ == CgroupVersion::kV2) {
    const std::string dir = Dir("", relative);
    HEADROOM_ASSIGN_OR_RETURN(std::string cpu_stat, io::ReadFile(dir + "/cpu.stat"));
    sample.cpu_usage_nanos = KeyedValue(cpu_stat, "usage_usec").value_or(0) * 1000;
    ReadPressure(dir, PsiSource::kV2, sample);
    HEADROOM_ASSIGN_OR_RETURN(uint64_t current, ReadNumber(dir + "/memory.current"));
    HEADROOM_ASSIGN_OR_RETURN(std::string memory_stat, io::ReadFile(dir + "/memory.stat"));
    const uint64_t inactive = KeyedValue(memory_stat, "inactive_file").value_or(0);
    sample.memory_working_set_bytes =
        static_cast<int64_t>(current > inactive ? current - inactive : 0);
    if (absl::StatusOr<uint64_t> peak = ReadNumber(dir + "/memory.peak"); peak.ok()) {
      sample.memory_max_usage_bytes = static_cast<int64_t>(*peak);
    }
    HEADROOM_ASSIGN_OR_RETURN(std::string events, io::ReadFile(dir + "/memory.events"));
    sample.oom_kills = KeyedValue(events, "oom_kill").value_or(0);
    return sample;
  }
  HEADROOM_ASSIGN_OR_RETURN(sample.cpu_usage_nanos,
                            ReadNumber(Dir("cpuacct", relative) + "/cpuacct.usage"));
  const std::string memory = Dir("memory", relative);
  HEADROOM_ASSIGN_OR_RETURN(uint64_t usage, ReadNumber(memory + "/memory.usage_in_bytes"));
  HEADROOM_ASSIGN_OR_RETURN(std::string memory_stat, io::ReadFile(memory + "/memory.stat"));
  const uint64_t inactive = KeyedValue(memory_stat, "total_inactive_file").value_or(0);
  sample.memory_working_set_bytes = static_cast<int64_t>(usage > inactive ? usage - inactive : 0);
  HEADROOM_ASSIGN_OR_RETURN(uint64_t max_usage, ReadNumber(memory + "/memory.max_usage_in_bytes"));
  sample.memory_max_usage_bytes = static_cast<int64_t>(max_usage);
  HEADROOM_ASSIGN_OR_RETURN(std::string oom_control, io::ReadFile(memory + "/memory.oom_control"));
  sample.oom_kills = KeyedValue(oom_control, "oom_kill").value_or(0);
  if (hybrid_) ReadPressure(absl::StrCat(root_, "/unified", relative), PsiSource::kHybrid, sample);
  return sample;
}

}  // namespace headroom::nri
