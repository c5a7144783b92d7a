#include "sandbox/ProcStat.h"

#include <fstream>
#include <sstream>

namespace warren::sandbox {

std::optional<std::string> procStatField(pid_t pid, int field) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(file, line))
        return std::nullopt;
    const auto afterName = line.rfind(')'); // "PID (COMM) STATE ...": COMM may hold ')' and spaces
    if (afterName == std::string::npos)
        return std::nullopt;
    std::istringstream fields(line.substr(afterName + 1));
    std::string value;
    for (int index = 3; index <= field; ++index)
        if (!(fields >> value))
            return std::nullopt;
    return value;
}

} // namespace warren::sandbox
