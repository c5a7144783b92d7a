#include "app/tasks/AgentCli.h"

#include "common/ExecutableSearch.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unistd.h>

namespace warren::control {

namespace fs = std::filesystem;
using protocol::AgentKind;
using protocol::cliCommandName;
using protocol::cliPackageName;

namespace {

#if defined(__aarch64__)
constexpr const char* kCodexTriple = "aarch64-unknown-linux-musl";
constexpr const char* kCodexPlatformPackage = "codex-linux-arm64";
constexpr const char* kClaudePlatformPackage = "claude-code-linux-arm64";
#else
constexpr const char* kCodexTriple = "x86_64-unknown-linux-musl";
constexpr const char* kCodexPlatformPackage = "codex-linux-x64";
constexpr const char* kClaudePlatformPackage = "claude-code-linux-x64";
#endif

const char* displayName(AgentKind kind) {
    return kind == AgentKind::ClaudeCode ? "Claude Code" : "Codex";
}

std::string installHint(AgentKind kind) {
    return std::string("install it (npm install -g ") + cliPackageName(kind) + ") or name it with --agent-path PATH";
}

bool isElf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::array<char, 4> magic{};
    return in.read(magic.data(), magic.size()) && magic == std::array<char, 4>{0x7f, 'E', 'L', 'F'};
}

Result<fs::path> findOnPath(AgentKind kind, const std::string& searchPath) {
    if (auto found = findExecutableOnPath(cliCommandName(kind), searchPath))
        return *found;
    return makeError(ErrorCode::InvalidArgument, std::string(displayName(kind)) + " is not installed: no `" +
                                              cliCommandName(kind) + "` on PATH; " + installHint(kind));
}

// Claude Code 2 installed without its install script (npm --ignore-scripts, some pnpm setups): bin/claude.exe
// is a stub, and the executable is the platform package's, beside the package or inside it.
std::optional<fs::path> claudeNativeExecutable(const fs::path& real) {
    const fs::path package = real.parent_path().parent_path();
    const fs::path platform = fs::path("@anthropic-ai") / kClaudePlatformPackage / "claude";
    for (const fs::path& candidate : {package.parent_path().parent_path() / platform, package / "node_modules" / platform})
        if (isExecutableFile(candidate) && isElf(candidate))
            return fs::canonical(candidate);
    return std::nullopt;
}

// Codex's vendor directory (bin/codex, codex-path/rg) for its executable, or for the launcher npm links.
std::optional<fs::path> codexVendorDir(const fs::path& real) {
    if (isElf(real)) {
        const fs::path dir = real.parent_path().parent_path();
        if (real.parent_path().filename() == "bin" && fs::is_directory(dir / "codex-path"))
            return dir;
        return std::nullopt;
    }
    // bin/codex.js of @openai/codex: the platform's package beside it (npm's flat layout) or inside it.
    const fs::path package = real.parent_path().parent_path();
    const fs::path platform = fs::path("@openai") / kCodexPlatformPackage / "vendor" / kCodexTriple;
    for (const fs::path& candidate : {package.parent_path().parent_path() / platform,
                                      package / "node_modules" / platform, package / "vendor" / kCodexTriple})
        if (isExecutableFile(candidate / "bin" / "codex"))
            return candidate;
    return std::nullopt;
}

} // namespace

