#include "app/tasks/SiteProfile.h"

#include "common/FileText.h"

#include <cstdlib>

namespace warren::control {

Result<std::vector<nlohmann::json>> siteProfileLayers() {
    const char* path = std::getenv("WARREN_SANDBOX_PROFILE");
    if (!path || !*path)
        return std::vector<nlohmann::json>{};
    const auto text = readFileText(path);
    const auto layer = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (layer.is_discarded() || !layer.is_object())
        return makeError(ErrorCode::InvalidArgument, std::string("WARREN_SANDBOX_PROFILE=") + path +
                                                         ": not a readable JSON profile layer");
    return std::vector<nlohmann::json>{layer};
}

} // namespace warren::control
