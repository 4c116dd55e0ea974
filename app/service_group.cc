#include "app/service_group.h"

#include <utility>

namespace headroom::app {

ServiceGroup::~ServiceGroup() { Stop(); }

void ServiceGroup::Add(Service service) { services_.push_back({std::move(service), {}}); }

void ServiceGroup::Start() {
  for (Running& running : services_) {
    if (running.service.run) running.thread = std::thread(running.service.run);
  }
}

void ServiceGroup::Stop(const std::function<void(const std::string&)>& stopped) {
  if (stopped_) return;
  stopped_ = true;
  for (auto it = services_.rbegin(); it != services_.rend(); ++it) {
    if (it->service.stop) it->service.stop();
    if (it->thread.joinable()) it->thread.join();
    if (stopped) stopped(it->service.name);
  }
}

std::vector<std::string> ServiceGroup::names() const {
  std::vector<std::string> out;
  out.reserve(services_.size());
  for (const Running& running : services_) out.push_back(running.service.name);
  return out;
}

}  // namespace headroom::app
