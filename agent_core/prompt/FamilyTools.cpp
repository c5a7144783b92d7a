#include "agent_core/prompt/FamilyTools.h"

#include <algorithm>

namespace warren::agent {

namespace {

constexpr const char* kPatchTool = "apply_patch";
constexpr const char* kEditTool = "edit_file";

bool has(const std::vector<std::string>& names, const char* name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

std::vector<std::string> toolsForFamily(std::vector<std::string> enabled, ModelFamily family) {
    if (!has(enabled, kPatchTool) || !has(enabled, kEditTool))
        return enabled;
    const char* other = family == ModelFamily::OpenAi ? kEditTool : kPatchTool;
    enabled.erase(std::remove(enabled.begin(), enabled.end(), other), enabled.end());
    return enabled;
}

} // namespace warren::agent
