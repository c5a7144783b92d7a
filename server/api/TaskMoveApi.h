#pragma once
// POST /v1/tasks/{id}/move (app/wire/TaskMoveOut.h): the caller's task, paused, interrupted, waiting or
// asleep, goes home to their machine. The server marks it moved (status moved, moved_to "local"), keeps what
// it was beside it, adds a line to its events, ends its streams, and answers with its agent's checkpoint;
// nothing continues it here from then on (TaskMove.h's refusals). Asked again, the same answer. The
// checkpoint is read on a DiskWork worker.

#include "server/http/Router.h"

namespace warren::server {

struct ServerParts;

void addTaskMoveRoutes(http::Router& router, ServerParts& parts);

} // namespace warren::server
