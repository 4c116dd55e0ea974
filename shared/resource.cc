#include "shared/resource.h"

#include <string>

#include "shared/quantity.h"

namespace headroom {

std::string FormatAmount(Resource resource, int64_t amount) {
  return resource == Resource::kCpu ? FormatCpuMillis(amount) : FormatMemoryBytes(amount);
}

}  // namespace headroom
