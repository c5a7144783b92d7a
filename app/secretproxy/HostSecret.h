#pragma once
// A secret bound to hosts (DESIGN §12): `warren secrets set NAME --host HOST[,HOST...] [--header TEMPLATE]`.
// Its value goes only to those hosts, put into requests by the egress proxy (SecretProxy); in the sandbox
// the secret is a placeholder unique to the task; with --in-body its placeholder is replaced in request bodies
// to those hosts too (SecretInjection). The binding is kept with the value, in one entry of the
// SecretStore, so whoever could change where a secret may go had to hold the secret already. Pure:
// validation and the stored form.

#include "app/egress/EgressPolicy.h"
#include "common/Result.h"

#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

struct HostSecret {
    std::string name;            // the sandbox's environment variable that holds the placeholder
    std::string hostsText;       // "api.github.com,*.example.com", as written
    std::vector<HostRule> hosts; // parsed: where the value may go, matched as an allow-list's hosts are
    std::string header;          // "Authorization: Bearer {}": set on every request to those hosts; "": none
    std::string value;           // never in a sandbox, an event, a log or an error message
    bool inBody = false;         // --in-body: the placeholder is replaced in request bodies as well
};

// NAME: letters, digits and '_', not starting with a digit, at most 64; never one the sandbox or its tools
// read for themselves (PATH, HOME, LD_*, the proxy and certificate variables, WARREN_*).
Status validateSecretName(std::string_view name);
// "Name: text with {} where the value goes": a header name that is a token and not one the proxy owns
// (Host, Content-Length, Transfer-Encoding, Connection, ...), exactly one "{}", printable ASCII.
Status validateHeaderTemplate(std::string_view text);
// The value: 1..8192 bytes, no control character (it goes into a header line).
Status validateSecretValue(std::string_view value);

// The binding's hosts, once name, hosts and header (maybe empty) are checked; the error names the part that
// is wrong and how to write it.
Result<std::vector<HostRule>> parseSecretBinding(std::string_view name, std::string_view hosts, std::string_view header);
// A binding from what the user wrote, with its value (inBody is the caller's to set).
Result<HostSecret> makeHostSecret(std::string name, std::string_view hosts, std::string header, std::string value);

// The SecretStore entry a host secret is kept in ("host-secret/NAME"), and its text there.
std::string hostSecretEntry(std::string_view name);
std::string storedHostSecret(const HostSecret& secret);
Result<HostSecret> readHostSecret(std::string name, std::string_view stored);

} // namespace warren::control
