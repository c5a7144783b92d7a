#include "common/ChildProcess.h"

#include "common/UniqueFd.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

namespace warren {

namespace {

constexpr std::size_t kMaxStderr = 64 * 1024; // enough for any complaint; the rest is drained unread

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

Error readError(const std::string& program) {
    return makeError(ErrorCode::System, "cannot read the output of \"" + program + "\": " + std::strerror(errno));
}

// Both pipes drained as the child writes them, until both close, the deadline passes or stdout outgrows
// its cap.
Result<ChildOutput::End> drain(int outFd, int errFd, const ChildRequest& request, ChildOutput& output) {
    pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
    const auto deadline = std::chrono::steady_clock::now() + request.timeout;
    char buffer[64 * 1024];
    int open = 2;
    while (open > 0) {
        int wait = -1;
        if (request.timeout.count() > 0) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0)
                return ChildOutput::End::TimedOut;
            wait = static_cast<int>(left.count());
        }
        const int ready = ::poll(fds, 2, wait);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            return readError(request.argv[0]);
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return readError(request.argv[0]);
            if (n == 0) {
                fds[i].fd = -1;
                --open;
                continue;
            }
            const auto size = static_cast<std::size_t>(n);
            if (i == 0) {
                if (output.out.size() + size > request.maxStdout)
                    return ChildOutput::End::StdoutTooLarge;
                output.out.append(buffer, size);
            } else if (output.err.size() < kMaxStderr) {
                output.err.append(buffer, std::min(size, kMaxStderr - output.err.size()));
            }
        }
    }
    return ChildOutput::End::Exited;
}

} // namespace

Result<ChildOutput> runChild(const ChildRequest& request) {
    if (request.argv.empty())
        return makeError(ErrorCode::InvalidArgument, "no program to run");
    const std::string& program = request.argv[0];
    int outPipe[2], errPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System, "cannot create a pipe for \"" + program + "\": " + std::strerror(errno));
    UniqueFd outRead(outPipe[0]), outWrite(outPipe[1]);
    if (::pipe2(errPipe, O_CLOEXEC) != 0)
        return makeError(ErrorCode::System, "cannot create a pipe for \"" + program + "\": " + std::strerror(errno));
    UniqueFd errRead(errPipe[0]), errWrite(errPipe[1]);

    const std::string input = request.stdinFile.empty() ? std::string("/dev/null") : request.stdinFile.string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, outWrite.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, errWrite.get(), STDERR_FILENO);
    std::vector<std::string> args = request.argv, env = request.env;
    auto argv = pointers(args), envp = pointers(env);
    pid_t pid = -1;
    const int spawned = ::posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    outWrite.reset();
    errWrite.reset();
    if (spawned != 0)
        return makeError(ErrorCode::NotFound, "cannot run \"" + program + "\": " + std::strerror(spawned));

    ChildOutput output;
    const auto end = drain(outRead.get(), errRead.get(), request, output);
    if (!end || *end != ChildOutput::End::Exited)
        ::kill(pid, SIGKILL);
    outRead.reset(); // a child that still writes gets EPIPE and ends
    errRead.reset();
    const int status = waitFor(pid);
    if (!end)
        return end.error();
    output.end = *end;
    output.status = *end == ChildOutput::End::Exited ? status : 0;
    while (!output.err.empty() && (output.err.back() == '\n' || output.err.back() == ' '))
        output.err.pop_back();
    return output;
}

} // namespace warren
