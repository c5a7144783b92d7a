#pragma once
// The real git, run where it sees nothing of the user's: a private scratch directory holds an empty bare
// repository (made without templates, so it has no hooks) that every run names with --git-dir, and serves as
// HOME and XDG_CONFIG_HOME, so no user or system configuration, global excludes file or inherited GIT_*
// variable reaches git. Every run also sets core.fsmonitor=false and an empty hooks path. The user's own
// repository (.git) is never named, so git neither reads its index nor writes anything into it.
//
// git runs as a process, never through a shell; its stdout and stderr are read together, so neither pipe
// fills up and stalls it.

#include "common/Result.h"

#include <filesystem>
#include <string>
#include <vector>

namespace warren::git {

struct GitOutput {
    int status = 0; // git's exit status (128 + the signal when it was killed)
    std::string out;
    std::string err; // trimmed
};

// git as argv says (argv[0] is git, looked up in PATH when it has no '/'), run under the environment described
// above with home as its HOME and XDG_CONFIG_HOME, and extraEnv (NAME=VALUE) added. The caller names the
// repository and the switches; GitScratch::run and the task snapshots (app/snapshots) both go through here.
Result<GitOutput> runGit(std::vector<std::string> argv, const std::filesystem::path& home,
                         const std::vector<std::string>& extraEnv = {},
                         const std::filesystem::path& stdinFile = {});

class GitScratch {
public:
    // git is looked up in PATH when it has no '/'.
    static Result<GitScratch> create(const std::string& git = "git");
    GitScratch(GitScratch&& other) noexcept;
    GitScratch(const GitScratch&) = delete;
    GitScratch& operator=(const GitScratch&) = delete;
    ~GitScratch();

    const std::filesystem::path& path() const { return m_path; }

    // git -C cwd --git-dir=<the empty repository> args..., stdin from stdinFile (or /dev/null). A status
    // other than 0 is not an error here: the caller knows what git's statuses mean.
    Result<GitOutput> run(const std::filesystem::path& cwd, const std::vector<std::string>& args,
                          const std::filesystem::path& stdinFile = {}) const;

private:
    GitScratch(std::string git, std::filesystem::path path)
        : m_git(std::move(git)), m_path(std::move(path)) {}
    std::filesystem::path repository() const { return m_path / "empty.git"; }

    std::string m_git;
    std::filesystem::path m_path;
};

} // namespace warren::git
