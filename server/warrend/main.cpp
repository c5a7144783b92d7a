// warrend: the control plane as a server for many users (DESIGN.md §8). The first argument names the
// subcommand; each lives in its part of server/ and is tested there without a process.

#include "app/secrets/ProcessHardening.h"
#include "server/accounts/AdminCommand.h"
#include "server/api/ServeCommand.h"

#include <QCoreApplication>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kUsage =
    "usage: warrend serve --listen HOST:PORT --database URL --data-dir DIR [--tls-cert FILE --tls-key FILE]\n"
    "       warrend admin --database URL COMMAND ...   (warrend admin --help)\n"
    "docs/SERVER.md has the options and the API.\n";

} // namespace

int main(int argc, char** argv) {
    // This process holds the operator's and the users' keys (and unseals them): no core dumps, no ptrace or
    // /proc/PID/mem by other processes of its user. Both subcommands: admin reads keys on stdin.
    if (auto hardened = warren::control::hardenProcess(); !hardened)
        std::cerr << "warrend: warning: " << hardened.error().message << "\n";
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    if (args.empty()) {
        std::cerr << "warrend: a subcommand is missing\n" << kUsage;
        return 2;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args.front() == "admin")
        return warren::accounts::runAdmin(rest, std::cin, std::cout, std::cerr);
    if (args.front() == "serve") {
        QCoreApplication application(argc, argv);
        return warren::server::runServe(rest);
    }
    if (args.front() == "--help" || args.front() == "-h") {
        std::cout << kUsage;
        return 0;
    }
    std::cerr << "warrend: unknown subcommand \"" << args.front() << "\"\n" << kUsage;
    return 2;
}
