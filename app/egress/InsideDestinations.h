#pragma once
// Which destinations inside the machine and its networks a connection may reach, and who decides. On the
// desktop the user does (a sandbox's allow-list may name 127.0.0.1:8080, a provider may be a local
// ollama). On warrend the users are strangers and the machine is the operator's: an address inside is
// reached only where the operator's configuration names it (`warrend serve --allow-internal DEST,...`),
// whatever a user writes. One notion for both of warrend's ways out: a sandbox's egress proxy and a
// provider endpoint a user names. Pure: parsing and matching, no sockets.

#include "app/egress/EgressPolicy.h"
#include "common/Result.h"

#include <QHostAddress>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

// One destination the operator allows inside: an address ("10.0.3.7", "::1"), a block ("10.0.0.0/8",
// "fd00::/8") or a host name ("db.internal"), any port or only one.
struct InsideDestination {
    std::optional<QHostAddress> network; // an address or a block: its first address
    int prefixLength = -1;               // with network: 32/128 for one address
    std::string name;                    // without network: a DNS name, lowercase, no trailing dot
    std::optional<std::uint16_t> port;   // none: every port
    friend bool operator==(const InsideDestination&, const InsideDestination&) = default;
};

// "DEST[,DEST...]", each DEST an address (IPv6 in brackets when a port follows), ADDRESS/BITS or a host
// name, optionally followed by ":PORT": "127.0.0.1:11434", "10.0.0.0/8", "[fd00::/8]:5432",
// "models.internal:8000". An error names the entry and shows how to write it.
Result<std::vector<InsideDestination>> parseInsideDestinations(std::string_view text);

// Whether a connection to address:port, for a host the client wrote as host (a name, or the address
// itself), is one of destinations: a name destination matches the name written, an address or block
// destination the address connected to (an IPv4-mapped IPv6 address as the IPv4 address it carries).
bool insideDestinationAllowed(const std::vector<InsideDestination>& destinations, std::string_view host,
                              const QHostAddress& address, std::uint16_t port);

// Who decides which addresses inside may be reached.
struct InsideAccess {
    // false (the desktop): the user's choice stands; an allow-list's address literal reaches that address.
    // true (warrend): only the operator's destinations below are reached inside, whoever names them.
    bool operatorOnly = false;
    std::vector<InsideDestination> allowed;
};

// Whether a connection may go to address:port, reached for host: an address outside the machine and its
// networks always may (isInternalAddress), one inside only when access lets it.
bool insideReachable(const InsideAccess& access, std::string_view host, const QHostAddress& address,
                     std::uint16_t port);

// addressAllowed, as access decides: on the desktop exactly addressAllowed(rule, address); on warrend an
// address inside is reached only when it is one of the operator's destinations, even by a rule that is
// that address as a literal. host is what the client wrote, port where it connects.
bool addressAllowed(const HostRule& rule, std::string_view host, const QHostAddress& address,
                    std::uint16_t port, const InsideAccess& access);

// A name the machine itself answers for, whatever DNS says ("localhost", "x.localhost",
// "localhost.localdomain", "ip6-localhost", "ip6-loopback"), lowercase, maybe with a trailing dot.
bool isLocalHostName(std::string_view name);

// On warrend, the part of a task's allow-list that would reach inside without the operator's word: an
// address literal inside, or a name the machine answers for itself, not in access.allowed (for its port;
// a rule without one stands for 80 and 443). Ok when none; else an error naming the entry and the flag the
// operator would use. Names that DNS resolves inside are refused by the egress proxy when it connects.
Status checkAllowListInside(const TaskNetwork& network, const InsideAccess& access);

} // namespace warren::control
