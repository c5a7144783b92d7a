#pragma once
// WARREN_SANDBOX_PROFILE: one more profile layer for every agent's sandbox, the site's policy (and what a
// sanitizer build's agent needs), read where a control plane opens: the desktop's and warrend.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace warren::control {

// No layer when the variable is unset; an error naming the file when it is not a JSON object.
Result<std::vector<nlohmann::json>> siteProfileLayers();

} // namespace warren::control
