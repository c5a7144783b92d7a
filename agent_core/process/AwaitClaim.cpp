#include "agent_core/process/AwaitClaim.h"

#include "common/UniqueFd.h"
#include "common/WarmClaim.h"
#include "common/WriteAll.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace warren::agent {
namespace {

void endNow(int) {
    ::_exit(0);
}

void say(int connection, const std::string& why) {
    writeAll(connection, "error: " + why + "\n");
}

} // namespace

int awaitClaim(const std::string& socketPath) {
    for (int signal : {SIGTERM, SIGHUP, SIGINT})
        std::signal(signal, endNow);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socketPath.size() >= sizeof(address.sun_path)) {
        std::cerr << "warren-agent await-claim: the socket path is too long\n";
        return 2;
    }
    std::memcpy(address.sun_path, socketPath.c_str(), socketPath.size() + 1);
    UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    ::unlink(socketPath.c_str());
    if (!listener.valid() ||
        ::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        ::listen(listener.get(), 4) != 0) {
        std::cerr << "warren-agent await-claim: cannot listen on " << socketPath << ": "
                  << std::strerror(errno) << "\n";
        return 1;
    }
    while (true) {
        UniqueFd connection(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!connection.valid()) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            std::cerr << "warren-agent await-claim: " << std::strerror(errno) << "\n";
            return 1;
        }
        auto received = receiveWarmClaim(connection.get());
        if (!received) { // the host is the only one who connects; a bad claim ends the container
            say(connection.get(), received.error().message);
            return 1;
        }
        ::unlink(socketPath.c_str());
        listener.reset();
        for (int i = 0; i < 3; ++i)
            if (::dup2(received->stdio[static_cast<std::size_t>(i)].get(), i) < 0) {
                say(connection.get(), std::string("cannot take its stdio: ") + std::strerror(errno));
                return 1;
            }
        for (const auto& [name, value] : received->claim.env)
            ::setenv(name.c_str(), value.c_str(), 1);
        if (::chdir(received->claim.cwd.c_str()) != 0) {
            say(connection.get(), "cannot enter " + received->claim.cwd + ": " + std::strerror(errno));
            return 1;
        }
        for (int signal : {SIGTERM, SIGHUP, SIGINT})
            std::signal(signal, SIG_DFL);
        std::vector<char*> argv;
        for (auto& word : received->claim.argv)
            argv.push_back(word.data());
        argv.push_back(nullptr);
        ::execv(argv[0], argv.data()); // closes the connection (close-on-exec): the host's sign it ran
        say(connection.get(), "cannot run " + received->claim.argv.front() + ": " + std::strerror(errno));
        return 127;
    }
}

} // namespace warren::agent
