#include "kubelet-hook/transport/plugin_runner.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "shared/status_macros.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

absl::Status ValidatePluginIdentity(const std::string& name, const std::string& index) {
  if (index.size() != 2 || !absl::ascii_isdigit(static_cast<unsigned char>(index[0])) ||
      !absl::ascii_isdigit(static_cast<unsigned char>(index[1]))) {
    return absl::InvalidArgumentError(
        absl::StrCat("plugin index \"", index, "\" must be exactly two digits, e.g. 50"));
  }
  if (name.empty()) return absl::InvalidArgumentError("plugin name must not be empty");
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '+' &&
        c != '-') {
      return absl::InvalidArgumentError(
          absl::StrCat("plugin name \"", name, "\" may only use [A-Za-z0-9_.+-]"));
    }
  }
  return absl::OkStatus();
}

PluginRunner::PluginRunner(RunnerOptions options, RequestHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

absl::StatusOr<int> PluginRunner::Dial() const {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (options_.socket_path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path too long: ", options_.socket_path));
  }
  std::strncpy(address.sun_path, options_.socket_path.c_str(), sizeof(address.sun_path) - 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    const int error = errno;
    ::close(fd);
    return absl::UnavailableError(
        absl::StrCat("connect ", options_.socket_path, ": ", std::strerror(error)));
  }
  return fd;
}

absl::Status PluginRunner::ServeOne(int fd) {
  auto connection = std::make_shared<TrunkConnection>(fd, handler_);
  connection->Start();
  {
    absl::MutexLock lock(&mu_);
    current_ = connection;
    registered_ = false;
    ++connections_;
    if (stopping_) connection->Close();
  }
  napi::RegisterPluginRequest request;
  request.set_plugin_name(options_.plugin_name);
  request.set_plugin_idx(options_.plugin_index);
  absl::StatusOr<std::string> reply = connection->Call(
      kRuntimeService, "RegisterPlugin", request.SerializeAsString(), options_.register_timeout);
  absl::Status result;
  if (!reply.ok()) {
    result = absl::Status(reply.status().code(),
                          absl::StrCat("RegisterPlugin refused: ", reply.status().message()));
    connection->Close();
  } else {
    spdlog::info("nri: registered as {}-{}", options_.plugin_index, options_.plugin_name);
    {
      absl::MutexLock lock(&mu_);
      registered_ = true;
    }
    result = connection->Wait();
  }
  absl::MutexLock lock(&mu_);
  current_.reset();
  registered_ = false;
  return result;
}

absl::Status PluginRunner::Run() {
  if (options_.preconnected_fd >= 0) {
    spdlog::info("nri: pre-launched by the runtime, using fd {}", options_.preconnected_fd);
    return ServeOne(options_.preconnected_fd);
  }
  absl::Duration backoff = options_.min_backoff;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return absl::OkStatus();
    }
    absl::StatusOr<int> fd = Dial();
    absl::Status ended = fd.ok() ? ServeOne(*fd) : fd.status();
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return absl::OkStatus();
    }
    spdlog::warn("nri: {}; reconnecting in {}", std::string(ended.message()),
                 absl::FormatDuration(backoff));
    // A connection that registered and then ended was healthy: start the back-off afresh.
    if (fd.ok() && ended.code() == absl::StatusCode::kUnavailable) backoff = options_.min_backoff;
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), backoff);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

void PluginRunner::Stop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
  if (current_) current_->Close();
}

bool PluginRunner::connected() const {
  absl::MutexLock lock(&mu_);
  return current_ != nullptr && registered_;
}

uint64_t PluginRunner::connections() const {
  absl::MutexLock lock(&mu_);
  return connections_;
}

absl::StatusOr<napi::UpdateContainersResponse> PluginRunner::UpdateContainers(
    const napi::UpdateContainersRequest& request, absl::Duration timeout) {
  std::shared_ptr<TrunkConnection> connection;
  {
    absl::MutexLock lock(&mu_);
    if (!current_ || !registered_) return absl::UnavailableError("not connected to the runtime");
    connection = current_;
  }
  HEADROOM_ASSIGN_OR_RETURN(
      std::string payload,
      connection->Call(kRuntimeService, "UpdateContainers", request.SerializeAsString(), timeout));
  napi::UpdateContainersResponse response;
  if (!response.ParseFromString(payload)) {
    return absl::InvalidArgumentError("undecodable UpdateContainersResponse");
  }
  return response;
}

}  // namespace headroom::nri
