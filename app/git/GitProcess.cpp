#include "app/git/GitProcess.h"

#include "common/ChildProcess.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <utility>

namespace warren::git {

namespace {

namespace fs = std::filesystem;

Result<GitOutput> runProcess(std::vector<std::string> args, std::vector<std::string> env,
                             const fs::path& stdinFile) {
    ChildRequest request;
    request.argv = std::move(args);
    request.env = std::move(env);
    request.stdinFile = stdinFile;
    auto ran = runChild(request);
    if (!ran)
        return makeError(ran.error().code, ran.error().message +
                                               (ran.error().code == ErrorCode::NotFound ? " (is git installed?)" : ""));
    return GitOutput{ran->status, std::move(ran->out), std::move(ran->err)};
}

std::vector<std::string> gitEnvironment(const fs::path& scratch) {
    std::vector<std::string> env = {"GIT_CONFIG_NOSYSTEM=1",    "GIT_CONFIG_GLOBAL=/dev/null",
                                    "HOME=" + scratch.string(), "XDG_CONFIG_HOME=" + scratch.string(),
                                    "GIT_TERMINAL_PROMPT=0",    "LC_ALL=C"};
    if (const char* path = std::getenv("PATH"))
        env.push_back(std::string("PATH=") + path);
    return env;
}

} // namespace

Result<GitOutput> runGit(std::vector<std::string> argv, const fs::path& home,
                         const std::vector<std::string>& extraEnv, const fs::path& stdinFile) {
    auto env = gitEnvironment(home);
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    return runProcess(std::move(argv), std::move(env), stdinFile);
}

Result<GitScratch> GitScratch::create(const std::string& git) {
    std::string pattern = (fs::temp_directory_path() / "warren-git-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
        return makeError(ErrorCode::System,
                         std::string("cannot create a scratch directory for git: ") + std::strerror(errno));
    GitScratch scratch(git, pattern);
    auto init = runProcess({git, "init", "--bare", "--quiet", "--template=", scratch.repository().string()},
                           gitEnvironment(scratch.path()), {});
    if (!init)
        return init.error();
    if (init->status != 0)
        return makeError(ErrorCode::System,
                         "git init failed (exit " + std::to_string(init->status) + "): " + init->err);
    return scratch;
}

GitScratch::GitScratch(GitScratch&& other) noexcept
    : m_git(std::move(other.m_git)), m_path(std::exchange(other.m_path, {})) {}

GitScratch::~GitScratch() {
    std::error_code ignored;
    if (!m_path.empty())
        fs::remove_all(m_path, ignored);
}

Result<GitOutput> GitScratch::run(const fs::path& cwd, const std::vector<std::string>& args,
                                  const fs::path& stdinFile) const {
    std::vector<std::string> argv = {m_git,
                                     "-c",
                                     "core.fsmonitor=false",
                                     "-c",
                                     "core.hooksPath=" + (m_path / "no-hooks").string(),
                                     "-C",
                                     cwd.string(),
                                     "--git-dir=" + repository().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return runGit(std::move(argv), m_path, {}, stdinFile);
}

} // namespace warren::git
