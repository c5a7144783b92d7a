#include "server/api/ServeCommand.h"

#include "server/api/ServeOptions.h"
#include "server/api/Warrend.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <csignal>
#include <iostream>
#include <sys/signalfd.h>
#include <unistd.h>

namespace warren::server {

int runServe(const std::vector<std::string>& args) {
    auto options = parseServeOptions(args);
    if (!options) {
        std::cerr << "warrend serve: " << options.error().message << "\n";
        return 2;
    }
    // SIGTERM and SIGINT arrive through a descriptor the event loop watches: a clean stop.
    sigset_t stopping;
    sigemptyset(&stopping);
    sigaddset(&stopping, SIGTERM);
    sigaddset(&stopping, SIGINT);
    sigprocmask(SIG_BLOCK, &stopping, nullptr);
    const int stopSignals = signalfd(-1, &stopping, SFD_CLOEXEC | SFD_NONBLOCK);
    QSocketNotifier notifier(stopSignals, QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, qApp, [] { QCoreApplication::quit(); });

    auto server = Warrend::open(*options);
    if (!server) {
        std::cerr << "warrend serve: " << server.error().message << "\n";
        return 1;
    }
    QObject::connect(server->get(), &Warrend::storeProblem, [](const QString& message) {
        std::cerr << "warrend: " << message.toStdString() << "\n";
    });
    std::cout << "listening on " << options->host << ":" << (*server)->port() << std::endl;
    if (!(*server)->agentAddress().empty())
        std::cout << "cluster agents connect to " << (*server)->agentAddress() << std::endl;
    const int code = QCoreApplication::exec();
    server->reset();
    ::close(stopSignals);
    return code;
}

} // namespace warren::server
