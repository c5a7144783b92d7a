#pragma once
// The task endpoints (docs/SERVER.md): create one from an upload, list and show the caller's, cancel,
// resume, reply to one whose run ended, answer an approval, and fetch what it changed (the patch) and what
// it left (artifacts). Every id is looked up as the caller's: another user's task answers 404, exactly as
// one that does not exist.

#include "server/http/Router.h"

namespace warren::server {

struct ServerParts;

void addTaskRoutes(http::Router& router, ServerParts& parts);

} // namespace warren::server
