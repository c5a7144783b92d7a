#pragma once
// What the desktop opens when it starts and when Settings switch: the control plane the saved choice names
// (PlaneChoice). A warrend that cannot be reached, or that refuses the key, does not keep the window shut:
// this machine's plane opens instead and the notice says why and that Settings switch back. The choice
// stays Remote, so the next start asks the server again.

#include "app/control/LocalControlPlane.h"
#include "app/control/PlaneChooser.h"
#include "common/Result.h"

namespace warren::remote {

// local: the local plane's options; its dataDir and useKeychain serve the remote plane too. done runs later,
// on this thread, once the server answered (or did not).
void openChosenPlane(const control::LocalOptions& local, control::Done<control::OpenedPlane> done);

// This machine's plane, with the notice of tasks recovered from a crash.
Result<control::OpenedPlane> openLocalPlane(const control::LocalOptions& local);

} // namespace warren::remote
