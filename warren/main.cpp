// warren: the control plane's command line (DESIGN §4) and, alone with a display, the desktop window.
// `warren run` is the live view of one task in the terminal; the other commands read and steer the tasks
// stored in the data directory. This file is the only one that knows both faces and which control plane
// they drive.

#include "app/cli/CliArguments.h"
#include "app/cli/Commands.h"
#include "app/secrets/ProcessHardening.h"

#include <QCoreApplication>
#include <iostream>
#include <variant>

#ifdef WARREN_WITH_GUI
#include "app/control/LocalControlPlane.h"
#include "app/tasks/DataDir.h"
#include "ui/desktop/Desktop.h"
#endif

using namespace warren::control;

namespace {

#ifdef WARREN_WITH_GUI
// The window over the control plane in this process, on the data directory given or the default.
int runWindow(int& argc, char** argv, const std::optional<std::string>& dataDir) {
    const std::string root = dataDir.value_or(DataDir::defaultRoot());
    return warren::ui::runDesktop(argc, argv, root, [root]() -> warren::Result<warren::ui::OpenedControlPlane> {
        LocalOptions options;
        options.dataDir = root;
        auto plane = LocalControlPlane::open(std::move(options));
        if (!plane)
            return plane.error();
        std::string notice;
        if (const std::size_t recovered = (*plane)->recovered().size(); recovered > 0)
            notice = std::to_string(recovered) + (recovered == 1 ? " task was" : " tasks were") +
                     " running when Warren last stopped; marked interrupted, they can be resumed.";
        return warren::ui::OpenedControlPlane{std::move(*plane), notice};
    });
}
#endif

} // namespace

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
        return runWindow(argc, argv, parsed->dataDir);
#endif
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("warren");
    QCoreApplication::setApplicationVersion(WARREN_VERSION);
    return runCommand(*parsed);
}
