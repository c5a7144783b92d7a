#pragma once
// Runs one tool process to the end (DESIGN §4): in its own process group, with stdin from /dev/null (or a
// pipe the caller writes to) and stdout/stderr on pipes of their own (the agent's fd 1 is the protocol
// channel), nothing else of the agent's inherited, a deadline (SIGTERM to the group, SIGKILL after a
// grace), a stop that kills at once, output streamed live and capped for the model. When it returns
// nothing the process started is left running: the group is killed as soon as the main process exits, and
// killAndReapDescendants() catches what escaped the group.
//
// One call at a time per agent: the end of a call kills and reaps every child of the agent.

#include "common/Result.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

using Deadline = std::chrono::steady_clock::time_point;

struct ProcessSpec {
    std::vector<std::string> argv;        // argv[0] looked up in PATH if it has no '/'
    std::filesystem::path workdir;        // empty = the agent's
    std::vector<std::string> environment; // "NAME=VALUE"; empty = inherit the agent's
    Deadline deadline = Deadline::max();
    // The child's stdin, the read end of a pipe the caller writes to: runProcess closes it (once the child
    // has it, so a write after the child's exit fails instead of waiting). -1 = /dev/null.
    int stdinFd = -1;
    int stopFd = -1;                     // readable = stop now (Cancellation::fd()); -1 = none
    std::function<bool()> stopRequested; // polled when stopFd is -1
    // Live output in arrival order, each chunk ending on a UTF-8 character boundary; stream is "stdout"
    // or "stderr". Called on the calling thread.
    std::function<void(std::string_view stream, std::string_view text)> onOutput;
    std::size_t capBytes = 16 * 1024;
    // Beyond this, output is counted and capped but not streamed; one final onOutput chunk says so.
    std::uint64_t streamLimitBytes = 64ull << 20;
};

struct ProcessResult {
    int exitCode = 0;      // the exit status, 128+N when killed by signal N, 124 when timed out
    bool timedOut = false; // the deadline passed
    bool stopped = false;  // stopFd became readable or stopRequested() said so
    std::string output;    // stdout and stderr interleaved in arrival order, capped (OutputCap)
    bool truncated = false;
    std::uint64_t totalBytes = 0; // all output bytes, streamed or not
    std::chrono::milliseconds duration{0};
};

// After SIGTERM at the deadline, the group has this long to exit before SIGKILL.
inline constexpr std::chrono::seconds kTerminateGrace{2};

// An error only when the process could not start (no such program, not executable, no such workdir, no
// fork); the message names argv[0] and the reason.
Result<ProcessResult> runProcess(const ProcessSpec& spec);

} // namespace warren::agent
