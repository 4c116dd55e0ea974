#pragma once

// The HTTP/1.1 server behind both daemons' endpoints (the extender's scheduler, webhook,
// health and metrics endpoints; headroom-nri's health and metrics), on Boost.Beast over Asio:
// a few threads, each with its own event loop, serve every connection asynchronously (a
// connection stays on the thread that accepted it), so slow or idle clients hold no
// thread and cannot starve /healthz. Everything a client can make it hold is bounded:
//   - connections (max_connections; at the cap, a new connection closes the least recently
//     active one, so a flood of idle or dripping connections cannot lock out live clients);
//   - the header block (max_header_bytes: 431) and the body (max_body_bytes, or the route's
//     own limit: 413, refused from Content-Length before it is read);
//   - the bodies of all requests in flight together (max_bodies_in_flight_bytes: 503 with
//     Retry-After, refused from Content-Length before the body is read), so that many
//     clients each sending a large body cannot add up to more than the process may hold;
//   - time: a connection may stay idle between requests for idle_timeout; once a request's
//     first byte arrives, the whole request must arrive within request_timeout, so a client
//     that drips bytes is cut off; writing an answer is bounded by write_timeout. Deadlines
//     are plain fields that each thread sweeps every timeout / 5 (at most 250 ms, at least
//     10 ms), so a timeout may be that much late; no timer is re-armed per read or write;
//   - memory: each request gets a fresh parser, so a large body is freed once answered; each
//     connection reads into a 16 KiB buffer (a request of a few hundred names in one read).
// No Range support, no compression (answers are small or on loopback). Keep-alive is honoured,
// listening uses the system's full backlog, and TCP_NODELAY is set. Stop() stops accepting,
// lets answers in flight finish for a short grace and ends Serve() within about half a second,
// even with clients holding keep-alive connections.

#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace headroom::io {

struct HttpRequest {
  std::string method;
  std::string path;           // the target without its query
  std::string query;          // after '?', as sent
  std::string authorization;  // the Authorization header, if any
  std::string body;
  // For a handler routed as blocking: set once the client has closed or reset its connection
  // while the handler runs (a long computation may stop: nobody waits for its answer).
  std::shared_ptr<const std::atomic<bool>> client_gone;

  bool ClientGone() const { return client_gone != nullptr && client_gone->load(); }

  // The query parameter `name`, percent-decoded; "" when absent.
  std::string QueryParam(absl::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // More response headers (e.g. Content-Security-Policy), written as given.
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

struct HttpServerOptions {
  size_t max_body_bytes = 64ULL << 20;
  // The bodies being read or handled at once, all connections together; 0: max_body_bytes
  // (one body of the largest size at a time, or several smaller ones).
  size_t max_bodies_in_flight_bytes = 0;
  size_t max_header_bytes = 16 << 10;
  absl::Duration idle_timeout = absl::Seconds(90);
  absl::Duration request_timeout = absl::Seconds(10);
  absl::Duration write_timeout = absl::Seconds(10);
  size_t max_connections = 1024;
  int threads = 2;
  // A route with Blocking::kLargeBodies hands a body larger than this to the blocking pool.
  size_t large_body_bytes = 1 << 20;
  // The body of an error the server answers by itself (400, 404, 405, 413, 431); by default
  // {"error": reason} as application/json.
  std::function<HttpResponse(int status, const std::string& reason)> error;
  // Set: HTTPS only, with the SSL_CTX configured by this function (e.g. a reloading
  // certificate); unset: plain HTTP.
  std::function<void(SSL_CTX&)> tls;
};

// {"error": reason} with `status`: the default error answer.
HttpResponse JsonError(int status, absl::string_view reason);

class HttpServer {
 public:
  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Routes `method` on exactly `path`; call before Serve(). A handler runs on the thread of
  // its connection and must not block for long; one that may (a solver run) is routed with
  // Blocking::kYes and runs on a separate pool of two threads, while the connection is
  // watched: HttpRequest::ClientGone() turns true if the client goes away meanwhile.
  // Blocking::kLargeBodies: on the pool only when the body is larger than
  // HttpServerOptions::large_body_bytes (decoding tens of MiB would hold the connection
  // thread, and every other connection on it, for a tenth of a second or more), else on the
  // connection's thread.
  // `max_body_bytes`: this route's own body limit (413 beyond); 0: the server's.
  enum class Blocking { kNo, kYes, kLargeBodies };
  void Route(const std::string& method, const std::string& path, HttpHandler handler,
             Blocking blocking = Blocking::kNo, size_t max_body_bytes = 0);

  // Binds `host`:`port` (0: any free port) and returns the port.
  absl::StatusOr<int> Bind(const std::string& host, int port);
  // Serves until Stop(); call once, after Bind.
  absl::Status Serve();
  // From any thread; Serve() returns soon after.
  void Stop();
  bool serving() const;
  // Open connections (for tests and metrics).
  size_t connections() const;
  // Requests refused because the bodies in flight were at max_bodies_in_flight_bytes.
  uint64_t refused_busy() const;

  struct Impl;  // the .cc file's; public so that its connection sessions can name it

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace headroom::io
