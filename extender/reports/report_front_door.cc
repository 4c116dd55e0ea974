#include "extender/reports/report_front_door.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "extender/serving/tls_certificate.h"
#include "io/tcp_listen.h"
#include "shared/log_text.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using local = asio::local::stream_protocol;

constexpr size_t kChunk = 4 << 10;

// ALPN: gRPC clients offer "h2" (and insist on it).
int SelectH2(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
             unsigned int in_length, void*) {
  static const unsigned char kH2[] = {2, 'h', '2'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_length, kH2, sizeof(kH2), in, in_length) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

std::string IpText(const ASN1_OCTET_STRING* ip) {
  char text[INET6_ADDRSTRLEN] = {};
  const int length = ASN1_STRING_length(ip);
  const unsigned char* bytes = ASN1_STRING_get0_data(ip);
  if (length == 4 && inet_ntop(AF_INET, bytes, text, sizeof(text)) != nullptr) return text;
  if (length == 16 && inet_ntop(AF_INET6, bytes, text, sizeof(text)) != nullptr) return text;
  return "";
}

PeerCertificate Describe(X509& certificate) {
  PeerCertificate peer;
  X509_NAME* subject = X509_get_subject_name(&certificate);
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) >= 0;) {
    unsigned char* utf8 = nullptr;
    const int length =
        ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i)));
    if (length >= 0) peer.common_names.emplace_back(reinterpret_cast<char*>(utf8), length);
    OPENSSL_free(utf8);
  }
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(&certificate, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; names != nullptr && i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      peer.alt_names.emplace_back(
          reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName)),
          ASN1_STRING_length(name->d.dNSName));
    } else if (name->type == GEN_IPADD) {
      if (std::string ip = IpText(name->d.iPAddress); !ip.empty()) peer.alt_names.push_back(ip);
    }
  }
  GENERAL_NAMES_free(names);
  return peer;
}

tcp::socket& Lowest(tcp::socket& socket) { return socket; }
tcp::socket& Lowest(asio::ssl::stream<tcp::socket>& stream) { return stream.next_layer(); }

}  // namespace

void FrontDoorPeers::Set(int fd, FrontDoorPeer peer) {
  absl::MutexLock lock(&mu_);
  by_fd_[fd] = std::move(peer);
}

std::optional<FrontDoorPeer> FrontDoorPeers::Find(absl::string_view grpc_peer) const {
  const std::optional<int> fd = FdOfGrpcPeer(grpc_peer);
  if (!fd) return std::nullopt;
  absl::MutexLock lock(&mu_);
  const auto it = by_fd_.find(*fd);
  if (it == by_fd_.end()) return std::nullopt;
  return it->second;
}

std::optional<int> FdOfGrpcPeer(absl::string_view grpc_peer) {
  constexpr absl::string_view kPrefix = "fd:";
  int fd = -1;
  if (!absl::ConsumePrefix(&grpc_peer, kPrefix) || grpc_peer.empty() ||
      grpc_peer.find_first_not_of("0123456789") != absl::string_view::npos ||
      !absl::SimpleAtoi(grpc_peer, &fd)) {
    return std::nullopt;
  }
  return fd;
}

struct ReportFrontDoor::Impl {
  explicit Impl(FrontDoorOptions o, std::function<void(int)> h)
      : options(std::move(o)), hand_off(std::move(h)), tls(asio::ssl::context::tls_server) {}

  // Says why a connection was refused or cut: a metric each time, a log line at most once a
  // second (a flood of refusals must not flood the log).
  void Refused(absl::string_view reason, const std::string& address, absl::string_view detail) {
    if (options.on_refused) options.on_refused(reason);
    ++refused_since_log;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_log < std::chrono::seconds(1)) return;
    spdlog::warn("report port: {} from {}: {} ({} refused or cut since the last such line)",
                 std::string(reason), LogText(address), LogText(detail), refused_since_log);
    refused_since_log = 0;
    last_log = now;
  }

  void Accept();

  FrontDoorOptions options;
  std::function<void(int)> hand_off;
  asio::ssl::context tls;
  bool use_tls = false;
  // The door's thread alone touches what follows, until the thread is joined.
  std::atomic<size_t> open{0};
  std::map<std::string, size_t> per_address;
  std::map<uint64_t, std::function<void()>> closers;  // each open connection's Close
  uint64_t next_id = 0;
  bool accepting = true;
  uint64_t refused_since_log = 0;
  std::chrono::steady_clock::time_point last_log{};
  // Declared after what the connections use: it goes first, and its pending handlers own
  // the connections.
  asio::io_context io{1};
  std::optional<tcp::acceptor> acceptor;
  std::thread thread;
};

