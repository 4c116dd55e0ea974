// io/http_server.h over real loopback sockets: routing, keep-alive, and every bound a hostile
// client could push on (body, header, time, connections), plus a prompt Stop().

#include "io/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace headroom::io {
namespace {

// A raw client connection; closes on destruction.
class Connection {
 public:
  explicit Connection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~Connection() { ::close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool connected() const { return connected_; }
  bool Send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Reads until `done` says the bytes so far are complete, the peer closes, or `timeout`.
  std::string Read(std::chrono::milliseconds timeout,
                   const std::function<bool(const std::string&)>& done = nullptr) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 1))) <= 0) break;
      char chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      out.append(chunk, static_cast<size_t>(n));
      if (done && done(out)) break;
    }
    return out;
  }
  // One whole response with a Content-Length body.
  std::string ReadResponse(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return Read(timeout, [](const std::string& bytes) {
      const size_t end = bytes.find("\r\n\r\n");
      if (end == std::string::npos) return false;
      const size_t length_at = bytes.find("Content-Length: ");
      if (length_at == std::string::npos || length_at > end) return true;
      const size_t length = std::stoul(bytes.substr(length_at + 16));
      return bytes.size() >= end + 4 + length;
    });
  }
  bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
};

std::string Get(const std::string& path, bool close = false) {
  return absl::StrCat("GET ", path, " HTTP/1.1\r\nHost: t\r\n",
                      close ? "Connection: close\r\n" : "", "\r\n");
}

std::string Post(const std::string& path, const std::string& body) {
  return absl::StrCat("POST ", path, " HTTP/1.1\r\nHost: t\r\nContent-Length: ", body.size(),
                      "\r\n\r\n", body);
}

