#include "app/tasks/SiteProfile.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace warren::control {

Result<std::vector<nlohmann::json>> siteProfileLayers() {
    const char* path = std::getenv("WARREN_SANDBOX_PROFILE");
    if (!path || !*path)
        return std::vector<nlohmann::json>{};
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    auto layer = nlohmann::json::parse(text.str(), nullptr, false);
    if (!file || layer.is_discarded() || !layer.is_object())
        return makeError(ErrorCode::InvalidArgument, std::string("WARREN_SANDBOX_PROFILE=") + path +
                                                         ": not a readable JSON profile layer");
    return std::vector<nlohmann::json>{layer};
}

} // namespace warren::control
