#include "io/tcp_listen.h"

#include "absl/strings/str_cat.h"

namespace headroom::io {

absl::StatusOr<int> ListenOn(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host,
                             int port) {
  namespace asio = boost::asio;
  boost::system::error_code ec;
  const asio::ip::address address =
      asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("not an IP address: ", host));
  const asio::ip::tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", host, ":", port, ": ", ec.message()));
  }
  return acceptor.local_endpoint().port();
}

}  // namespace headroom::io