namespace {

template <typename Stream>
class Relay : public std::enable_shared_from_this<Relay<Stream>> {
 public:
  Relay(ReportFrontDoor::Impl& door, Stream stream, std::string address)
      : door_(door),
        stream_(std::move(stream)),
        address_(std::move(address)),
        backend_(door.io),
        timer_(door.io),
        meter_(door.options.limits),
        id_(door.next_id++) {
    ++door_.open;
    ++door_.per_address[address_];
  }
  ~Relay() {
    --door_.open;
    door_.closers.erase(id_);
    if (--door_.per_address[address_] == 0) door_.per_address.erase(address_);
  }

  void Start() {
    door_.closers[id_] = [weak = this->weak_from_this()] {
      if (auto self = weak.lock()) self->Close();
    };
    timer_.expires_after(
        std::chrono::microseconds(absl::ToInt64Microseconds(door_.options.handshake_timeout)));
    timer_.async_wait([self = this->shared_from_this()](boost::system::error_code ec) {
      if (!ec && !self->meter_.preface_complete()) {
        self->door_.Refused("handshake", self->address_,
                            "no TLS handshake and HTTP/2 preface in time");
        self->Close();
      }
    });
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      Begin(std::nullopt);
    } else {
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](boost::system::error_code ec) {
                                if (ec) {
                                  self->door_.Refused("handshake", self->address_, ec.message());
                                  return self->Close();
                                }
                                self->Begin(self->Certificate());
                              });
    }
  }

 private:
  std::optional<PeerCertificate> Certificate() {
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      return std::nullopt;
    } else {
      X509* certificate = SSL_get1_peer_certificate(stream_.native_handle());
      if (certificate == nullptr) return std::nullopt;
      PeerCertificate peer = Describe(*certificate);
      X509_free(certificate);
      return peer;
    }
  }

  // Connects the client to gRPC and starts relaying.
  void Begin(std::optional<PeerCertificate> certificate) {
    // Once the door stops accepting, gRPC is shutting down: hand it nothing more.
    if (closed_ || !door_.accepting) return Close();
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      door_.Refused("socketpair", address_, std::strerror(errno));
      return Close();
    }
    ::fcntl(pair[0], F_SETFL, ::fcntl(pair[0], F_GETFL) | O_NONBLOCK);
    boost::system::error_code ec;
    backend_.assign(local(), pair[1], ec);
    if (ec) {
      ::close(pair[0]);
      ::close(pair[1]);
      return Close();
    }
    if (door_.options.peers != nullptr) {
      door_.options.peers->Set(pair[0], {address_, std::move(certificate)});
    }
    door_.hand_off(pair[0]);
    Up();
    Down();
  }

  // Client -> gRPC, through the meter.
  void Up() {
    stream_.async_read_some(asio::buffer(up_), [self = this->shared_from_this()](
                                                   boost::system::error_code ec, size_t n) {
      if (ec) return self->Close();
      const absl::Status metered =
          self->meter_.Feed(absl::string_view(self->up_.data(), n), absl::Now());
      if (self->meter_.preface_complete()) self->timer_.cancel();
      if (!metered.ok()) {
        self->door_.Refused(metered.code() == absl::StatusCode::kResourceExhausted
                                ? "http2_flood"
                                : "http2_protocol",
                            self->address_, metered.message());
        return self->Close();
      }
      asio::async_write(self->backend_, asio::buffer(self->up_.data(), n),
                        [self](boost::system::error_code written, size_t) {
                          if (written) return self->Close();
                          self->Up();
                        });
    });
  }

  // gRPC -> client.
  void Down() {
    backend_.async_read_some(asio::buffer(down_), [self = this->shared_from_this()](
                                                      boost::system::error_code ec, size_t n) {
      if (ec) return self->Close();
      asio::async_write(self->stream_, asio::buffer(self->down_.data(), n),
                        [self](boost::system::error_code written, size_t) {
                          if (written) return self->Close();
                          self->Down();
                        });
    });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    timer_.cancel();
    Lowest(stream_).shutdown(tcp::socket::shutdown_both, ignored);
    Lowest(stream_).close(ignored);
    backend_.close(ignored);
  }

  ReportFrontDoor::Impl& door_;
  Stream stream_;
  const std::string address_;
  local::socket backend_;
  asio::steady_timer timer_;
  H2ClientMeter meter_;
  const uint64_t id_;
  bool closed_ = false;
  std::array<char, kChunk> up_;
  std::array<char, kChunk> down_;
};

}  // namespace

