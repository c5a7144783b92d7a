// warren: the control plane's command line (DESIGN §4). `warren run` is the live view of one task in the
// terminal; the other commands read and steer the tasks stored in the data directory.

#include "CliArguments.h"
#include "Commands.h"
#include "ProcessHardening.h"

#include <QCoreApplication>
#include <iostream>
#include <variant>

#ifdef WARREN_WITH_GUI
#include "Desktop.h"
#endif

using namespace warren::control;

int main(int argc, char** argv) {
    // This process holds API keys: no core dumps, no ptrace by other processes of the user.
    if (auto hardened = hardenProcess(); !hardened)
        std::cerr << "warren: warning: " << hardened.error().message << "\n";
    std::vector<std::string> args(argv + 1, argv + argc);
    auto parsed = parseCliArguments(args);
    if (!parsed) {
        std::cerr << "warren: " << parsed.error().message << "\nTry 'warren help'.\n";
        return kExitUsage;
    }
#ifdef WARREN_WITH_GUI
    // `warren` alone opens the window; without a display it runs the demo headless (runCommand).
    if (std::holds_alternative<WindowCommand>(parsed->command) && warren::ui::displayAvailable())
        return warren::ui::runDesktop(argc, argv, parsed->dataDir);
#endif
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("warren");
    QCoreApplication::setApplicationVersion(WARREN_VERSION);
    return runCommand(*parsed);
}
