#pragma once
// `warren` with no command: the desktop window over a control plane, one window per user and data
// directory (a second `warren` brings the first to the front and exits). The window knows only the
// ControlPlane interface: which one it drives (local, or later a server) is the caller's choice.

#include "app/control/ControlPlane.h"
#include "common/Result.h"

#include <functional>
#include <memory>
#include <string>

namespace warren::ui {

struct OpenedControlPlane {
    std::unique_ptr<control::ControlPlane> plane;
    std::string notice; // for the status bar when the window opens (e.g. tasks recovered); may be empty
};
// Called once this process holds the window of its data directory, so a second `warren` opens nothing.
using ControlPlaneOpener = std::function<Result<OpenedControlPlane>()>;

// Creates the QApplication; returns the process's exit status. instanceKey names the one window (the data
// directory).
int runDesktop(int& argc, char** argv, const std::string& instanceKey, const ControlPlaneOpener& open);

// Whether a window can be shown here (an X11 or Wayland display, or a Qt platform chosen explicitly).
bool displayAvailable();

} // namespace warren::ui