Result<CliInstall> locateCli(AgentKind kind, const std::string& named, const std::string& searchPath) {
    if (!protocol::isCliAgent(kind))
        return makeError(ErrorCode::InvalidArgument, "Warren's own agent is not a CLI to locate");
    fs::path given;
    if (named.empty()) {
        auto found = findOnPath(kind, searchPath);
        if (!found)
            return found.error();
        given = *found;
    } else {
        given = named;
    }
    std::error_code error;
    const fs::path real = fs::canonical(given, error);
    if (error || !isExecutableFile(real))
        return makeError(ErrorCode::InvalidArgument, std::string(displayName(kind)) + " at " + given.string() +
                                                  " is not an executable file; " + installHint(kind));
    const std::string inside = kCliDirInSandbox;
    if (kind == AgentKind::ClaudeCode) {
        if (const auto native = claudeNativeExecutable(real); !isElf(real) && native)
            return CliInstall{native->string(), false, inside + "/claude", {}};
        if (!isElf(real)) // Claude Code 1 was a Node.js script, which would need Node.js in every sandbox
            return makeError(ErrorCode::InvalidArgument,
                             "Claude Code at " + real.string() +
                                 " is not a native executable (Claude Code 1 was a Node.js script); Warren runs "
                                 "Claude Code 2 or later: npm install -g @anthropic-ai/claude-code@latest");
        return CliInstall{real.string(), false, inside + "/claude", {}};
    }
    if (const auto vendor = codexVendorDir(real))
        return CliInstall{vendor->string(), true, inside + "/bin/codex", {inside + "/codex-path"}};
    if (isElf(real)) // a codex executable of its own, without the vendor directory around it
        return CliInstall{real.string(), false, inside + "/codex", {}};
    return makeError(ErrorCode::InvalidArgument, "Codex at " + real.string() + " has no executable for this machine beside it (" +
                                              std::string("@openai/") + kCodexPlatformPackage + "); " +
                                              installHint(kind));
}

Result<std::optional<CliInstall>> taskCli(AgentKind agent, const std::string& agentPath,
                                          const std::map<AgentKind, std::string>& configured,
                                          sandbox::Backend backend) {
    if (!protocol::isCliAgent(agent))
        return std::optional<CliInstall>();
    if (sandbox::agentRoute(backend) == sandbox::AgentRoute::Network) // warren-agent's supervisor finds it
        return std::optional<CliInstall>(CliInstall{{}, false, cliCommandName(agent), {}});
    std::string named = agentPath;
    if (const auto it = configured.find(agent); named.empty() && it != configured.end())
        named = it->second;
    const char* path = std::getenv("PATH");
    auto install = locateCli(agent, named, path ? path : "");
    if (!install)
        return install.error();
    return std::optional<CliInstall>(std::move(*install));
}

Status cliSpeaksProvider(protocol::AgentKind agent, const ProviderConfig& provider) {
    using protocol::AgentKind;
    const bool speaks = agent == AgentKind::Warren ||
                        (agent == AgentKind::ClaudeCode && provider.kind == ProviderConfig::Kind::Anthropic) ||
                        (agent == AgentKind::Codex && provider.kind == ProviderConfig::Kind::OpenAi);
    if (speaks)
        return Ok{};
    const std::string name(protocol::agentKindName(agent));
    if (provider.kind == ProviderConfig::Kind::Scripted)
        return makeError(ErrorCode::InvalidArgument,
                         "the scripted provider plays Warren's own agent; " + name + " talks to a model: " +
                             (agent == AgentKind::ClaudeCode ? "--provider anthropic (or anthropic:URL)"
                                                             : "--provider openai (or openai-compatible:URL)"));
    return makeError(ErrorCode::InvalidArgument,
                     agent == AgentKind::ClaudeCode
                         ? "claude-code speaks Anthropic's Messages API, not " + provider.name +
                               "'s: run it with --provider anthropic (or anthropic:URL)"
                         : "codex speaks OpenAI's Responses API, not " + provider.name +
                               "'s: run it with --provider openai (or openai-compatible:URL)");
}

Status checkAgentProvider(const TaskSpec& spec) {
    if (!protocol::isCliAgent(spec.agent))
        return Ok{};
    auto provider = parseProviderSpec(spec.provider, spec.model);
    if (!provider) // the launch reports it, as for any task
        return Ok{};
    return cliSpeaksProvider(spec.agent, *provider);
}

Status checkTaskAgent(const TaskSpec& spec, const std::map<AgentKind, std::string>& configured) {
    if (auto speaks = checkAgentProvider(spec); !speaks)
        return speaks;
    if (auto install = taskCli(spec.agent, spec.agentPath, configured, spec.backend); !install)
        return install.error();
    return Ok{};
}

} // namespace warren::control
