#include "app/secrets/ProcessHardening.h"

#include <cerrno>
#include <cstring>
#include <sys/prctl.h>
#include <sys/resource.h>

namespace warren::control {

Status hardenProcess() {
    // A core file would hold the API keys in plain text, wherever the system writes core files.
    const rlimit noCore{0, 0};
    if (::setrlimit(RLIMIT_CORE, &noCore) != 0)
        return makeError(ErrorCode::System,
                         std::string("cannot disable core dumps: ") + std::strerror(errno));
    // Not dumpable: other processes of the same user cannot ptrace this one or read its memory and
    // environment through /proc (which then belongs to root); only a process with CAP_SYS_PTRACE still can.
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return makeError(ErrorCode::System,
                         std::string("cannot make the process undumpable: ") + std::strerror(errno));
    return Ok{};
}

} // namespace warren::control
