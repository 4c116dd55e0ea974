#include "io/http_server.h"

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <chrono>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "io/tcp_listen.h"
#include "nlohmann/json.hpp"

namespace headroom::io {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

std::chrono::steady_clock::duration Chrono(absl::Duration d) {
  return std::chrono::microseconds(absl::ToInt64Microseconds(d));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 &&
               HexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace

std::string HttpRequest::QueryParam(absl::string_view name) const {
  for (absl::string_view pair : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    const size_t equals = pair.find('=');
    if (PercentDecode(pair.substr(0, equals)) != name) continue;
    return equals == absl::string_view::npos ? "" : PercentDecode(pair.substr(equals + 1));
  }
  return "";
}

HttpResponse JsonError(int status, absl::string_view reason) {
  return {status, "application/json",
          nlohmann::json{{"error", reason}}.dump(-1, ' ', false,
                                                 nlohmann::json::error_handler_t::replace)};
}

// One io_context per thread, each run by that thread alone: a connection lives on one thread
// from accept to close, so a request is read, answered and written without handing work to
// another thread (no futex wake-ups or context switches on the scheduler's path). Handlers
// routed as blocking run on a separate small pool, so that they do not hold a connection
// thread.
struct HttpServer::Impl {
  explicit Impl(HttpServerOptions o) : options(std::move(o)), tls(asio::ssl::context::tls_server) {
    if (!options.error) options.error = JsonError;
    if (options.threads < 1) options.threads = 1;
    if (options.max_bodies_in_flight_bytes == 0) {
      options.max_bodies_in_flight_bytes = options.max_body_bytes;
    }
    if (options.tls) options.tls(*tls.native_handle());
    for (int i = 0; i < options.threads; ++i) {
      contexts.push_back(std::make_unique<asio::io_context>(1));
      work.push_back(asio::make_work_guard(*contexts.back()));
      sweeps.push_back(std::make_unique<Sweep>());
      sweep_timers.push_back(std::make_unique<asio::steady_timer>(*contexts.back()));
    }
    sweep_every = std::clamp(
        std::min({options.idle_timeout, options.request_timeout, options.write_timeout}) / 5,
        absl::Milliseconds(10), absl::Milliseconds(250));
    acceptor.emplace(*contexts.front());
    stop_timer.emplace(*contexts.front());
  }
  ~Impl() {
    // Blocking handlers hold sessions, whose sockets belong to the contexts: finish them first.
    blocking.stop();
    blocking.join();
  }

  struct Route {
    HttpHandler handler;
    HttpServer::Blocking blocking = HttpServer::Blocking::kNo;
    size_t max_body_bytes = 0;  // 0: options.max_body_bytes
  };

  // Declared so that the contexts go first (their pending handlers own the sessions, which
  // use the members above them) and the acceptor and timer, which use them, before them.
  HttpServerOptions options;
  std::map<std::string, std::map<std::string, Route>> routes;  // path -> method -> route
  std::atomic<size_t> open{0};
  // Bytes of request bodies reserved by the requests in flight (ReserveBody).
  std::atomic<size_t> bodies_in_flight{0};
  std::atomic<uint64_t> refused_busy{0};
  // Reserves `bytes` of max_bodies_in_flight_bytes; false (nothing reserved) when they do not
  // fit beside the bodies already in flight.
  bool ReserveBody(size_t bytes) {
    size_t current = bodies_in_flight.load();
    do {
      if (bytes > options.max_bodies_in_flight_bytes -
                      std::min(current, options.max_bodies_in_flight_bytes)) {
        return false;
      }
    } while (!bodies_in_flight.compare_exchange_weak(current, current + bytes));
    return true;
  }
  void ReleaseBody(size_t bytes) { bodies_in_flight -= bytes; }
  // The body limit of the route `method` `target` names (the server's when there is none).
  size_t BodyLimit(absl::string_view method, absl::string_view target) const {
    const absl::string_view path = target.substr(0, target.find('?'));
    // A request no route takes is answered 404 or 405 whatever it carries: a small body is
    // read (and dropped) so the answer is not cut off, a large one is not.
    constexpr size_t kUnroutedBodyBytes = 64 << 10;
    const auto by_path = routes.find(std::string(path));
    if (by_path == routes.end()) return std::min(options.max_body_bytes, kUnroutedBodyBytes);
    const auto route = by_path->second.find(std::string(method));
    if (route == by_path->second.end()) {
      return std::min(options.max_body_bytes, kUnroutedBodyBytes);
    }
    return route->second.max_body_bytes == 0 ? options.max_body_bytes
                                             : route->second.max_body_bytes;
  }
  // Connections from least to most recently active, to make room at the cap: a flood of idle
  // or dripping connections must not lock out the scheduler or the kubelet's probes.
  std::mutex lru_mu;
  std::list<std::function<void()>> lru;  // each closes its connection (asynchronously)
  using LruEntry = std::list<std::function<void()>>::iterator;
  LruEntry Track(std::function<void()> close) {
    std::lock_guard<std::mutex> lock(lru_mu);
    return lru.insert(lru.end(), std::move(close));
  }
  void Touch(LruEntry entry) {
    std::lock_guard<std::mutex> lock(lru_mu);
    lru.splice(lru.end(), lru, entry);
  }
  void Untrack(LruEntry entry) {
    std::lock_guard<std::mutex> lock(lru_mu);
    lru.erase(entry);
  }
  // Closes the least recently active connection.
  void CloseLeastActive() {
    std::function<void()> close;
    {
      std::lock_guard<std::mutex> lock(lru_mu);
      if (lru.empty()) return;
      close = lru.front();
      lru.splice(lru.end(), lru, lru.begin());  // not picked twice in a row
    }
    close();
  }
  // Timeouts without a timer per operation (re-arming one costs a timerfd_settime system call
  // per read and write, four per request): each connection keeps its deadline in a plain
  // field, and each thread's sweep closes the connections past theirs every `sweep_every`.
  struct Deadlined {
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    virtual void Close() = 0;
    virtual ~Deadlined() = default;
  };
  struct Sweep {    // the connections of one thread
    std::mutex mu;  // a connection may end on another thread (a blocking handler's)
    std::list<std::weak_ptr<Deadlined>> sessions;
  };
  std::vector<std::unique_ptr<Sweep>> sweeps;  // outlive the contexts (and their sessions)
  absl::Duration sweep_every;
  void SweepLater(size_t index) {
    Sweep& sweep = *sweeps[index];
    asio::steady_timer& timer = *sweep_timers[index];
    timer.expires_after(Chrono(sweep_every));
    timer.async_wait([this, &sweep, index](beast::error_code ec) {
      if (ec) return;
      const auto now = std::chrono::steady_clock::now();
      std::vector<std::shared_ptr<Deadlined>> expired;
      {
        std::lock_guard<std::mutex> lock(sweep.mu);
        for (const std::weak_ptr<Deadlined>& weak : sweep.sessions) {
          std::shared_ptr<Deadlined> session = weak.lock();
          if (session != nullptr && session->deadline <= now) expired.push_back(std::move(session));
        }
      }
      for (const auto& session : expired) {
        session->deadline = std::chrono::steady_clock::time_point::max();
        session->Close();
      }
      SweepLater(index);
    });
  }

  std::atomic<bool> stopping{false};
  std::atomic<bool> running{false};
  asio::ssl::context tls;
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> work;
  size_t next_context = 0;  // round robin, on the acceptor's thread
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> stop_timer;
  std::vector<std::unique_ptr<asio::steady_timer>> sweep_timers;  // one per context
  asio::thread_pool blocking{2};

  // The route for a request, or the server's own 404 or 405 answer.
  const Route* Find(const HttpRequest& request, HttpResponse& refusal) const {
    const auto path = routes.find(request.path);
    if (path == routes.end()) {
      refusal =
          options.error(404, absl::StrCat("no such endpoint: ", request.method, " ", request.path));
      return nullptr;
    }
    const auto route = path->second.find(request.method);
    if (route == path->second.end()) {
      refusal = options.error(
          405, absl::StrCat("method ", request.method, " not allowed on ", request.path));
      return nullptr;
    }
    return &route->second;
  }

  HttpResponse Run(const Route& route, const HttpRequest& request) const {
    HttpResponse response;
    try {
      route.handler(request, response);
    } catch (const std::exception& e) {
      response = options.error(500, "internal error");
    }
    return response;
  }

  void Accept();
};

namespace {

// A request of a few hundred node names arrives in one read.
constexpr size_t kReadChunk = 16 << 10;

// A connection's socket, bound to its event loop's own executor type rather than the
// type-erased any_io_executor (every read and write would go through it), and without
// beast::tcp_stream's timers: the deadlines are swept per thread (Deadlined).
using Socket = tcp::socket::rebind_executor<asio::io_context::executor_type>::other;

template <class Stream>
class Session : public HttpServer::Impl::Deadlined,
                public std::enable_shared_from_this<Session<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, Socket>;

  template <class... Args>
  explicit Session(HttpServer::Impl& server, HttpServer::Impl::Sweep& sweep, Args&&... args)
      : server_(&server),
        sweep_(&sweep),
        stream_(std::forward<Args>(args)...),
        buffer_(std::max<size_t>(server.options.max_header_bytes * 2, 64 << 10)) {}
  ~Session() override {
    ReleaseBody();
    if (tracked_) server_->Untrack(*tracked_);
    if (registered_) {
      std::lock_guard<std::mutex> lock(sweep_->mu);
      sweep_->sessions.erase(*registered_);
    }
    --server_->open;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void Start() {
    {
      std::lock_guard<std::mutex> lock(sweep_->mu);
      registered_ = sweep_->sessions.insert(sweep_->sessions.end(), this->weak_from_this());
    }
    buffer_.reserve(kReadChunk);
    tracked_ = server_->Track([weak = this->weak_from_this()] {
      if (auto self = weak.lock()) {
        asio::post(self->stream_.get_executor(), [self] { self->Close(); });
      }
    });
    if constexpr (kTls) {
      ExpiresAfter(server_->options.request_timeout);
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (ec) return self->Close();
                                self->WaitForRequest();
                              });
    } else {
      WaitForRequest();
    }
  }

 private:
  Socket& Lowest() { return beast::get_lowest_layer(stream_); }
  void ExpiresAfter(absl::Duration timeout) {
    deadline = std::chrono::steady_clock::now() + Chrono(timeout);
  }

  // Idle until a request's first bytes arrive (idle_timeout), then the whole request has
  // request_timeout.
  void WaitForRequest() {
    if (server_->stopping) return Close();
    server_->Touch(*tracked_);
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(
        std::min<size_t>(server_->options.max_header_bytes, UINT32_MAX)));
    parser_->body_limit(server_->options.max_body_bytes);
    body_limit_ = server_->options.max_body_bytes;
    if (buffer_.size() > 0) return ReadHeader();
    ExpiresAfter(server_->options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = this->shared_from_this()](beast::error_code ec, size_t bytes) {
                              if (ec) return self->Close();
                              self->buffer_.commit(bytes);
                              self->ReadHeader();
                            });
  }

  void ReadHeader() {
    ExpiresAfter(server_->options.request_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

  void OnHeader(beast::error_code ec) {
    if (ec) return Refuse(ec);
    if (!ReserveBodyOrRefuse()) return;
    const auto expect = parser_->get().find(http::field::expect);
    if (expect != parser_->get().end() &&
        absl::EqualsIgnoreCase(absl::string_view(expect->value().data(), expect->value().size()),
                               "100-continue")) {
      continue_.emplace(http::status::continue_, parser_->get().version());
      http::async_write(stream_, *continue_,
                        [self = this->shared_from_this()](beast::error_code error, size_t) {
                          if (error) return self->Close();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  // The route's body limit (413 from Content-Length, or while a chunked body arrives) and the
  // body's share of the bytes in flight (503 when it does not fit); false when refused.
  bool ReserveBodyOrRefuse() {
    const auto& header = parser_->get();
    const size_t limit = server_->BodyLimit(
        absl::string_view(header.method_string().data(), header.method_string().size()),
        absl::string_view(header.target().data(), header.target().size()));
    const boost::optional<std::uint64_t> length = parser_->content_length();
    if (length.has_value() && *length > limit) {
      linger_ = true;
      Respond(server_->options.error(413, absl::StrCat("request body too large: ", *length,
                                                       " bytes, more than ", limit)),
              header.version(), false);
      return false;
    }
    // Without Content-Length and not chunked, a request has no body.
    const size_t bytes = length.has_value()   ? static_cast<size_t>(*length)
                         : parser_->chunked() ? limit
                                              : 0;
    parser_->body_limit(limit);
    body_limit_ = limit;
    if (bytes == 0) return true;
    if (!server_->ReserveBody(bytes)) {
      ++server_->refused_busy;
      linger_ = true;
      HttpResponse busy = server_->options.error(
          503, absl::StrCat("busy: the request bodies in flight leave no room for ", bytes,
                            " more bytes (at most ", server_->options.max_bodies_in_flight_bytes,
                            " in all); retry"));
      busy.headers.emplace_back("Retry-After", "1");
      Respond(std::move(busy), header.version(), false);
      return false;
    }
    reserved_ = bytes;
    return true;
  }
  // Gives the body's reservation back (its bytes are freed or about to be).
  void ReleaseBody() {
    if (reserved_ == 0) return;
    server_->ReleaseBody(reserved_);
    reserved_ = 0;
  }

  void ReadBody() {
    http::async_read(
        stream_, buffer_, *parser_,
        [self = this->shared_from_this()](beast::error_code ec, size_t) { self->OnRequest(ec); });
  }

  void OnRequest(beast::error_code ec) {
    if (ec) return Refuse(ec);
    http::request<http::string_body> message = parser_->release();
    parser_.reset();
    HttpRequest request;
    request.method = std::string(message.method_string());
    const absl::string_view target(message.target().data(), message.target().size());
    const size_t question = target.find('?');
    request.path = std::string(target.substr(0, question));
    if (question != absl::string_view::npos)
      request.query = std::string(target.substr(question + 1));
    if (const auto it = message.find(http::field::authorization); it != message.end()) {
      request.authorization = std::string(it->value());
    }
    request.body = std::move(message.body());
    const bool keep_alive = message.keep_alive();
    const unsigned version = message.version();
    HttpResponse refusal;
    const HttpServer::Impl::Route* route = server_->Find(request, refusal);
    if (route == nullptr) return Respond(std::move(refusal), version, keep_alive);
    const bool off_loop = route->blocking == HttpServer::Blocking::kYes ||
                          (route->blocking == HttpServer::Blocking::kLargeBodies &&
                           request.body.size() > server_->options.large_body_bytes);
    if (!off_loop) return Respond(server_->Run(*route, request), version, keep_alive);
    // The request is read: no deadline while the handler runs (Respond sets the write's).
    deadline = std::chrono::steady_clock::time_point::max();
    auto gone = std::make_shared<std::atomic<bool>>(false);
    request.client_gone = gone;
    Probe(std::move(gone));
    asio::post(server_->blocking, [self = this->shared_from_this(), route,
                                   request = std::move(request), version, keep_alive] {
      HttpResponse answer = self->server_->Run(*route, request);
      asio::post(self->stream_.get_executor(),
                 [self, answer = std::move(answer), version, keep_alive]() mutable {
                   self->Respond(std::move(answer), version, keep_alive);
                 });
    });
  }

  // While a blocking handler runs: a one-byte read that notices the client closing or
  // resetting the connection (it sets `gone`). A byte that arrives instead is the start of the
  // next request: it is kept, and the connection goes on once the answer is written.
  void Probe(std::shared_ptr<std::atomic<bool>> gone) {
    probing_ = true;
    stream_.async_read_some(asio::buffer(&probe_byte_, 1), [self = this->shared_from_this(), gone](
                                                               beast::error_code ec, size_t bytes) {
      self->probing_ = false;
      if (ec) {
        gone->store(true);
        if (self->resume_after_probe_) self->Close();
        return;
      }
      if (bytes == 1) {
        *static_cast<char*>(self->buffer_.prepare(1).data()) = self->probe_byte_;
        self->buffer_.commit(1);
      }
      if (self->resume_after_probe_) {
        self->resume_after_probe_ = false;
        self->WaitForRequest();
      }
    });
  }

  // Answers a request that could not be read, then closes.
  void Refuse(beast::error_code ec) {
    const HttpServerOptions& options = server_->options;
    linger_ = true;  // the client may still be sending: read it away before closing
    if (ec == http::error::body_limit) {
      return Respond(options.error(413, absl::StrCat("request body too large: more than ",
                                                     body_limit_, " bytes")),
                     11, false);
    }
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
      return Respond(options.error(431, absl::StrCat("request header too large: more than ",
                                                     options.max_header_bytes, " bytes")),
                     11, false);
    }
    const bool ended = ec == http::error::end_of_stream || ec == http::error::partial_message;
    if (!ended && ec.category() == http::make_error_code(http::error::bad_method).category()) {
      return Respond(options.error(400, "malformed HTTP request"), 11, false);
    }
    Close();  // closed, timed out or broken: nobody to answer
  }

  void Respond(HttpResponse answer, unsigned version, bool keep_alive) {
    ReleaseBody();  // the request, its body with it, has been handled
    response_.emplace(static_cast<http::status>(answer.status), version);
    response_->set(http::field::content_type, answer.content_type);
    for (const auto& [name, value] : answer.headers) response_->set(name, value);
    response_->body() = std::move(answer.body);
    response_->keep_alive(keep_alive && !server_->stopping);
    response_->prepare_payload();
    ExpiresAfter(server_->options.write_timeout);
    http::async_write(stream_, *response_,
                      [self = this->shared_from_this()](beast::error_code ec, size_t) {
                        const bool again = !ec && self->response_->keep_alive();
                        self->response_.reset();
                        if (!again) return !ec && self->linger_ ? self->Linger() : self->Close();
                        // A large request's bytes are not kept for the next one.
                        if (self->buffer_.capacity() > (256 << 10) && self->buffer_.size() == 0) {
                          self->buffer_.shrink_to_fit();
                          self->buffer_.reserve(kReadChunk);
                        }
                        if (self->probing_) {  // its read goes on: it resumes the connection
                          self->resume_after_probe_ = true;
                          self->ExpiresAfter(self->server_->options.idle_timeout);
                          return;
                        }
                        self->WaitForRequest();
                      });
  }

  // After an early answer (413, 431, 400) the client may still be writing its request; a
  // close now would reset the connection and lose the answer. So: no more sending, then what
  // arrives is read and dropped, for at most a second and 8 MiB, and the connection closed.
  void Linger() {
    beast::error_code ignored;
    Lowest().shutdown(tcp::socket::shutdown_send, ignored);
    ExpiresAfter(absl::Seconds(1));
    Drain();
  }
  void Drain() {
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(64 << 10),
                            [self = this->shared_from_this()](beast::error_code ec, size_t bytes) {
                              self->drained_ += bytes;
                              if (ec || self->drained_ > (8 << 20)) return self->Close();
                              self->Drain();
                            });
  }

  void Close() override {
    beast::error_code ignored;
    Lowest().shutdown(tcp::socket::shutdown_send, ignored);
    Lowest().close(ignored);
  }

  HttpServer::Impl* server_;
  HttpServer::Impl::Sweep* sweep_;
  std::optional<std::list<std::weak_ptr<HttpServer::Impl::Deadlined>>::iterator> registered_;
  std::optional<HttpServer::Impl::LruEntry> tracked_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  std::optional<http::response<http::string_body>> response_;
  bool linger_ = false;
  size_t reserved_ = 0;    // of the server's bodies in flight, for the request being read
  size_t body_limit_ = 0;  // the request's (its route's) body limit
  size_t drained_ = 0;
  bool probing_ = false;             // Probe's read is pending
  bool resume_after_probe_ = false;  // the answer is written: Probe's read resumes reading
  char probe_byte_ = 0;
};

}  // namespace

void HttpServer::Impl::Accept() {
  const size_t index = next_context++ % contexts.size();
  acceptor->async_accept(*contexts[index], [this, index](beast::error_code ec, Socket socket) {
    if (ec) {
      if (!acceptor->is_open() || stopping) return;
      // Out of descriptors or an aborted connection: keep accepting.
      return Accept();
    }
    beast::error_code ignored;
    if (open >= options.max_connections && !stopping) CloseLeastActive();
    if (stopping) {
      socket.close(ignored);
    } else {
      // Counted here, not when its session starts on its thread: in a burst of connections
      // the sessions start later, and the cap would let through as many as are waiting.
      // The session's destructor takes it off again.
      ++open;
      socket.set_option(tcp::no_delay(true), ignored);
      // The session starts on the thread of the context that owns its socket.
      const auto executor = socket.get_executor();
      asio::post(executor, [this, index, socket = std::move(socket)]() mutable {
        Sweep& sweep = *sweeps[index];
        if (options.tls) {
          std::make_shared<Session<beast::ssl_stream<Socket>>>(*this, sweep, std::move(socket), tls)
              ->Start();
        } else {
          std::make_shared<Session<Socket>>(*this, sweep, std::move(socket))->Start();
        }
      });
    }
    Accept();
  });
}

HttpServer::HttpServer(HttpServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

HttpServer::~HttpServer() = default;

void HttpServer::Route(const std::string& method, const std::string& path, HttpHandler handler,
                       Blocking blocking, size_t max_body_bytes) {
  impl_->routes[path][method] = {std::move(handler), blocking, max_body_bytes};
}

uint64_t HttpServer::refused_busy() const { return impl_->refused_busy.load(); }

absl::StatusOr<int> HttpServer::Bind(const std::string& host, int port) {
  return ListenOn(*impl_->acceptor, host, port);
}

absl::Status HttpServer::Serve() {
  if (!impl_->acceptor->is_open()) return absl::FailedPreconditionError("Serve before Bind");
  if (impl_->stopping) return absl::OkStatus();
  impl_->Accept();
  for (size_t i = 0; i < impl_->sweeps.size(); ++i) impl_->SweepLater(i);
  impl_->running = true;
  std::vector<std::thread> threads;
  for (size_t i = 1; i < impl_->contexts.size(); ++i) {
    threads.emplace_back([context = impl_->contexts[i].get()] { context->run(); });
  }
  impl_->contexts.front()->run();
  for (std::thread& thread : threads) thread.join();
  impl_->running = false;
  return absl::OkStatus();
}

void HttpServer::Stop() {
  if (impl_->stopping.exchange(true)) return;
  asio::post(*impl_->contexts.front(), [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor->close(ignored);
    // Answers in flight get a short grace; idle keep-alive connections are simply dropped.
    impl->stop_timer->expires_after(std::chrono::milliseconds(300));
    impl->stop_timer->async_wait([impl](beast::error_code) {
      for (auto& context : impl->contexts) context->stop();
    });
  });
}

bool HttpServer::serving() const { return impl_->running; }

size_t HttpServer::connections() const { return impl_->open; }

}  // namespace headroom::io
