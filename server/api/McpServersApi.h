#pragma once
// The MCP servers a user's tasks are given besides their own (DESIGN §13, docs/SERVER.md): GET
// /v1/me/mcp-servers lists the caller's tenant's (`warrend admin set-mcp-servers`) by name and transport,
// never a command line, url, environment or header of theirs (wire::McpServerList).

#include "server/http/Router.h"

namespace warren::server {

struct ServerParts;

void addMcpServerRoutes(http::Router& router, ServerParts& parts);

} // namespace warren::server
