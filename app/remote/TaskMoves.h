#pragma once
// `warren move` both ways (app/tasks/TaskMove.h), as the CLI and the window run it: the steps over this
// machine's plane and a warrend's, one after the other, each answered on the caller's thread. The local
// steps (taking the task, recording it moved or arrived) are the plane's own, in the call.

#include "app/control/Done.h"
#include "app/store/StoreTypes.h"

#include <string>

namespace warren::control {
class LocalControlPlane;
}

namespace warren::remote {

class RemoteControlPlane;

// A paused, interrupted, waiting or sleeping task of this machine goes on at server: its workspace and
// history go up, the server makes it its own, and the record here says where it went. done: the task there.
// Refused or failed, the task stays here (a move without an answer stays under way: run it again).
void moveToServer(control::LocalControlPlane& local, RemoteControlPlane& server, const std::string& taskId,
                  control::Done<control::TaskRecord> done);

// One of server's comes home: its change applied to workspace (empty: the one it was uploaded from, its home
// here), refused first while a file it touched changed there since its upload; then marked moved there, its
// events fetched, its change applied, and recorded here under its id, paused or waiting. Run again after a
// kill, the server answers the same. done: the task here.
void moveHome(control::LocalControlPlane& local, RemoteControlPlane& server, const std::string& taskId,
              const std::string& workspace, control::Done<control::TaskRecord> done);

} // namespace warren::remote
