#pragma once
// Who a warrend says it is and who the key makes us: GET /v1/server and GET /v1/me. Settings' "Test
// connection" shows it, and RemoteControlPlane::open asks it before anything else, so a wrong URL, a
// server that does not answer, something that is not a warrend, and a refused key are each told apart.

#include "app/control/Done.h"
#include "app/control/PlaneChooser.h"
#include "app/remote/RemoteClient.h"

namespace warren::remote {

// The URL asked is the account's server; done runs in context's thread, unless context is gone.
void probeServer(RemoteClient& client, QObject* context, control::Done<control::ServerAccount> done);

} // namespace warren::remote
