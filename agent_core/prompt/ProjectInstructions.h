#pragma once
// The project's own instructions for agents: in each directory from the workspace root down to the
// working directory, the first of AGENTS.override.md (a local override), AGENTS.md and CLAUDE.md (the
// fallback many projects already have). They go to the model as one message after the system prompt,
// root first, so a deeper file is read later and wins; each is also an event for the timeline.

#include "common/Result.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

// In the order a directory is searched; the first that is a regular file (a symlink to one inside the
// workspace counts) is that directory's.
inline constexpr std::array<std::string_view, 3> kInstructionFileNames{"AGENTS.override.md", "AGENTS.md",
                                                                       "CLAUDE.md"};
// Bytes of instructions the model reads in all, as Codex's default: enough for a real AGENTS.md, not a
// way to fill the context.
inline constexpr std::size_t kInstructionBytesCap = 32 * 1024;

struct InstructionFile {
    std::string path;         // relative to the workspace: "AGENTS.md", "lib/CLAUDE.md"
    std::string text;         // what the model reads (valid UTF-8, within the cap)
    std::uint64_t bytes = 0;  // the file's size
    bool truncated = false;   // text is a prefix of the file (the cap), or empty (the cap was spent before it)
};

// workdir: relative to the workspace ("" or "." for the root). Files that cannot be read, and links that
// lead out of the workspace, are skipped; the walk never leaves the workspace.
std::vector<InstructionFile> findProjectInstructions(const std::filesystem::path& workspace,
                                                     std::string_view workdir = {},
                                                     std::size_t capBytes = kInstructionBytesCap);

// The message the model reads: each file under a heading naming it, root first, a cut file marked.
std::string instructionsMessage(const std::vector<InstructionFile>& files);

} // namespace warren::agent
