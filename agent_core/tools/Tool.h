#pragma once
// A tool the model can call (names and arguments in DESIGN §4). A tool never throws and never fails the
// task: bad arguments, a path outside the workspace, a missing file or a failing command are outcomes the
// model reads and reacts to. What a tool writes for the model is capped (head and tail kept, the cut
// marked); what a process prints streams out whole through ToolEnv::onOutput.

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/Methods.h"
#include "agent_core/tools/Cancellation.h"
#include "agent_core/tools/UnifiedDiff.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warren::agent {

using protocol::FileChange; // created, modified, deleted: what file_changed reports

using Deadline = std::chrono::steady_clock::time_point;

// What a tool may use while it runs. Set up by the loop for each call.
struct ToolEnv {
    std::filesystem::path workspace;         // absolute and normalised; relative paths resolve under it
    Deadline deadline = Deadline::max();     // the step's deadline: a tool stops by then
    std::size_t outputLimitBytes = 16 * 1024; // for ToolOutcome::output
    std::uint64_t shellTimeoutSec = 120;     // shell's timeout when the call gives no timeout_sec
    const Cancellation* cancellation = nullptr; // never null while a tool runs
    std::string callId;                      // the model's id of this call (spawn_agent records it)
    // Live output of a process, in arrival order; stream is "stdout" or "stderr". Chunks end on UTF-8
    // character boundaries.
    std::function<void(std::string_view stream, std::string_view text)> onOutput;
    // A workspace file the tool created, modified or deleted; path relative to the workspace. `diff` is what
    // changed, from a tool that knew the content before and after (write_file, edit_file); null for a change
    // seen only from outside, as a shell command's, and for a file too large to read back.
    std::function<void(const std::string& path, FileChange change, const FileDiff* diff)> onFileChanged;
    // The model's plan, whole, each time update_plan changes it.
    std::function<void(const protocol::PlanUpdatedData& plan)> onPlanUpdated;
};

struct ToolOutcome {
    bool ok = true;           // false: the call failed (bad arguments, refused path, command exit != 0, ...)
    std::string output;       // what the model reads; at most about ToolEnv::outputLimitBytes
    int exitCode = 0;         // a process's exit code, 128+N when killed by signal N; 0 or 1 for the others
    bool truncated = false;   // output was cut
    bool timedOut = false;    // stopped at its timeout or the step's deadline
    bool cancelled = false;   // stopped because a stop was requested
    std::uint64_t bytesWritten = 0; // bytes written to workspace files (write_file, edit_file)
    friend bool operator==(const ToolOutcome&, const ToolOutcome&) = default;
};

// A failed outcome with a message for the model, e.g. failure("read_file: path: no such file: a.txt").
ToolOutcome failure(std::string message);

class Tool {
public:
    virtual ~Tool() = default;

    virtual ToolOutcome run(const nlohmann::json& arguments, const ToolEnv& env) = 0;

    // Read-only tools are cached by the loop: for the same arguments and the same contentKey the outcome
    // is the same. contentKey digests what run() would read (file identities, sizes, change times);
    // nullopt means it cannot tell, and the call is not cached.
    virtual bool readOnly() const { return false; }
    virtual std::optional<std::string> contentKey(const nlohmann::json& /*arguments*/,
                                                  const ToolEnv& /*env*/) const {
        return std::nullopt;
    }

    // A read-only tool that shares nothing with another call but the files it reads: the loop may run it
    // on another thread at the same time as other such calls of one reply (ConcurrentCalls). The memory
    // tools share their store and its backend, so they are not.
    virtual bool concurrencySafe() const { return false; }
};

// A tool as the registry knows it: what the model is told, and how to make it (on first use when tools
// are loaded lazily).
struct ToolEntry {
    protocol::ToolSpec spec;
    std::function<std::unique_ptr<Tool>()> make;
};

} // namespace warren::agent
