#pragma once
// The network policy of a task, and which hosts and addresses its egress proxy may connect to. `none` and
// `loopback` are the sandbox's own (no route out); `allow:HOST[,HOST...]` is loopback plus the control
// plane's egress proxy, which connects only to the listed hosts; `ask` and `ask:HOST[,HOST...]` are the same
// with the proxy asking the user about any other name (app/egress/NetworkQuestion.h). Pure: parsing and
// matching, no sockets.

#include "common/Result.h"

#include <QHostAddress>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::control {

// One entry of an allow-list, as written: "pypi.org", "*.pythonhosted.org", "example.com:8443",
// "127.0.0.1:8080", "[::1]:8080".
struct HostRule {
    std::string host;            // lowercase, no trailing dot; for a wildcard the suffix ("pythonhosted.org")
    bool wildcard = false;       // "*.suffix": any name that ends in ".suffix", never the suffix itself
    bool literalAddress = false; // an IPv4 or IPv6 address literal (host holds it, IPv6 without brackets)
    std::optional<std::uint16_t> port; // none: 80 and 443
    friend bool operator==(const HostRule&, const HostRule&) = default;
};

struct TaskNetwork {
    enum class Kind { None, Loopback, Allow };
    Kind kind = Kind::None;
    std::vector<HostRule> hosts; // Allow only: at least one, unless ask
    bool ask = false;            // Allow only (`ask`): a name no rule lists is asked about, not refused
    friend bool operator==(const TaskNetwork&, const TaskNetwork&) = default;
};

// "none", "loopback", "allow:HOST[,HOST...]", "ask" or "ask:HOST[,HOST...]". A host is a DNS name (letters, digits, '-', dots; labels
// of 1..63, at most 253 in all), "*." and such a name with at least two labels, or an address literal;
// each may end in ":PORT" (1..65535). Errors say which entry is wrong and how to write it.
Result<TaskNetwork> parseTaskNetwork(std::string_view text);

// One DNS name and its port ("pypi.org:443"), as an answer to a network question keeps it (no wildcard, no
// address, the port written): the rule that lists exactly that, or why the text is not one.
Result<HostRule> parseNamedHostPort(std::string_view text);

// The rule that lets the client reach host:port, as the client wrote the host (any case, maybe a trailing
// dot, maybe an address literal, IPv6 with or without brackets); nullptr when none does. A name never
// matches an address rule nor the other way round; a host that is neither a valid DNS name nor an address
// literal as parseAddressLiteral reads it matches nothing. For a wildcard rule the proxy resolves the
// client's host, not rule.host (which is only the suffix).
const HostRule* matchHost(const std::vector<HostRule>& rules, std::string_view host, std::uint16_t port);

// An address literal in the one spelling the proxy accepts: IPv4 as a canonical dotted quad ("127.0.0.1", no
// "127.1", "0x7f.1", "2130706433" or leading zeros) or IPv6 as RFC 4291 text without brackets or zone
// ("::ffff:127.0.0.1", "2001:db8::1"). nullopt for anything else, names included.
std::optional<QHostAddress> parseAddressLiteral(std::string_view text);

// A host as a client or a rule writes it, reduced to what is compared: lowercase, no brackets, no trailing
// dot, and whether it is an address literal. nullopt for anything that is neither a DNS name nor a literal.
struct NormalizedHost {
    std::string host;
    std::optional<QHostAddress> address;
};
std::optional<NormalizedHost> normalizeHost(std::string_view written);

// Whether address lies inside the machine or its networks, or in a range that is never a public host (the
// list under addressAllowed). IPv6 outside global unicast (2000::/3) is inside, except the IPv4-mapped,
// IPv4-translated and NAT64 (64:ff9b::/96) forms, which are judged by the IPv4 address they carry.
bool isInternalAddress(const QHostAddress& address);

// `--resolve HOST:PORT:ADDRESS[,ADDRESS...]` (as curl's): for one task, connections to HOST:PORT go to
// those addresses, tried in order, whatever DNS says. On the desktop it is how a task reaches a server on
// this machine by name (a test's TLS server whose certificate names api.example.test); the addresses are the
// user's choice, loopback included.
inline constexpr std::size_t kMaxPinnedAddresses = 8;
struct PinnedAddress {
    std::string host; // lowercase, no trailing dot
    std::uint16_t port = 0;
    std::vector<QHostAddress> addresses; // 1 to kMaxPinnedAddresses
    friend bool operator==(const PinnedAddress&, const PinnedAddress&) = default;
};
// HOST a DNS name, PORT 1..65535, each ADDRESS a literal as parseAddressLiteral reads it (IPv6 in brackets
// or bare).
Result<PinnedAddress> parsePinnedAddress(std::string_view text);
// The entry for host:port (as a client wrote the host), or nullptr.
const PinnedAddress* findPinned(const std::vector<PinnedAddress>& pinned, std::string_view host, std::uint16_t port);

// "1".."65535", decimal digits only (no sign, no spaces); nullopt for anything else.
std::optional<std::uint16_t> parsePort(std::string_view text);

// Whether the proxy may connect to address, resolved from rule's host. Addresses inside the machine or its
// networks (loopback, unspecified, link-local, private and unique-local, CGNAT, multicast, broadcast,
// documentation/benchmark ranges, and the IPv4-mapped/compatible/NAT64 forms of these) are refused unless
// the rule is that very address as a literal: a listed name that resolves inside (DNS rebinding, a
// metadata service at 169.254.169.254) reaches nothing.
bool addressAllowed(const HostRule& rule, const QHostAddress& address);

} // namespace warren::control
