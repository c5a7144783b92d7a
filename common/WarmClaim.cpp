#include "common/WarmClaim.h"

#include "common/JsonFields.h"
#include "common/WriteAll.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

namespace warren {
namespace {

using nlohmann::json;

Error refused(const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, "a bad warm claim: " + why);
}

bool hasNul(const std::string& text) {
    return text.find('\0') != std::string::npos;
}

// The milliseconds left until deadline, for poll (0 once it passed).
int msLeft(std::chrono::steady_clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<std::chrono::milliseconds::rep>(0, left.count()));
}

} // namespace

std::string encodeWarmClaim(const WarmClaim& claim) {
    return json{{"argv", claim.argv}, {"env", claim.env}, {"cwd", claim.cwd}}.dump() + "\n";
}

Result<WarmClaim> decodeWarmClaim(std::string_view line) {
    if (line.size() > kMaxWarmClaimBytes)
        return refused("over " + std::to_string(kMaxWarmClaimBytes) + " bytes");
    auto parsed = json_fields::parseJson(line);
    if (!parsed)
        return refused(parsed.error().message);
    const json& body = *parsed;
    if (!body.is_object())
        return refused("not an object");
    if (auto unknown = json_fields::findUnknownKey(body, {"argv", "env", "cwd"}))
        return refused("unknown field \"" + *unknown + "\"");
    WarmClaim claim;
    const auto argv = body.find("argv");
    if (argv == body.end() || !argv->is_array() || argv->empty())
        return refused("argv must be a list of at least one string");
    for (const auto& word : *argv) {
        if (!word.is_string() || hasNul(word.get<std::string>()))
            return refused("argv holds something other than a string without NUL");
        claim.argv.push_back(word.get<std::string>());
    }
    if (claim.argv.front().empty() || claim.argv.front().front() != '/')
        return refused("argv[0] must be an absolute path");
    const auto env = body.find("env");
    if (env == body.end() || !env->is_object())
        return refused("env must be an object of strings");
    for (const auto& [name, value] : env->items()) {
        if (name.empty() || name.find_first_of(std::string("=\0", 2)) != std::string::npos ||
            !value.is_string() || hasNul(value.get<std::string>()))
            return refused("env holds a bad name or a value other than a string without NUL");
        claim.env.emplace(name, value.get<std::string>());
    }
    const auto cwd = body.find("cwd");
    if (cwd == body.end() || !cwd->is_string() || cwd->get<std::string>().empty() ||
        cwd->get<std::string>().front() != '/' || hasNul(cwd->get<std::string>()))
        return refused("cwd must be an absolute path");
    claim.cwd = cwd->get<std::string>();
    return claim;
}

Status sendWarmClaim(int socket, const WarmClaim& claim, const std::array<int, 3>& stdio,
                     std::chrono::milliseconds timeout) {
    UniqueFd devnull(::open("/dev/null", O_RDWR | O_CLOEXEC));
    if (!devnull.valid())
        return makeError(ErrorCode::System, std::string("cannot open /dev/null: ") + std::strerror(errno));
    int fds[3];
    for (int i = 0; i < 3; ++i)
        fds[i] = stdio[static_cast<std::size_t>(i)] >= 0 ? stdio[static_cast<std::size_t>(i)] : devnull.get();
    const std::string bytes = encodeWarmClaim(claim);
    // The descriptors ride on the first byte; the rest follows as a stream.
    char control[CMSG_SPACE(sizeof(fds))] = {};
    iovec first{const_cast<char*>(bytes.data()), 1};
    msghdr message{};
    message.msg_iov = &first;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(fds));
    std::memcpy(CMSG_DATA(header), fds, sizeof(fds));
    ssize_t sent;
    while ((sent = ::sendmsg(socket, &message, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    if (sent != 1 || !writeAll(socket, std::string_view(bytes).substr(1)))
        return makeError(ErrorCode::System,
                         std::string("cannot send the claim to the warm container: ") + std::strerror(errno));
    ::shutdown(socket, SHUT_WR);
    // Its exec closes the connection; anything it says first is why it could not.
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string said;
    char buffer[1024];
    while (true) {
        pollfd ready{socket, POLLIN, 0};
        const int polled = ::poll(&ready, 1, msLeft(deadline));
        if (polled < 0 && errno == EINTR)
            continue;
        if (polled == 0)
            return makeError(ErrorCode::Unavailable, "the warm container did not take its claim within " +
                                                         std::to_string(timeout.count()) + " ms");
        const ssize_t n = ::read(socket, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (said.size() < 4096)
            said.append(buffer, static_cast<std::size_t>(n));
    }
    if (!said.empty()) {
        while (!said.empty() && (said.back() == '\n' || said.back() == '\r'))
            said.pop_back();
        return makeError(ErrorCode::System, "the warm container could not take its claim: " + said);
    }
    return Ok{};
}

Result<ReceivedClaim> receiveWarmClaim(int socket) {
    ReceivedClaim received;
    char first = 0;
    char control[CMSG_SPACE(3 * sizeof(int))] = {};
    iovec vector{&first, 1};
    msghdr message{};
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    ssize_t n;
    while ((n = ::recvmsg(socket, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    for (cmsghdr* header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header))
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
            const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (std::size_t i = 0; i < count; ++i) {
                int fd;
                std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
                if (i < 3)
                    received.stdio[i].reset(fd);
                else
                    ::close(fd);
            }
        }
    if (n != 1)
        return refused("the connection closed before a claim");
    if ((message.msg_flags & MSG_CTRUNC) || !received.stdio[0].valid() || !received.stdio[1].valid() ||
        !received.stdio[2].valid())
        return refused("it did not carry stdin, stdout and stderr");
    std::string line(1, first);
    char buffer[4096];
    while (line.back() != '\n') {
        if (line.size() > kMaxWarmClaimBytes)
            return refused("over " + std::to_string(kMaxWarmClaimBytes) + " bytes");
        const ssize_t read = ::read(socket, buffer, sizeof(buffer));
        if (read < 0 && errno == EINTR)
            continue;
        if (read <= 0)
            return refused("it ended before its newline");
        line.append(buffer, static_cast<std::size_t>(read));
    }
    auto claim = decodeWarmClaim(std::string_view(line).substr(0, line.size() - 1));
    if (!claim)
        return claim.error();
    received.claim = std::move(*claim);
    return received;
}

} // namespace warren
