#pragma once

// Opens, binds and listens a Boost.Asio TCP acceptor on an IP address ("localhost" is
// 127.0.0.1), for the daemons' listeners.

#include <boost/asio/ip/tcp.hpp>
#include <string>

#include "absl/status/statusor.h"

namespace headroom::io {

// The port listened on (the one picked when `port` is 0); InvalidArgument when `host` is not
// an IP address, Unavailable when the port cannot be had.
absl::StatusOr<int> ListenOn(boost::asio::ip::tcp::acceptor& acceptor, const std::string& host,
                             int port);

}  // namespace headroom::io
