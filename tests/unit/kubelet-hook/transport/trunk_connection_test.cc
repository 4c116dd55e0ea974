// The trunk connection against a fake runtime on a socketpair (a unit-level fake; the real
// containerd is in e2e/local/nri-suite.sh).

#include "kubelet-hook/transport/trunk_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "kubelet-hook/transport/mux_codec.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "kubelet-hook/transport/ttrpc_codec.h"
#include "nri/v1alpha1/api.pb.h"

namespace headroom::nri {
namespace {

// A write that fails (here: the runtime stopped reading; in life, a write torn halfway) closes
// the trunk, so the runner reconnects instead of framing the next message after a torn one.
TEST(TrunkConnection, AFailedWriteClosesTheConnection) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  TrunkConnection plugin(fds[0], [](const ttrpc::Request&) { return EncodeOkResponse(""); });
  plugin.Start();
  ASSERT_EQ(::shutdown(fds[1], SHUT_RD), 0);
  const absl::StatusOr<std::string> sent =
      plugin.Call(kRuntimeService, "UpdateContainers", std::string(1 << 20, 'x'), absl::Seconds(2));
  EXPECT_EQ(sent.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(sent.status().message().find("connection closed"), std::string::npos) << sent.status();
  EXPECT_TRUE(plugin.closed());
  EXPECT_EQ(plugin.Wait().code(), absl::StatusCode::kUnavailable);
  ::close(fds[1]);
}

// A fake runtime on the other end of a socketpair: it calls Configure on connection 1 *before*
// answering RegisterPlugin (as containerd does), so a plugin that blocks its reader on its own
// call would deadlock here.
TEST(TrunkConnection, ServesTheRuntimeWhileItsOwnCallIsPending) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  int served = 0;
  TrunkConnection plugin(fds[0], [&](const ttrpc::Request& request) {
    ++served;
    EXPECT_EQ(request.method(), "Configure");
    napi::ConfigureResponse reply;
    reply.set_events(0x0008);
    return EncodeOkResponse(reply.SerializeAsString());
  });
  plugin.Start();
  std::thread runtime([&] {
    MuxDecoder mux;
    TtrpcStreamDecoder conn1, conn2;
    std::vector<TtrpcMessage> register_calls, configure_replies;
    char buffer[8192];
    auto read_until = [&](auto done) {
      while (!done()) {
        const ssize_t n = ::read(fds[1], buffer, sizeof(buffer));
        ASSERT_GT(n, 0);
        std::vector<MuxFrame> frames;
        ASSERT_TRUE(mux.Feed(absl::string_view(buffer, n), frames).ok());
        for (const MuxFrame& f : frames) {
          (f.conn_id == kRuntimeServiceConn ? conn2 : conn1)
              .Feed(f.payload,
                    f.conn_id == kRuntimeServiceConn ? register_calls : configure_replies);
        }
      }
    };
    read_until([&] { return !register_calls.empty(); });
    EXPECT_EQ(DecodeRequest(register_calls[0].body)->method(), "RegisterPlugin");
    const std::string configure = EncodeMuxMessage(
        kPluginServiceConn,
        EncodeTtrpcMessage(1, TtrpcType::kRequest,
                           EncodeRequest(kPluginService, "Configure", "", 2000000000)));
    ASSERT_EQ(::write(fds[1], configure.data(), configure.size()),
              static_cast<ssize_t>(configure.size()));
    read_until([&] { return !configure_replies.empty(); });
    EXPECT_EQ(configure_replies[0].stream_id, 1u);
    const std::string ok =
        EncodeMuxMessage(kRuntimeServiceConn,
                         EncodeTtrpcMessage(register_calls[0].stream_id, TtrpcType::kResponse, ""));
    ASSERT_EQ(::write(fds[1], ok.data(), ok.size()), static_cast<ssize_t>(ok.size()));
  });
  absl::StatusOr<std::string> registered =
      plugin.Call(kRuntimeService, "RegisterPlugin", "", absl::Seconds(5));
  runtime.join();
  EXPECT_TRUE(registered.ok()) << registered.status();
  EXPECT_EQ(served, 1);
  ::close(fds[1]);
  EXPECT_EQ(plugin.Wait().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(plugin.Call(kRuntimeService, "UpdateContainers", "", absl::Seconds(1)).status().code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace headroom::nri
