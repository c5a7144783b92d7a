#include "app/egress/InsideDestinations.h"

#include "app/egress/AsciiText.h"

#include <algorithm>
#include <array>

namespace warren::control {

namespace {

using namespace ascii;

constexpr std::string_view kHowToWrite =
    "write an address (10.0.3.7, [fd00::7]), a block (10.0.0.0/8, [fd00::/8]) or a host name "
    "(models.internal), each optionally with :PORT";

Error entryError(std::string_view entry, std::string_view problem) {
    return makeError(ErrorCode::InvalidArgument,
                     "--allow-internal: \"" + std::string(entry) + "\" " + std::string(problem));
}

// "ADDRESS/BITS", the address in the one spelling parseAddressLiteral reads; the block's first address.
Result<InsideDestination> parseBlock(std::string_view entry, std::string_view text) {
    const std::size_t slash = text.find('/');
    const auto address = parseAddressLiteral(lowered(text.substr(0, slash)));
    const std::string_view bits = text.substr(slash + 1);
    if (!address)
        return entryError(entry, std::string("has no address before the '/': ") + std::string(kHowToWrite));
    const int maxBits = address->protocol() == QAbstractSocket::IPv4Protocol ? 32 : 128;
    int value = 0;
    const bool digits = !bits.empty() && bits.size() <= 3 && std::all_of(bits.begin(), bits.end(), isDigit);
    for (char c : digits ? bits : std::string_view())
        value = value * 10 + (c - '0');
    if (!digits || value > maxBits)
        return entryError(entry, "has a bad prefix length: write 0 to " + std::to_string(maxBits) +
                                     " after the '/', such as 10.0.0.0/8");
    const auto subnet = QHostAddress::parseSubnet(address->toString() + "/" + QString::number(value));
    InsideDestination destination;
    destination.network = subnet.first;
    destination.prefixLength = subnet.second;
    return destination;
}

Result<InsideDestination> parseDestination(std::string_view entry) {
    if (entry.empty())
        return entryError(entry, "is empty: separate destinations with single commas");
    std::string_view hostText = entry;
    std::optional<std::string_view> portText;
    bool bracketed = false;
    if (entry.front() == '[') {
        const std::size_t close = entry.find(']');
        if (close == std::string_view::npos)
            return entryError(entry, "has no closing ']': write an IPv6 address as [fd00::7]:8000");
        hostText = entry.substr(1, close - 1);
        bracketed = true;
        const std::string_view rest = entry.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':')
                return entryError(entry, "has text after ']': write an IPv6 address as [fd00::7]:8000");
            portText = rest.substr(1);
        }
    } else if (std::count(entry.begin(), entry.end(), ':') == 1) {
        const std::size_t colon = entry.find(':');
        hostText = entry.substr(0, colon);
        portText = entry.substr(colon + 1);
    }
    // More than one colon without brackets: an IPv6 address or block without a port.

    std::optional<std::uint16_t> port;
    if (portText) {
        port = parsePort(*portText);
        if (!port)
            return entryError(entry, "has a bad port: write a port from 1 to 65535, such as 10.0.3.7:8000");
    }
    InsideDestination destination;
    if (hostText.find('/') != std::string_view::npos) {
        auto block = parseBlock(entry, hostText);
        if (!block)
            return block.error();
        destination = std::move(*block);
    } else {
        const auto host = normalizeHost(hostText);
        if (!host ||
            (bracketed && (!host->address || host->address->protocol() != QAbstractSocket::IPv6Protocol)))
            return entryError(entry, std::string("is neither an address, a block nor a host name: ") +
                                         std::string(kHowToWrite));
        if (host->address) {
            destination.network = host->address;
            destination.prefixLength = host->address->protocol() == QAbstractSocket::IPv4Protocol ? 32 : 128;
        } else {
            destination.name = host->host;
        }
    }
    destination.port = port;
    return destination;
}

// The IPv4 address an IPv4-mapped IPv6 address carries, else the address itself.
QHostAddress unmapped(const QHostAddress& address) {
    bool mapped = false;
    const quint32 ipv4 = address.toIPv4Address(&mapped);
    if (mapped && address.protocol() == QAbstractSocket::IPv6Protocol)
        return QHostAddress(ipv4);
    return address;
}