class HttpServerTest : public ::testing::Test {
 protected:
  // Serves /healthz, /echo and whatever `more_routes` adds.
  void Start(HttpServerOptions options,
             const std::function<void(HttpServer&)>& more_routes = nullptr) {
    server_ = std::make_unique<HttpServer>(std::move(options));
    if (more_routes) more_routes(*server_);
    server_->Route("GET", "/healthz", [](const HttpRequest&, HttpResponse& response) {
      response.content_type = "text/plain";
      response.body = "ok\n";
    });
    server_->Route("POST", "/echo", [](const HttpRequest& request, HttpResponse& response) {
      response.body = absl::StrCat(request.body.size(), ":", request.QueryParam("q"));
    });
    absl::StatusOr<int> port = server_->Bind("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
    thread_ = std::thread([this] { (void)server_->Serve(); });
    for (int i = 0; i < 200 && !server_->serving(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  void TearDown() override {
    if (server_ == nullptr) return;
    server_->Stop();
    thread_.join();
  }
  // /healthz on a fresh connection answers within `timeout`.
  bool Healthy(std::chrono::milliseconds timeout = std::chrono::milliseconds(1000)) {
    Connection c(port_);
    return c.connected() && c.Send(Get("/healthz", true)) &&
           absl::StartsWith(c.ReadResponse(timeout), "HTTP/1.1 200");
  }

  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(HttpServerTest, RoutesAndAnswersErrorsAsJson) {
  Start({});
  Connection c(port_);
  ASSERT_TRUE(c.Send(Post("/echo?q=a%20b+c&x=1", "hello")));
  std::string response = c.ReadResponse();
  EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.1 200")) << response;
  EXPECT_TRUE(absl::EndsWith(response, "5:a b c")) << response;
  ASSERT_TRUE(c.Send(Get("/nowhere")));
  response = c.ReadResponse();
  EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.1 404")) << response;
  EXPECT_TRUE(absl::StrContains(response, R"({"error":"no such endpoint: GET /nowhere"})"));
  ASSERT_TRUE(c.Send(Get("/echo")));
  EXPECT_TRUE(absl::StartsWith(c.ReadResponse(), "HTTP/1.1 405"));
  ASSERT_TRUE(c.Send("NOT HTTP AT ALL\r\n\r\n"));
  response = c.ReadResponse();
  EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.1 400")) << response;
}

TEST_F(HttpServerTest, KeepsAConnectionOpenAcrossRequests) {
  Start({});
  Connection c(port_);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(c.Send(Post("/echo", std::string(static_cast<size_t>(i), 'x'))));
    EXPECT_TRUE(absl::EndsWith(c.ReadResponse(), absl::StrCat(i, ":"))) << i;
  }
  EXPECT_FALSE(c.closed());
  EXPECT_EQ(server_->connections(), 1u);
}

TEST_F(HttpServerTest, RefusesAnOversizedBodyFromItsLengthAlone) {
  HttpServerOptions options;
  options.max_body_bytes = 1 << 20;
  Start(options);
  Connection c(port_);
  // Only the header is sent: the answer must not wait for the 1 GiB it announces.
  ASSERT_TRUE(c.Send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1073741824\r\n\r\n"));
  const std::string response = c.ReadResponse(std::chrono::seconds(2));
  EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.1 413")) << response;
  EXPECT_TRUE(absl::StrContains(response, "too large"));
}

TEST_F(HttpServerTest, ARouteMayAllowLessThanTheServer) {
  Start({}, [](HttpServer& server) {
    server.Route(
        "POST", "/small",
        [](const HttpRequest& request, HttpResponse& response) {
          response.body = absl::StrCat(request.body.size());
        },
        HttpServer::Blocking::kNo, 100);
  });
  Connection c(port_);
  ASSERT_TRUE(c.Send(Post("/small", std::string(100, 'x'))));
  EXPECT_TRUE(absl::EndsWith(c.ReadResponse(), "100"));
  Connection over(port_);
  ASSERT_TRUE(over.Send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 101\r\n\r\n"));
  const std::string response = over.ReadResponse(std::chrono::seconds(2));
  EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.1 413")) << response;
  EXPECT_TRUE(absl::StrContains(response, "more than 100")) << response;
  // Chunked, the route's limit holds while the body arrives.
  Connection chunked(port_);
  ASSERT_TRUE(
      chunked.Send("POST /small HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "c8\r\n" +
                   std::string(200, 'x') + "\r\n0\r\n\r\n"));
  EXPECT_TRUE(absl::StartsWith(chunked.ReadResponse(std::chrono::seconds(2)), "HTTP/1.1 413"));
  // Other routes keep the server's limit.
  Connection echo(port_);
  ASSERT_TRUE(echo.Send(Post("/echo", std::string(1000, 'x'))));
  EXPECT_TRUE(absl::EndsWith(echo.ReadResponse(), "1000:"));
}

// Bodies in flight share one budget: a request whose body does not fit beside those being
// read is refused at once (503, Retry-After) rather than read, and the room comes back when
// the earlier request is answered.
TEST_F(HttpServerTest, BodiesInFlightShareABudget) {
  HttpServerOptions options;
  options.max_body_bytes = 1000;
  options.max_bodies_in_flight_bytes = 1500;
  Start(options);
  Connection first(port_);
  // 1000 bytes announced, 10 sent: its reservation holds while the rest is awaited.
  ASSERT_TRUE(first.Send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n" +
                         std::string(10, 'x')));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Connection second(port_);
  ASSERT_TRUE(second.Send(Post("/echo", std::string(600, 'y'))));
  const std::string busy = second.ReadResponse(std::chrono::seconds(2));
  EXPECT_TRUE(absl::StartsWith(busy, "HTTP/1.1 503")) << busy;
  EXPECT_TRUE(absl::StrContains(busy, "Retry-After: 1")) << busy;
  EXPECT_TRUE(absl::StrContains(busy, "\"error\":\"busy")) << busy;
  EXPECT_EQ(server_->refused_busy(), 1u);
  // A small body still fits beside the first, and a GET needs no room at all.
  Connection third(port_);
  ASSERT_TRUE(third.Send(Post("/echo", std::string(400, 'z'))));
  EXPECT_TRUE(absl::EndsWith(third.ReadResponse(), "400:"));
  EXPECT_TRUE(Healthy());
  // The first completes; its room is given back.
  ASSERT_TRUE(first.Send(std::string(990, 'x')));
  EXPECT_TRUE(absl::EndsWith(first.ReadResponse(), "1000:"));
  Connection again(port_);
  ASSERT_TRUE(again.Send(Post("/echo", std::string(1000, 'y'))));
  EXPECT_TRUE(absl::EndsWith(again.ReadResponse(), "1000:"));
}

TEST_F(HttpServerTest, RefusesAnOversizedHeader) {
  HttpServerOptions options;
  options.max_header_bytes = 4096;
  Start(options);
  Connection c(port_);
  std::string request = "GET /healthz HTTP/1.1\r\nHost: t\r\n";
  for (int i = 0; i < 2000; ++i) absl::StrAppend(&request, "Range: bytes=", i, "-", i, "\r\n");
  request += "\r\n";
  c.Send(request);
  const std::string response = c.ReadResponse(std::chrono::seconds(2));
  EXPECT_TRUE(absl::StartsWith(response, "HTTP/1.1 431")) << response.substr(0, 100);
  EXPECT_TRUE(Healthy());
}

TEST_F(HttpServerTest, SlowClientsAreCutOffAndNeverStarveHealth) {
  HttpServerOptions options;
  options.request_timeout = absl::Milliseconds(500);
  options.threads = 1;
  Start(options);
  // 64 clients that start a request and then drip one byte at a time.
  std::vector<std::unique_ptr<Connection>> slow;
  for (int i = 0; i < 64; ++i) {
    slow.push_back(std::make_unique<Connection>(port_));
    ASSERT_TRUE(slow.back()->Send("POST /echo HTTP/1.1\r\n"));
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(Healthy(std::chrono::milliseconds(1000))) << "health starved, round " << i;
    for (auto& c : slow) c->Send("X");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  for (auto& c : slow) c->Read(std::chrono::milliseconds(50));
  size_t cut = 0;
  for (auto& c : slow) cut += c->closed() ? 1 : 0;
  EXPECT_EQ(cut, slow.size()) << "requests that never complete are cut after request_timeout";
}

TEST_F(HttpServerTest, AnIdleKeepAliveConnectionIsClosedAfterIdleTimeout) {
  HttpServerOptions options;
  options.idle_timeout = absl::Milliseconds(300);
  Start(options);
  Connection idle(port_);
  ASSERT_TRUE(idle.Send(Get("/healthz")));
  ASSERT_TRUE(absl::StartsWith(idle.ReadResponse(), "HTTP/1.1 200"));
  Connection busy(port_);
  // `busy` keeps asking more often than the idle timeout and stays open.
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(busy.Send(Get("/healthz")));
    ASSERT_TRUE(absl::StartsWith(busy.ReadResponse(), "HTTP/1.1 200")) << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  idle.Read(std::chrono::milliseconds(200));
  EXPECT_TRUE(idle.closed()) << "an idle connection outlived idle_timeout";
  EXPECT_FALSE(busy.closed());
}

TEST_F(HttpServerTest, AtTheCapTheLeastActiveConnectionMakesRoom) {
  HttpServerOptions options;
  options.max_connections = 8;
  Start(options);
  // A flood of 8 idle connections fills the cap.
  std::vector<std::unique_ptr<Connection>> flood;
  for (int i = 0; i < 8; ++i) {
    flood.push_back(std::make_unique<Connection>(port_));
    ASSERT_TRUE(flood.back()->Send(Post("/echo", "x")));
    ASSERT_TRUE(absl::StartsWith(flood.back()->ReadResponse(), "HTTP/1.1 200"));
  }
  EXPECT_EQ(server_->connections(), 8u);
  // New clients are still served: each that finds the cap full closes the least recently
  // active connection (how many do depends on when the previous one's close lands).
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Healthy(std::chrono::seconds(3))) << i;
  // The closes land asynchronously: poll for them (bounded).
  std::vector<bool> closed(flood.size(), false);
  size_t count = 0;
  for (int round = 0; round < 100 && count == 0; ++round) {
    for (size_t i = 0; i < flood.size(); ++i) {
      if (!closed[i]) flood[i]->Read(std::chrono::milliseconds(5));
      closed[i] = flood[i]->closed();
    }
    count = static_cast<size_t>(std::count(closed.begin(), closed.end(), true));
  }
  EXPECT_GE(count, 1u);
  EXPECT_LE(count, 4u);
  // The least recently active go first: the connections served first, never the last one
  // (a connection's activity is when the server finished answering it, so neighbours may
  // swap places).
  for (size_t i = 6; i < flood.size(); ++i) EXPECT_FALSE(closed[i]) << i;
}

TEST_F(HttpServerTest, AnswersExpectContinue) {
  Start({});
  Connection c(port_);
  ASSERT_TRUE(c.Send(
      "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n"));
  const std::string interim = c.Read(std::chrono::seconds(2), [](const std::string& bytes) {
    return absl::StrContains(bytes, "\r\n\r\n");
  });
  EXPECT_TRUE(absl::StartsWith(interim, "HTTP/1.1 100 Continue")) << interim;
  ASSERT_TRUE(c.Send("abc"));
  EXPECT_TRUE(absl::EndsWith(c.ReadResponse(), "3:"));
}

TEST_F(HttpServerTest, ABlockingHandlerHoldsNoConnectionThread) {
  // One connection thread only: were the slow handler run on it, /healthz would wait for it.
  HttpServerOptions options;
  options.threads = 1;
  options.request_timeout = absl::Milliseconds(200);
  std::atomic<bool> release{false};
  std::atomic<bool> entered{false};
  Start(options, [&](HttpServer& server) {
    server.Route(
        "POST", "/slow",
        [&](const HttpRequest&, HttpResponse& response) {
          entered = true;
          while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          response.body = "done";
        },
        HttpServer::Blocking::kYes);
  });
  Connection slow(port_);
  ASSERT_TRUE(slow.Send(Post("/slow", "x")));
  for (int i = 0; i < 200 && !entered; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(entered);
  EXPECT_TRUE(Healthy()) << "a blocking handler must not hold the connection thread";
  // Longer than request_timeout: the request was read in time, its handler may take longer.
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  release = true;
  const std::string answer = slow.ReadResponse();
  EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 200")) << answer;
  EXPECT_TRUE(absl::EndsWith(answer, "done"));
  // The connection goes on after an answer from the pool.
  ASSERT_TRUE(slow.Send(Get("/healthz")));
  EXPECT_TRUE(absl::StartsWith(slow.ReadResponse(), "HTTP/1.1 200"));
}

// The scheduler's routes: a small body is answered on its connection's thread (no hand-off on
// the hot path), a large one on the pool, so decoding it holds no connection thread.
TEST_F(HttpServerTest, OnlyALargeBodyLeavesTheConnectionThread) {
  HttpServerOptions options;
  options.threads = 1;
  options.large_body_bytes = 16;
  std::atomic<bool> release{false};
  std::atomic<bool> entered{false};
  std::mutex mu;
  std::vector<std::thread::id> threads;  // of each call, in order
  Start(options, [&](HttpServer& server) {
    server.Route(
        "POST", "/filter",
        [&](const HttpRequest& request, HttpResponse& response) {
          {
            std::lock_guard<std::mutex> lock(mu);
            threads.push_back(std::this_thread::get_id());
          }
          if (request.body.size() > 16) {
            entered = true;
            while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
          response.body = std::to_string(request.body.size());
        },
        HttpServer::Blocking::kLargeBodies);
  });
  Connection small(port_);
  ASSERT_TRUE(small.Send(Post("/filter", "tiny")));
  EXPECT_TRUE(absl::EndsWith(small.ReadResponse(), "4"));
  Connection large(port_);
  ASSERT_TRUE(large.Send(Post("/filter", std::string(100, 'x'))));
  for (int i = 0; i < 200 && !entered; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(entered);
  EXPECT_TRUE(Healthy()) << "a large body's handler must not hold the connection thread";
  ASSERT_TRUE(small.Send(Post("/filter", "tiny")));
  EXPECT_TRUE(absl::EndsWith(small.ReadResponse(), "4")) << "small bodies go on meanwhile";
  release = true;
  EXPECT_TRUE(absl::EndsWith(large.ReadResponse(), "100"));
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(threads[0], threads[2]) << "both small bodies on the connection thread";
  EXPECT_NE(threads[0], threads[1]) << "the large body on the pool";
}

TEST_F(HttpServerTest, ABlockingHandlerLearnsThatItsClientWentAway) {
  HttpServerOptions options;
  options.threads = 1;
  std::atomic<bool> entered{false};
  std::atomic<int> noticed_after_ms{-1};
  Start(options, [&](HttpServer& server) {
    server.Route(
        "POST", "/solve",
        [&](const HttpRequest& request, HttpResponse& response) {
          entered = true;
          const auto started = std::chrono::steady_clock::now();
          // A long computation that checks whether anyone still waits (at most 5 s).
          while (!request.ClientGone() &&
                 std::chrono::steady_clock::now() - started < std::chrono::seconds(5)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
          if (request.ClientGone()) {
            noticed_after_ms =
                static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::steady_clock::now() - started)
                                     .count());
          }
          response.body = "late";
        },
        HttpServer::Blocking::kYes);
  });
  {
    Connection leaving(port_);
    ASSERT_TRUE(leaving.Send(Post("/solve", "x")));
    for (int i = 0; i < 200 && !entered; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(entered);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }  // closed here
  for (int i = 0; i < 200 && noticed_after_ms < 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(noticed_after_ms, 0) << "the handler never learnt that its client had gone";
  EXPECT_LT(noticed_after_ms, 1000);
  EXPECT_TRUE(Healthy()) << "the server goes on";
}

TEST_F(HttpServerTest, ConnectionsAreServedOnEveryThread) {
  // Four threads, each with its own event loop: many connections in parallel all get answers,
  // each on its own keep-alive connection, and no request waits for another's connection.
  HttpServerOptions options;
  options.threads = 4;
  Start(options);
  std::vector<std::unique_ptr<Connection>> connections;
  for (int i = 0; i < 16; ++i) connections.push_back(std::make_unique<Connection>(port_));
  for (int round = 0; round < 3; ++round) {
    for (auto& c : connections) ASSERT_TRUE(c->Send(Post("/echo?q=r", "abcd")));
    for (auto& c : connections) {
      const std::string answer = c->ReadResponse();
      EXPECT_TRUE(absl::StartsWith(answer, "HTTP/1.1 200")) << answer;
      EXPECT_TRUE(absl::EndsWith(answer, "4:r")) << answer;
    }
  }
  EXPECT_EQ(server_->connections(), 16u);
}

TEST_F(HttpServerTest, StopsPromptlyWithKeepAliveClients) {
  Start({});
  std::vector<std::unique_ptr<Connection>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(std::make_unique<Connection>(port_));
    ASSERT_TRUE(idle.back()->Send(Get("/healthz")));
    ASSERT_TRUE(absl::StartsWith(idle.back()->ReadResponse(), "HTTP/1.1 200"));
  }
  const auto started = std::chrono::steady_clock::now();
  server_->Stop();
  thread_.join();
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_LT(took, std::chrono::seconds(1));
  EXPECT_FALSE(server_->serving());
  server_.reset();
  EXPECT_FALSE(Connection(port_).connected());
}

}  // namespace
}  // namespace headroom::io
