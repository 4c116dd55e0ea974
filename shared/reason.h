#pragma once

#include <string>

namespace headroom {

// Why a decision was taken, as data: `code` is a stable CamelCase identifier for machines
// (metrics labels, tests, alerting), `message` a sentence with the numbers for people
// (FailedNodes, Kubernetes events, logs).
struct Reason {
  std::string code;
  std::string message;

  friend bool operator==(const Reason& a, const Reason& b) {
    return a.code == b.code && a.message == b.message;
  }
};

}  // namespace headroom
