#include "kubelet-hook/transport/trunk_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

namespace {

// Go's server refuses even IDs and IDs that do not increase; so do we.
absl::Status CheckClientStreamId(uint32_t id, uint32_t last) {
  if (id % 2 == 0) return absl::InvalidArgumentError("StreamID must be odd for client streams");
  if (id <= last)
    return absl::InvalidArgumentError("StreamID cannot be re-used and must increment");
  return absl::OkStatus();
}

}  // namespace

TrunkConnection::TrunkConnection(int fd, RequestHandler handler)
    : fd_(fd), handler_(std::move(handler)) {
  // A runtime that stops reading must not block our writers forever.
  timeval send_timeout{};
  send_timeout.tv_sec = 5;
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
}

TrunkConnection::~TrunkConnection() {
  Close();
  if (reader_.joinable()) reader_.join();
  ::close(fd_);
}

void TrunkConnection::Start() {
  reader_ = std::thread([this] { ReadLoop(); });
}

bool TrunkConnection::closed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

void TrunkConnection::Close() {
  MarkClosed(absl::CancelledError("connection closed by the plugin"));
  ::shutdown(fd_, SHUT_RDWR);
}

void TrunkConnection::MarkClosed(absl::Status why) {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  closed_ = true;
  close_reason_ = std::move(why);
  for (auto& [id, pending] : pending_) {
    if (pending.done) continue;
    pending.done = true;
    pending.result =
        absl::UnavailableError(absl::StrCat("NRI connection closed: ", close_reason_.message()));
  }
}

absl::Status TrunkConnection::Wait() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&closed_));
  return close_reason_;
}

absl::Status TrunkConnection::Send(uint32_t conn_id, const std::string& ttrpc_message) {
  const std::string frames = EncodeMuxMessage(conn_id, ttrpc_message);
  absl::MutexLock lock(&write_mu_);
  size_t written = 0;
  while (written < frames.size()) {
    const ssize_t n = ::send(fd_, frames.data() + written, frames.size() - written, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      // Whatever part of the frame went out, the stream can no longer be framed: the trunk is
      // closed (Run returns, the runner reconnects) rather than left to carry a torn message.
      absl::Status failed = absl::UnavailableError(
          absl::StrCat("NRI socket write failed after ", written, " of ", frames.size(),
                       " bytes: ", std::strerror(errno), "; connection closed"));
      MarkClosed(failed);
      ::shutdown(fd_, SHUT_RDWR);
      return failed;
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> TrunkConnection::Call(absl::string_view service,
                                                  absl::string_view method,
                                                  absl::string_view payload,
                                                  absl::Duration timeout) {
  uint32_t stream_id = 0;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return absl::UnavailableError("NRI connection is closed");
    stream_id = next_stream_id_;
    next_stream_id_ += 2;
    pending_.try_emplace(stream_id);
  }
  const std::string body =
      EncodeRequest(service, method, payload, absl::ToInt64Nanoseconds(timeout));
  if (absl::Status sent =
          Send(kRuntimeServiceConn, EncodeTtrpcMessage(stream_id, TtrpcType::kRequest, body));
      !sent.ok()) {
    absl::MutexLock lock(&mu_);
    pending_.erase(stream_id);
    return sent;
  }
  absl::MutexLock lock(&mu_);
  Pending* pending = &pending_[stream_id];
  const bool done = mu_.AwaitWithTimeout(absl::Condition(&pending->done), timeout);
  absl::StatusOr<std::string> result =
      done ? std::move(pending_[stream_id].result)
           : absl::DeadlineExceededError(absl::StrCat(method, ": no reply from the runtime within ",
                                                      absl::FormatDuration(timeout)));
  pending_.erase(stream_id);
  return result;
}

void TrunkConnection::ReadLoop() {
  std::vector<char> buffer(64 * 1024);
  absl::Status why = absl::OkStatus();
  while (true) {
    const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (n == 0) {
      why = absl::UnavailableError("runtime closed the NRI connection");
      break;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      why = absl::UnavailableError(absl::StrCat("NRI socket read: ", std::strerror(errno)));
      break;
    }
    std::vector<MuxFrame> frames;
    const absl::Status fed = mux_.Feed(absl::string_view(buffer.data(), n), frames);
    for (MuxFrame& frame : frames) HandleFrame(std::move(frame));
    if (!fed.ok()) {
      why = fed;
      break;
    }
  }
  MarkClosed(why);
}

void TrunkConnection::HandleFrame(MuxFrame frame) {
  std::vector<TtrpcMessage> messages;
  if (frame.conn_id == kPluginServiceConn) {
    server_stream_.Feed(frame.payload, messages);
    for (const TtrpcMessage& message : messages) ServeRequest(message);
  } else if (frame.conn_id == kRuntimeServiceConn) {
    client_stream_.Feed(frame.payload, messages);
    for (const TtrpcMessage& message : messages) CompleteCall(message);
  }
  // Frames for connections nobody opened are dropped, as Go's mux does.
}

void TrunkConnection::ServeRequest(const TtrpcMessage& message) {
  if (message.type != static_cast<uint8_t>(TtrpcType::kRequest)) return;  // ignored, as in Go
  std::string reply;
  if (absl::Status id_ok = CheckClientStreamId(message.stream_id, last_served_stream_);
      !id_ok.ok()) {
    reply = EncodeErrorResponse(RpcCode::kInvalidArgument, id_ok.message());
  } else if (message.oversized_length > 0) {
    last_served_stream_ = message.stream_id;
    reply =
        EncodeErrorResponse(RpcCode::kResourceExhausted,
                            absl::StrCat("message length ", message.oversized_length,
                                         " exceed maximum message size of ", kTtrpcMaxBodyBytes));
  } else {
    last_served_stream_ = message.stream_id;
    absl::StatusOr<ttrpc::Request> request = DecodeRequest(message.body);
    reply = request.ok()
                ? handler_(*request)
                : EncodeErrorResponse(RpcCode::kInvalidArgument, request.status().message());
  }
  if (absl::Status sent = Send(kPluginServiceConn,
                               EncodeTtrpcMessage(message.stream_id, TtrpcType::kResponse, reply));
      !sent.ok()) {
    spdlog::warn("nri: cannot answer runtime stream {}: {}", message.stream_id,
                 std::string(sent.message()));
  }
}

void TrunkConnection::CompleteCall(const TtrpcMessage& message) {
  if (message.type != static_cast<uint8_t>(TtrpcType::kResponse)) return;
  absl::StatusOr<std::string> result =
      message.oversized_length > 0
          ? absl::StatusOr<std::string>(absl::ResourceExhaustedError("runtime reply too large"))
          : [&]() -> absl::StatusOr<std::string> {
    absl::StatusOr<ttrpc::Response> response = DecodeResponse(message.body);
    if (!response.ok()) return response.status();
    return ResponsePayload(*response, "runtime");
  }();
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(message.stream_id);
  if (it == pending_.end() || it->second.done) return;  // late reply to a call that timed out
  it->second.done = true;
  it->second.result = std::move(result);
}

}  // namespace headroom::nri
