#include "sandbox/ProcessOwner.h"

#include "sandbox/ProcStat.h"

#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace warren::sandbox {

namespace {

std::string firstLine(const std::string& path) {
    std::ifstream file(path);
    std::string line;
    std::getline(file, line);
    const auto end = line.find_last_not_of(" \t\r\n");
    return end == std::string::npos ? std::string() : line.substr(0, end + 1);
}

} // namespace

std::string thisMachine() {
    std::string id = firstLine("/etc/machine-id");
    if (id.empty()) {
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        id = host;
    }
    return id + "." + firstLine("/proc/sys/kernel/random/boot_id");
}

std::string processStartTime(pid_t pid) {
    return procStatField(pid, 22).value_or("");
}

std::string processOwner() {
    return thisMachine() + ":" + std::to_string(getpid()) + ":" + processStartTime(getpid());
}

bool ownerGone(const std::string& owner, const std::string& machine,
               const std::function<std::string(pid_t)>& startTimeOf) {
    const auto second = owner.rfind(':');
    const auto first = second == std::string::npos || second == 0 ? std::string::npos : owner.rfind(':', second - 1);
    if (first == std::string::npos || owner.substr(0, first) != machine)
        return false;
    const std::string pidText = owner.substr(first + 1, second - first - 1);
    char* end = nullptr;
    const long pid = std::strtol(pidText.c_str(), &end, 10);
    if (pidText.empty() || *end != '\0' || pid <= 0)
        return false;
    return startTimeOf(static_cast<pid_t>(pid)) != owner.substr(second + 1);
}

} // namespace warren::sandbox
