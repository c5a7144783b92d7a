#pragma once
// What the egress proxy does to a request bound for a host a task's secret is bound to: the task's
// placeholder for the secret, wherever it stands in a header (and in the body, for a binding --in-body),
// becomes the value, and a binding's header template is set. Placeholders of secrets bound elsewhere go out as
// they are: the real value never leaves for a host it is not bound to. Pure.

#include "app/modelproxy/ModelRequestHead.h"
#include "app/secretproxy/HostSecret.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

// One secret as a task holds it: the binding with its value (in the control plane only), and the placeholder
// the sandbox sees in its place, unique to the task's launch.
struct TaskSecret {
    HostSecret secret;
    std::string placeholder;
};

inline constexpr std::string_view kPlaceholderPrefix = "warren-secret-";
inline constexpr std::size_t kPlaceholderLength = kPlaceholderPrefix.size() + 32;
// "warren-secret-" and the 16 random bytes in hex.
std::string makePlaceholder(const std::array<std::uint8_t, 16>& random);

// Of the task's secrets, those bound to host:port (as a client wrote the host), in the task's order.
std::vector<const TaskSecret*> secretsBoundTo(const std::vector<TaskSecret>& secrets, std::string_view host,
                                              std::uint16_t port);

struct InjectedHeaders {
    std::vector<ModelRequestHeader> headers;
    std::vector<std::string> used; // the names of the secrets put in, in the task's order
};
InjectedHeaders injectSecrets(std::vector<ModelRequestHeader> headers, const std::vector<const TaskSecret*>& bound);

// The body of such a request, for the bound secrets with inBody: each placeholder becomes the value as the
// body's type writes it: escaped for a JSON string in a JSON body (application/json, */*+json), percent-encoded
// in a form (application/x-www-form-urlencoded), as it is in any other. A body with a Content-Encoding
// (compressed) is left as it is. The names of the secrets put in, in the task's order.
std::vector<std::string> injectIntoBody(std::string& body, std::string_view contentType,
                                        std::string_view contentEncoding, const std::vector<const TaskSecret*>& bound);

} // namespace warren::control
