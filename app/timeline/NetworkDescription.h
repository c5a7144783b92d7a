#pragma once
// A network_request event as the window's card and the terminal both show it. A connection through the
// egress proxy: "network: CONNECT pypi.org:443" (the address as detail), refused with its reason. A request
// the proxy made with a task's secrets (DESIGN §12): "GET api.github.com:443/user → 200, with GH_TOKEN",
// failed with why. Pure.

#include "agent_core/protocol/EventPayloads.h"

#include <string>

namespace warren::timeline {

struct NetworkDescription {
    std::string title;
    std::string detail;
    bool warning = false; // refused, or failed
};

NetworkDescription describeNetworkRequest(const protocol::NetworkRequestData& data);

} // namespace warren::timeline
