#pragma once
// `warrend serve ...`: opens the server and runs until SIGTERM or SIGINT (then stops its agents, which
// resume when it starts again). Prints "listening on HOST:PORT" once it accepts connections.

#include <string>
#include <vector>

namespace warren::server {

int runServe(const std::vector<std::string>& args);

} // namespace warren::server
