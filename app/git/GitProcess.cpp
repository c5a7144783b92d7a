#include "app/git/GitProcess.h"

#include "common/UniqueFd.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace warren::git {

namespace {

namespace fs = std::filesystem;

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

int waitFor(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Both pipes drained as git writes them: a large listing on stdout must not wait for stderr, nor the other
// way round.
Status drain(int outFd, int errFd, GitOutput& output) {
    pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
    std::string* sinks[2] = {&output.out, &output.err};
    char buffer[64 * 1024];
    int open = 2;
    while (open > 0) {
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return makeError(ErrorCode::System, std::string("cannot wait for git: ") + std::strerror(errno));
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return makeError(ErrorCode::System,
                                 std::string("cannot read git's output: ") + std::strerror(errno));
            if (n == 0) {
                fds[i].fd = -1;
                --open;
            } else {
                sinks[i]->append(buffer, static_cast<std::size_t>(n));
            }
        }
    }
    return Ok{};
}

Result<GitOutput> runProcess(std::vector<std::string> args, std::vector<std::string> env,
                             const fs::path& stdinFile) {
    int outPipe[2], errPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System,
                         std::string("cannot create a pipe for git: ") + std::strerror(errno));
    UniqueFd outRead(outPipe[0]), outWrite(outPipe[1]);
    if (::pipe2(errPipe, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System,
                         std::string("cannot create a pipe for git: ") + std::strerror(errno));
    UniqueFd errRead(errPipe[0]), errWrite(errPipe[1]);

    const std::string input = stdinFile.empty() ? std::string("/dev/null") : stdinFile.string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, outWrite.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, errWrite.get(), STDERR_FILENO);
    pid_t pid = -1;
    auto argv = pointers(args), envp = pointers(env);
    const int spawned = ::posix_spawnp(&pid, args[0].c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    outWrite.reset();
    errWrite.reset();
    if (spawned != 0)
        return makeError(ErrorCode::NotFound, "cannot run \"" + args[0] + "\": " + std::strerror(spawned) +
                                                  " (is git installed?)");
    GitOutput output;
    const Status drained = drain(outRead.get(), errRead.get(), output);
    outRead.reset(); // git, if it still writes, gets EPIPE and ends
    errRead.reset();
    output.status = waitFor(pid);
    if (!drained)
        return drained.error();
    while (!output.err.empty() && (output.err.back() == '\n' || output.err.back() == ' '))
        output.err.pop_back();
    return output;
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
