// The protocol's floor for scheduler extender benchmarks: a kube-scheduler extender that
// decides nothing. One thread, raw epoll, keep-alive, no JSON parser: /filter passes every
// node (it copies the request's NodeNames array, or its Nodes object, into the answer) and
// /prioritize scores every named node 0. What is left is what the HTTP extender protocol
// itself costs: a loopback round trip and the bytes. Written for scripts/bench-extender.sh
// and scripts/bench-scheduling.sh; not part of headroom.
//
// Usage: null_extender --address 127.0.0.1 --port 0 [--scores zero|varied]
//        (prints the port it listens on)

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace {

struct Connection {
  int fd = -1;
  std::string in;
  std::string out;
  size_t sent = 0;
};

// The JSON value that starts at `at` (an array or an object), copied as it is: brackets are
// counted outside strings. Empty when it is not a complete array or object.
std::string_view Value(std::string_view body, size_t at) {
  while (at < body.size() && (body[at] == ' ' || body[at] == '\n')) ++at;
  if (at >= body.size() || (body[at] != '[' && body[at] != '{')) return {};
  int depth = 0;
  bool in_string = false;
  for (size_t i = at; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && --depth == 0) {
      return body.substr(at, i + 1 - at);
    }
  }
  return {};
}

std::string_view Member(std::string_view body, std::string_view key) {
  const size_t at = body.find(key);
  return at == std::string_view::npos ? std::string_view() : Value(body, at + key.size());
}

// --scores varied: each node gets a fixed score from its name (0..9) instead of 0, so that
// kube-scheduler's choice depends on the extender as it does with one that scores; still no
// parsing beyond finding the names.
bool varied_scores = false;

char ScoreOf(std::string_view name) {
  if (!varied_scores) return '0';
  uint32_t hash = 2166136261u;  // FNV-1a
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return static_cast<char>('0' + hash % 10);  // one digit: 0..9
}

std::string Answer(std::string_view path, std::string_view body) {
  const std::string_view names = Member(body, "\"NodeNames\":");
  if (path == "/filter") {
    if (!names.empty()) {
      return std::string("{\"Nodes\":null,\"NodeNames\":")
          .append(names)
          .append(",\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    }
    return std::string("{\"Nodes\":")
        .append(Member(body, "\"Nodes\":"))
        .append(
            ",\"NodeNames\":null,\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{},"
            "\"Error\":\"\"}");
  }
  // Prioritize: every node named in the request (NodeNames, or the names in Nodes, which
  // are the nodes' metadata names for the Node objects benchmarks send).
  std::string out = "[";
  const std::string_view list = names.empty() ? Member(body, "\"Nodes\":") : names;
  const std::string_view marker = names.empty() ? "\"name\":\"" : "\"";
  size_t at = 0;
  while ((at = list.find(marker, at)) != std::string_view::npos) {
    const size_t start = at + marker.size();
    const size_t end = list.find('"', start);
    if (end == std::string_view::npos) break;
    if (out.size() > 1) out += ',';
    const std::string_view name = list.substr(start, end - start);
    out.append("{\"Host\":\"").append(name).append("\",\"Score\":");
    out += ScoreOf(name);
    out += '}';
    at = end + 1;
    if (!names.empty()) {
      at = list.find('"', at);  // past the comma to the next name's quote
      if (at == std::string_view::npos) break;
    }
  }
  out += ']';
  return out;
}

// Moves every complete request in `c.in` to an answer in `c.out`.
void Serve(Connection& c) {
  for (;;) {
    const size_t end = c.in.find("\r\n\r\n");
    if (end == std::string::npos) return;
    const std::string_view head(c.in.data(), end);
    size_t length = 0;
    for (std::string_view key : {"Content-Length:", "content-length:"}) {
      const size_t at = head.find(key);
      if (at != std::string_view::npos)
        length = std::strtoul(head.data() + at + key.size(), nullptr, 10);
    }
    if (c.in.size() < end + 4 + length) return;
    const size_t space = head.find(' ');
    const size_t path_end = head.find(' ', space + 1);
    const std::string_view path = head.substr(space + 1, path_end - space - 1);
    const std::string body = Answer(path, std::string_view(c.in).substr(end + 4, length));
    c.out.append("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ")
        .append(std::to_string(body.size()))
        .append("\r\n\r\n")
        .append(body);
    c.in.erase(0, end + 4 + length);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string address = "127.0.0.1";
  int port = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--address") == 0) address = argv[i + 1];
    if (std::strcmp(argv[i], "--port") == 0) port = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--scores") == 0)
      varied_scores = std::strcmp(argv[i + 1], "varied") == 0;
  }
  std::signal(SIGPIPE, SIG_IGN);
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listener, SOMAXCONN) != 0) {
    std::perror("null_extender: listen");
    return 1;
  }
  socklen_t size = sizeof(addr);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &size);
  std::printf("%d\n", ntohs(addr.sin_port));
  std::fflush(stdout);

  const int epoll = epoll_create1(0);
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = listener;
  epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
  std::unordered_map<int, std::unique_ptr<Connection>> connections;
  epoll_event events[64];
  char buffer[64 << 10];
  for (;;) {
    const int n = epoll_wait(epoll, events, 64, -1);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener) {
        int client;
        while ((client = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK)) >= 0) {
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          epoll_event e{};
          e.events = EPOLLIN;
          e.data.fd = client;
          epoll_ctl(epoll, EPOLL_CTL_ADD, client, &e);
          connections[client] = std::make_unique<Connection>();
          connections[client]->fd = client;
        }
        continue;
      }
      Connection& c = *connections[fd];
      bool closed = false;
      for (;;) {
        const ssize_t got = read(fd, buffer, sizeof(buffer));
        if (got > 0) {
          c.in.append(buffer, static_cast<size_t>(got));
          continue;
        }
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) closed = true;
        break;
      }
      Serve(c);
      while (!closed && c.sent < c.out.size()) {
        const ssize_t put = write(fd, c.out.data() + c.sent, c.out.size() - c.sent);
        if (put > 0) {
          c.sent += static_cast<size_t>(put);
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
          // A large answer the client has not read yet: wait until it does (rare here).
          pollfd p{fd, POLLOUT, 0};
          poll(&p, 1, 1000);
        } else {
          closed = true;
        }
      }
      c.out.clear();
      c.sent = 0;
      if (closed) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        connections.erase(fd);
      }
    }
  }
}
