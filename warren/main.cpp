// warren: the control plane's command line (DESIGN §4) and, alone with a display, the desktop window.
// `warren run` is the live view of one task in the terminal; the other commands read and steer the tasks
// stored in the data directory. This file is the only one that knows both faces and which control plane
// they drive: the window gets the plane its saved choice names (PlaneOpener) and the chooser Settings
// change it with.

#include "app/cli/CliArguments.h"
#include "app/cli/Commands.h"
#include "app/secrets/ProcessHardening.h"

#include <QCoreApplication>
#include <iostream>
#include <variant>

#ifdef WARREN_WITH_GUI
#include "app/remote/PlaneOpener.h"
#include "app/remote/RemotePlaneChooser.h"
#include "app/tasks/DataDir.h"
#include "ui/desktop/Desktop.h"
#endif

using namespace warren::control;

namespace {

#ifdef WARREN_WITH_GUI
// The window over the control plane the saved choice names (this machine's, or a warrend's), on the data
// directory given or the default.
int runWindow(int& argc, char** argv, const std::optional<std::string>& dataDir) {
    const std::string root = dataDir.value_or(DataDir::defaultRoot());
    warren::remote::RemotePlaneChooser chooser(root);
    return warren::ui::runDesktop(
        argc, argv, root,
        [root](Done<warren::ui::OpenedControlPlane> done) {
            LocalOptions options;
            options.dataDir = root;
            options.takeUpQueued = true;
            warren::remote::openChosenPlane(options, std::move(done));
        },
        &chooser);
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
