#include "agent_core/tools/ShellTool.h"

#include "agent_core/process/ProcessRunner.h"
#include "agent_core/tools/WorkspacePath.h"
#include "common/JsonFields.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <system_error>

namespace warren::agent {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Far beyond any step, and small enough that now + timeout cannot overflow the clock.
constexpr std::uint64_t kMaxTimeoutSec = 7ull * 24 * 3600;

struct ShellArguments {
    std::string command;
    std::optional<std::uint64_t> timeoutSec;
    std::optional<std::string> workdir;
};

std::optional<std::string> readArguments(const json& arguments, ShellArguments& out) {
    if (!arguments.is_object())
        return "shell: arguments must be an object with \"command\"";
    if (const auto unknown = json_fields::findUnknownKey(arguments, {"command", "timeout_sec", "workdir"}))
        return "shell: unknown argument \"" + *unknown + "\"; allowed: command, timeout_sec, workdir";
    const auto command = arguments.find("command");
    if (command == arguments.end() || !command->is_string() || command->get<std::string>().empty())
        return "shell: \"command\" must be a non-empty string";
    out.command = command->get<std::string>();
    if (const auto timeout = arguments.find("timeout_sec"); timeout != arguments.end()) {
        const auto seconds = json_fields::asUint(*timeout);
        if (!seconds || *seconds < 1)
            return "shell: \"timeout_sec\" must be a whole number of seconds, at least 1";
        out.timeoutSec = seconds;
    }
    if (const auto workdir = arguments.find("workdir"); workdir != arguments.end()) {
        if (!workdir->is_string())
            return "shell: \"workdir\" must be a string (a directory in the workspace)";
        out.workdir = workdir->get<std::string>();
    }
    return std::nullopt;
}

// The directory to run in: the workspace, or workdir resolved by the rule every tool's path follows
// (WorkspacePath), so neither "..", an absolute path nor a symlink can lead outside.
std::optional<std::string> resolveWorkdir(const std::optional<std::string>& workdir, const ToolEnv& env,
                                          fs::path& out) {
    const std::string requested = workdir && !workdir->empty() ? *workdir : ".";
    auto resolved = resolveInWorkspace(env.workspace, requested);
    if (!resolved)
        return "shell: workdir: " + resolved.error().message;
    std::error_code error;
    if (!fs::is_directory(*resolved, error))
        return "shell: workdir \"" + requested + "\" is not a directory in the workspace";
    out = std::move(resolved).value();
    return std::nullopt;
}

void appendNote(std::string& text, const std::string& note) {
    if (!text.empty() && text.back() != '\n')
        text += '\n';
    text += note;
}

std::string exitNote(int exitCode) {
    std::string note = "[exit code " + std::to_string(exitCode);
    if (exitCode > 128) {
        if (const char* name = sigabbrev_np(exitCode - 128))
            note += std::string(": killed by SIG") + name;
    }
    return note + "]";
}

} // namespace

protocol::ToolSpec ShellTool::spec() {
    protocol::ToolSpec spec;
    spec.name = "shell";
    spec.description =
        "Run a command with /bin/sh -c in the workspace; returns stdout and stderr interleaved "
        "(long output keeps its head and tail) and the exit code when it is not 0.";
    spec.parameters = json{
        {"type", "object"},
        {"properties",
         {{"command", {{"type", "string"}, {"description", "The command line, run by /bin/sh -c."}}},
          {"timeout_sec",
           {{"type", "integer"},
            {"minimum", 1},
            {"description", "Seconds before the command is stopped (default: the agent's shell timeout)."}}},
          {"workdir",
           {{"type", "string"},
            {"description", "Directory to run in, relative to the workspace (default: the workspace)."}}}}},
        {"required", {"command"}},
        {"additionalProperties", false}};
    return spec;
}

ToolOutcome ShellTool::run(const json& arguments, const ToolEnv& env) {
    ShellArguments parsed;
    if (auto problem = readArguments(arguments, parsed))
        return failure(std::move(*problem));
    fs::path workdir;
    if (auto problem = resolveWorkdir(parsed.workdir, env, workdir))
        return failure(std::move(*problem));

    const auto now = Clock::now();
    const std::uint64_t timeoutSec =
        std::min(parsed.timeoutSec.value_or(env.shellTimeoutSec), kMaxTimeoutSec);
    const Deadline ownDeadline = now + std::chrono::seconds(timeoutSec);
    const bool stepLimits = env.deadline < ownDeadline;
    const Deadline deadline = stepLimits ? env.deadline : ownDeadline;
    const auto allowedSec = std::chrono::ceil<std::chrono::seconds>(deadline - now).count();
    if (deadline <= now) {
        ToolOutcome outcome = failure("shell: the step's time is up; the command was not run");
        outcome.timedOut = true;
        outcome.exitCode = 124;
        return outcome;
    }

    ProcessSpec process;
    process.argv = {"/bin/sh", "-c", parsed.command};
    process.workdir = workdir;
    process.deadline = deadline;
    process.capBytes = env.outputLimitBytes;
    process.onOutput = env.onOutput;
    if (const Cancellation* cancellation = env.cancellation) {
        process.stopFd = cancellation->fd();
        process.stopRequested = [cancellation] {
            return cancellation->stopRequested();
        };
    }
    auto result = runProcess(process);
    if (!result)
        return failure("shell: " + result.error().message);

    ToolOutcome outcome;
    outcome.exitCode = result->exitCode;
    outcome.truncated = result->truncated;
    outcome.timedOut = result->timedOut;
    outcome.cancelled = result->stopped;
    outcome.ok = result->exitCode == 0 && !result->timedOut && !result->stopped;
    outcome.output = std::move(result->output);
    if (result->timedOut)
        appendNote(outcome.output, "[timed out after " + std::to_string(allowedSec) + " s" +
                                       (stepLimits ? ": the step's time limit" : "") + "]");
    else if (result->stopped)
        appendNote(outcome.output, "[stopped: the agent was asked to stop]");
    else if (result->exitCode != 0)
        appendNote(outcome.output, exitNote(result->exitCode));
    return outcome;
}

} // namespace warren::agent
