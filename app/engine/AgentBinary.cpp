#include "app/engine/AgentBinary.h"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <vector>

namespace warren::control {

namespace fs = std::filesystem;

Result<std::string> namedAgentBinary(const std::string& path, const std::string& namedBy) {
    std::error_code error;
    const auto canonical = fs::canonical(path, error);
    if (error || access(canonical.c_str(), X_OK) != 0)
        return makeError(ErrorCode::NotFound, namedBy + path + " is not an executable file; fix the path");
    return canonical.string();
}

Result<std::string> findAgentBinary(const std::string& programDir) {
    if (const char* fromEnv = std::getenv("WARREN_AGENT"); fromEnv && *fromEnv)
        return namedAgentBinary(fromEnv, "WARREN_AGENT=");
    const std::vector<std::string> candidates = {programDir + "/warren-agent",
                                                 programDir + "/../agent_core/tool/warren-agent",
                                                 programDir + "/../../agent_core/tool/warren-agent",
                                                 programDir + "/../lib/warren/warren-agent"};
    for (const auto& candidate : candidates) {
        std::error_code error;
        const auto path = fs::canonical(candidate, error);
        if (!error && access(path.c_str(), X_OK) == 0)
            return path.string();
    }
    std::string looked;
    for (const auto& candidate : candidates)
        looked += "\n  " + candidate;
    return makeError(ErrorCode::NotFound, "cannot find warren-agent; looked in:" + looked +
                                              "\nInstall Warren completely, or set WARREN_AGENT to its path.");
}

} // namespace warren::control
