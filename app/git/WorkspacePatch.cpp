#include "app/git/WorkspacePatch.h"

#include "common/UniqueFd.h"
#include "app/git/GitDiffText.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace warren::git {

namespace {

namespace fs = std::filesystem;

// A scratch directory holding "a" -> pristine and "b" -> workspace: git, run in it on "a/" and "b/" with no
// prefix of its own, writes a/FILE and b/FILE whatever the trees' real paths are. Removed when done (the
// links, not what they name).
class Scratch {
public:
    static Result<Scratch> create() {
        std::string pattern = (fs::temp_directory_path() / "warren-patch-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            return makeError(ErrorCode::System,
                             std::string("cannot create a scratch directory for the patch: ") +
                                 std::strerror(errno));
        return Scratch(pattern);
    }
    Scratch(Scratch&& other) noexcept : m_path(std::exchange(other.m_path, {})) {}
    Scratch(const Scratch&) = delete;
    ~Scratch() {
        std::error_code ignored;
        if (!m_path.empty())
            fs::remove_all(m_path, ignored);
    }
    const fs::path& path() const { return m_path; }

private:
    explicit Scratch(fs::path path) : m_path(std::move(path)) {}
    fs::path m_path;
};

std::vector<std::string> gitEnvironment(const fs::path& scratch) {
    std::vector<std::string> env = {"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
                                    "HOME=" + scratch.string(),
                                    // no repository around the scratch directory lends its config
                                    "GIT_CEILING_DIRECTORIES=" + scratch.parent_path().string(), "LC_ALL=C"};
    if (const char* path = std::getenv("PATH"))
        env.push_back(std::string("PATH=") + path);
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

std::string readStderr(const fs::path& file) {
    const UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
    std::string text(2048, '\0');
    const ssize_t n = fd.valid() ? ::read(fd.get(), text.data(), text.size()) : 0;
    text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

int waitFor(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// git diff between scratch/a/ and scratch/b/, its stdout on stdoutFd, its stderr in scratch/stderr.
Result<pid_t> spawnGitDiff(const PatchOptions& options, const fs::path& scratch, int stdoutFd) {
    std::vector<std::string> args = {
        options.git,    "-C",          scratch.string(), "diff",          "--no-index",    "--binary",
        "--full-index", "--no-prefix", "--no-renames",   "--no-ext-diff", "--no-textconv", "--no-color",
        "a/",           "b/"};
    std::vector<std::string> env = gitEnvironment(scratch);
    const fs::path stderrFile = scratch / "stderr";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, stdoutFd, STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrFile.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    auto argv = pointers(args), envp = pointers(env);
    const int spawned =
        ::posix_spawnp(&pid, options.git.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return makeError(ErrorCode::NotFound, "cannot run \"" + options.git + "\" to make the patch: " +
                                                  std::strerror(spawned) + " (is git installed?)");
    return pid;
}

} // namespace

Result<std::string> workspacePatch(const fs::path& pristine, const fs::path& workspace,
                                   const PatchOptions& options) {
    std::error_code error;
    for (const auto& tree : {pristine, workspace})
        if (!fs::is_directory(tree, error))
            return makeError(ErrorCode::NotFound, "cannot diff \"" + tree.string() + "\": not a directory");
    auto scratch = Scratch::create();
    if (!scratch)
        return scratch.error();
    fs::create_directory_symlink(fs::absolute(pristine), scratch->path() / "a", error);
    if (!error)
        fs::create_directory_symlink(fs::absolute(workspace), scratch->path() / "b", error);
    if (error)
        return makeError(ErrorCode::System,
                         "cannot prepare the patch's scratch directory: " + error.message());
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System,
                         std::string("cannot create a pipe for git: ") + std::strerror(errno));
    UniqueFd readEnd(pipeFds[0]), writeEnd(pipeFds[1]);
    const auto pid = spawnGitDiff(options, scratch->path(), writeEnd.get());
    writeEnd.reset();
    if (!pid)
        return pid.error();

    std::string patch;
    char buffer[64 * 1024];
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd readable{readEnd.get(), POLLIN, 0};
        if (left.count() <= 0 || ::poll(&readable, 1, static_cast<int>(left.count())) == 0) {
            ::kill(*pid, SIGKILL);
            waitFor(*pid);
            return makeError(ErrorCode::System, "git diff took longer than " +
                                                    std::to_string(options.timeout.count() / 1000) +
                                                    " s; the task's workspace may be too large to diff");
        }
        const ssize_t n = ::read(readEnd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            break;
        if (n < 0 || patch.size() + static_cast<std::size_t>(n) > options.maxBytes) {
            const std::string why = n < 0 ? std::string("cannot read git's output: ") + std::strerror(errno)
                                          : "the task's patch is larger than the " +
                                                std::to_string(options.maxBytes) + " bytes the server allows";
            ::kill(*pid, SIGKILL);
            waitFor(*pid);
            return makeError(n < 0 ? ErrorCode::System : ErrorCode::InvalidArgument, why);
        }
        patch.append(buffer, static_cast<std::size_t>(n));
    }
    // git diff's exit status: 0 the trees are the same, 1 they differ, anything else it failed.
    const int status = waitFor(*pid);
    if (status != 0 && status != 1)
        return makeError(ErrorCode::System, "git diff failed (exit " + std::to_string(status) +
                                                "): " + readStderr(scratch->path() / "stderr"));
    return tidyGitDiff(patch);
}

} // namespace warren::git
