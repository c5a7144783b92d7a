#include "agent_core/process/ProcessSeal.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>

namespace warren::agent {

Status sealProcess() {
    const rlimit noCore{0, 0};
    if (::setrlimit(RLIMIT_CORE, &noCore) != 0)
        return makeError(ErrorCode::System, std::string("cannot disable core dumps: ") + std::strerror(errno));
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        return makeError(ErrorCode::System,
                         std::string("cannot make the agent undumpable, so its tools could take its channel: ") +
                             std::strerror(errno));
    return Ok{};
}

bool isControlPlaneStop(int siCode, pid_t siPid, pid_t launcherPid) {
    if (siCode == SI_KERNEL) // a terminal's interrupt or hang-up; no process can send this code
        return true;
    if (siCode != SI_USER) // kill(), tgkill() and pidfd_send_signal() give SI_USER or SI_TKILL with the true pid
        return false;
    return siPid == 0 || (launcherPid > 0 && siPid == launcherPid);
}

} // namespace warren::agent
