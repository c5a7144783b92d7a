#pragma once
// A request's bytes as a client writes them: the request line, Host, the caller's headers, a Content-Length
// for a body (and for any POST or PUT), the blank line, the body. Pure. The cluster client and the agent's
// HTTP requests write theirs with it; the caller's headers are its own (no line breaks in them).

#include <string>
#include <utility>
#include <vector>

namespace warren {

// target: an origin-form path ("/api/v1/pods?x=1"), or an absolute URL for a proxy.
std::string formatRequest(const std::string& method, const std::string& host, const std::string& target,
                          const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body);

} // namespace warren
