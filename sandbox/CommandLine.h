#pragma once
// warren-sandbox's command line, parsed without side effects. The flags become the last profile layer
// (a JSON merge patch over the default and --profile), so a flag and a profile key can never disagree.

#include "common/Result.h"
#include "sandbox/Backend.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace warren::sandbox {

struct SandboxCommandLine {
    std::optional<std::string> profileFile;
    nlohmann::json overrides = nlohmann::json::object(); // the command-line profile layer
    Backend backend = Backend::Bwrap;
    std::optional<std::string> image; // --image: only with a container backend
    // --kubeconfig, --namespace and --runtime-class: only with --backend kubernetes.
    std::optional<std::string> kubeconfig;
    std::optional<std::string> kubeNamespace;
    std::optional<std::string> runtimeClass;
    bool explain = false;
    bool help = false;
    std::vector<std::string> command;
};

// args excludes argv[0]; cwd resolves relative paths and is the default workspace.
Result<SandboxCommandLine> parseCommandLine(const std::vector<std::string>& args, const std::string& cwd);

std::string usageText();

} // namespace warren::sandbox
