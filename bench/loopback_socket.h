#pragma once

// A TCP connection to a port on 127.0.0.1 from another loopback source address (127.0.0.2,
// 127.0.0.3, ...), so a load tool's thousands of "nodes" are not all one address to the
// extender's per-address connection cap (report_load, cluster_reporter).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace headroom::bench {

// A connected socket from 127.0.0.`host_octet` to 127.0.0.1:`port`; -1 on failure.
inline int ConnectFrom(int host_octet, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl((127u << 24) | static_cast<uint32_t>(host_octet));
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_port = htons(static_cast<uint16_t>(port));
  remote.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof(remote)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace headroom::bench
