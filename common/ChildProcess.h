#pragma once
// A program run to its end and its output read: posix_spawn (argv[0] looked up in PATH when it has no '/'),
// never a shell, stdin from a file or /dev/null, stdout and stderr read together so neither pipe fills up
// and stalls it. A deadline and a cap on stdout end it early (SIGKILL), and the answer says which. The one
// way git (app/git) is run; the agent's tools have their own runner (agent_core/process), which streams.

#include "common/Result.h"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace warren {

struct ChildRequest {
    std::vector<std::string> argv;    // argv[0]: the program
    std::vector<std::string> env;     // the child's whole environment, NAME=VALUE
    std::filesystem::path stdinFile;  // empty: /dev/null
    std::chrono::milliseconds timeout{0}; // 0: none
    std::size_t maxStdout = std::numeric_limits<std::size_t>::max();
};

struct ChildOutput {
    enum class End { Exited, TimedOut, StdoutTooLarge };
    End end = End::Exited;
    int status = 0; // the exit status, 128 + the signal when one ended it (Exited only)
    std::string out;
    std::string err; // at most 64 KiB, trailing blanks and newlines trimmed
};

// An error only when the child cannot be started or its output cannot be read (the message names
// argv[0]); how it ended, its status included, is the caller's to judge.
Result<ChildOutput> runChild(const ChildRequest& request);

} // namespace warren
