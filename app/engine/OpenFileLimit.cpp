#include "app/engine/OpenFileLimit.h"

#include <cerrno>
#include <cstring>
#include <sys/resource.h>

namespace warren::control {

Result<std::uint64_t> raiseOpenFileLimit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return makeError(ErrorCode::System, std::string("cannot read the open files limit: ") + std::strerror(errno));
    if (limit.rlim_cur != limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &limit) != 0)
            return makeError(ErrorCode::System,
                             std::string("cannot raise the open files limit: ") + std::strerror(errno));
    }
    return static_cast<std::uint64_t>(limit.rlim_cur);
}

} // namespace warren::control
