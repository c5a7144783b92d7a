#pragma once
// `warren` with no command: the desktop window over a control plane, one window per user and data
// directory (a second `warren` brings the first to the front and exits). The window knows only the
// ControlPlane interface: which one it drives (this machine's, or a warrend's) is the opener's business,
// and Settings change it through the PlaneChooser interface.

#include "app/control/ControlPlane.h"
#include "app/control/PlaneChooser.h"
#include "common/Result.h"

#include <functional>
#include <memory>
#include <string>

namespace warren::ui {

// The plane, which one it is, and a notice for the status bar when the window opens (tasks recovered, or
// why the chosen server was not used); the notice may be empty.
using OpenedControlPlane = control::OpenedPlane;
// Called once this process holds the window of its data directory, so a second `warren` opens nothing, and
// again each time Settings save another choice of control plane.
// It answers through done, later: the window shows once the plane is open.
using ControlPlaneOpener = std::function<void(control::Done<OpenedControlPlane> done)>;

// Creates the QApplication; returns the process's exit status. instanceKey names the one window (the data
// directory). chooser (may be null: no choice offered) outlives the call.
int runDesktop(int& argc, char** argv, const std::string& instanceKey, const ControlPlaneOpener& open,
               control::PlaneChooser* chooser = nullptr);

// Whether a window can be shown here (an X11 or Wayland display, or a Qt platform chosen explicitly).
bool displayAvailable();

} // namespace warren::ui