std::string written(const HostRule& rule) {
    const bool v6 = rule.literalAddress && rule.host.find(':') != std::string::npos;
    std::string text = (rule.wildcard ? "*." : "") + (v6 ? "[" + rule.host + "]" : rule.host);
    if (rule.port)
        text += ":" + std::to_string(*rule.port);
    return text;
}

std::vector<std::uint16_t> portsOf(const HostRule& rule) {
    if (rule.port)
        return {*rule.port};
    return {80, 443};
}

} // namespace

Result<std::vector<InsideDestination>> parseInsideDestinations(std::string_view text) {
    std::vector<InsideDestination> destinations;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string_view entry =
            text.substr(start, comma == std::string_view::npos ? comma : comma - start);
        auto destination = parseDestination(entry);
        if (!destination)
            return destination.error();
        if (std::find(destinations.begin(), destinations.end(), *destination) == destinations.end())
            destinations.push_back(std::move(*destination));
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return destinations;
}

bool insideDestinationAllowed(const std::vector<InsideDestination>& destinations, std::string_view host,
                              const QHostAddress& address, std::uint16_t port) {
    if (address.isNull() || !address.scopeId().isEmpty())
        return false; // a zone names one of this machine's interfaces: never an operator's destination
    const QHostAddress connected = unmapped(address);
    const auto name = normalizeHost(host);
    return std::any_of(destinations.begin(), destinations.end(), [&](const InsideDestination& destination) {
        if (destination.port && *destination.port != port)
            return false;
        if (destination.network)
            return connected.protocol() == destination.network->protocol() &&
                   connected.isInSubnet(*destination.network, destination.prefixLength);
        return name && !name->address && name->host == destination.name;
    });
}

bool insideReachable(const InsideAccess& access, std::string_view host, const QHostAddress& address,
                     std::uint16_t port) {
    if (address.isNull())
        return false;
    if (!isInternalAddress(address))
        return true;
    return access.operatorOnly && insideDestinationAllowed(access.allowed, host, address, port);
}

bool addressAllowed(const HostRule& rule, std::string_view host, const QHostAddress& address,
                    std::uint16_t port, const InsideAccess& access) {
    if (!access.operatorOnly)
        return addressAllowed(rule, address);
    if (rule.literalAddress && (parseAddressLiteral(rule.host) != address || !address.scopeId().isEmpty()))
        return false; // a literal rule reaches that address and no other
    return insideReachable(access, host, address, port);
}

bool isLocalHostName(std::string_view name) {
    std::string host = lowered(name);
    if (!host.empty() && host.back() == '.')
        host.pop_back();
    constexpr std::array<std::string_view, 6> kLocalNames = {"localhost",     "localhost.localdomain",
                                                             "ip6-localhost", "ip6-loopback",
                                                             "localhost6",    "localhost6.localdomain6"};
    return std::find(kLocalNames.begin(), kLocalNames.end(), host) != kLocalNames.end() ||
           host.ends_with(".localhost"); // RFC 6761: every name under localhost is loopback
}

Status checkAllowListInside(const TaskNetwork& network, const InsideAccess& access) {
    if (!access.operatorOnly)
        return Ok{};
    for (const HostRule& rule : network.hosts) {
        bool allowed = true;
        for (std::uint16_t port : portsOf(rule)) {
            if (rule.literalAddress) {
                const auto address = parseAddressLiteral(rule.host);
                allowed = allowed && address && insideReachable(access, rule.host, *address, port);
            } else if (isLocalHostName(rule.host)) {
                // As the egress proxy would find it: the name, or the loopback address it resolves to.
                allowed =
                    allowed && !rule.wildcard &&
                    (insideDestinationAllowed(access.allowed, rule.host, QHostAddress::LocalHost, port) ||
                     insideDestinationAllowed(access.allowed, rule.host, QHostAddress::LocalHostIPv6, port));
            }
        }
        if (!allowed)
            return makeError(ErrorCode::InvalidArgument,
                             "--network allow:...: \"" + written(rule) +
                                 "\" is inside the server's own host or its networks (loopback, private, "
                                 "link-local or metadata addresses), which a task on a server never reaches; "
                                 "name a public host, or ask the operator to allow that destination with "
                                 "warrend serve --allow-internal");
    }
    return Ok{};
}

} // namespace warren::control
