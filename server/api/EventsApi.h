#pragma once
// A task's events: GET /v1/tasks/{id}/events?after_seq=N[&limit=M] as one JSON page, and
// GET /v1/tasks/{id}/events/stream?after_seq=N as Server-Sent Events whose id: is the seq, so a client
// resumes with Last-Event-ID (which wins over after_seq) and gets every later event exactly once.

#include "server/http/Router.h"

namespace warren::server {

struct ServerParts;

void addEventRoutes(http::Router& router, ServerParts& parts);

} // namespace warren::server