void ReportFrontDoor::Impl::Accept() {
  acceptor->async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (!accepting) return;
    if (ec) {
      // EMFILE and the like: try again shortly rather than spin.
      spdlog::warn("report port: accept failed: {}", ec.message());
      auto timer = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(100));
      timer->async_wait([this, timer](boost::system::error_code) {
        if (accepting) Accept();
      });
      return;
    }
    boost::system::error_code ignored;
    const tcp::endpoint remote = socket.remote_endpoint(ignored);
    const std::string address = remote.address().to_string();
    if (open >= options.max_connections) {
      Refused("connection_cap", address, absl::StrCat(open.load(), " connections are open"));
      socket.close(ignored);
    } else if (per_address[address] >= options.max_connections_per_address) {
      Refused("address_cap", address,
              absl::StrCat(per_address[address], " connections from this address are open"));
      socket.close(ignored);
    } else {
      socket.set_option(tcp::no_delay(true), ignored);
      if (use_tls) {
        std::make_shared<Relay<asio::ssl::stream<tcp::socket>>>(
            *this, asio::ssl::stream<tcp::socket>(std::move(socket), tls), address)
            ->Start();
      } else {
        std::make_shared<Relay<tcp::socket>>(*this, std::move(socket), address)->Start();
      }
    }
    if (per_address.count(address) > 0 && per_address[address] == 0) per_address.erase(address);
    Accept();
  });
}

ReportFrontDoor::ReportFrontDoor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ReportFrontDoor::~ReportFrontDoor() { Stop(); }

absl::StatusOr<std::unique_ptr<ReportFrontDoor>> ReportFrontDoor::Start(
    FrontDoorOptions options, std::function<void(int fd)> hand_off) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(hand_off));
  const FrontDoorOptions& o = impl->options;
  if (o.certificate != nullptr) {
    impl->use_tls = true;
    SSL_CTX* ctx = impl->tls.native_handle();
    o.certificate->Install(*ctx);
    SSL_CTX_set_alpn_select_cb(ctx, &SelectH2, nullptr);
    if (!o.client_ca_file.empty()) {
      boost::system::error_code ec;
      impl->tls.load_verify_file(o.client_ca_file, ec);
      if (ec) {
        return absl::InvalidArgumentError(absl::StrCat("--grpc-client-ca-file: cannot use ",
                                                       o.client_ca_file, ": ", ec.message()));
      }
      impl->tls.set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
    }
  } else if (!o.client_ca_file.empty()) {
    return absl::InvalidArgumentError("a client CA needs a server certificate (TLS)");
  }
  impl->acceptor.emplace(impl->io);
  absl::StatusOr<int> listening = io::ListenOn(*impl->acceptor, o.host, o.port);
  if (!listening.ok()) return listening.status();
  Impl* raw = impl.get();
  raw->Accept();
  raw->thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<ReportFrontDoor>(new ReportFrontDoor(std::move(impl)));
}

int ReportFrontDoor::port() const {
  boost::system::error_code ignored;
  return impl_->acceptor->local_endpoint(ignored).port();
}

size_t ReportFrontDoor::open_connections() const { return impl_->open.load(); }

void ReportFrontDoor::StopAccepting() {
  if (!accepting_) return;
  accepting_ = false;
  Impl* impl = impl_.get();
  std::promise<void> done;
  asio::post(impl->io, [impl, &done] {
    impl->accepting = false;
    boost::system::error_code ignored;
    impl->acceptor->close(ignored);
    done.set_value();
  });
  done.get_future().wait();
}

void ReportFrontDoor::Stop() {
  if (stopped_) return;
  stopped_ = true;
  accepting_ = false;
  Impl* impl = impl_.get();
  asio::post(impl->io, [impl] {
    impl->accepting = false;
    boost::system::error_code ignored;
    impl->acceptor->close(ignored);
    // Copied: each connection's destructor erases its closer.
    std::vector<std::function<void()>> closers;
    for (auto& [id, close] : impl->closers) closers.push_back(close);
    for (auto& close : closers) close();
  });
  impl->thread.join();
}

}  // namespace headroom::extender
