#pragma once
// The scripted demo that `warren run` uses when no model is configured: resources/demo (a small workspace
// whose test fails, and a script that finds and fixes the bug), embedded in the binary so it runs from
// anywhere. Every run gets its own copy; the user's files are never touched.

#include "common/Result.h"

#include <string>

namespace warren::control {

// Writes the demo script to directory/script.json and the workspace to directory/workspace.
Status writeDemo(const std::string& directory);

inline constexpr const char* kDemoPrompt = "Make the test in this workspace pass (sh test.sh).";

} // namespace warren::control
