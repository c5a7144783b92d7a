#pragma once
// `warren` with no command: the desktop window over a LocalControlPlane in this process, one per user
// and data directory (a second `warren` brings the first to the front and exits).

#include <optional>
#include <string>

namespace warren::ui {

// Creates the QApplication; returns the process's exit status.
int runDesktop(int& argc, char** argv, const std::optional<std::string>& dataDir);

// Whether a window can be shown here (an X11 or Wayland display, or a Qt platform chosen explicitly).
bool displayAvailable();

} // namespace warren::ui
