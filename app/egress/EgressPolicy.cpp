#include "app/egress/EgressPolicy.h"

#include "app/egress/AsciiText.h"

#include <algorithm>
#include <array>
#include <iterator>

namespace warren::control {

namespace {

using namespace ascii;

constexpr std::string_view kAllowPrefix = "allow:";
constexpr std::string_view kAskPrefix = "ask:";
constexpr std::size_t kMaxNameLength = 253;
constexpr std::size_t kMaxLabelLength = 63;

bool isLowerLetter(char c) {
    return c >= 'a' && c <= 'z';
}

bool isAscii(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// A host name as DNS carries it, lowercase: labels of letters, digits and '-' (not at either end). The last
// label must start with a letter: no top-level domain is numeric, and this keeps every spelling the C
// library would read as an IPv4 address ("127.1", "0x7f.1", "2130706433", "0x7f000001") out of the names.
bool isDnsName(std::string_view name) {
    if (name.empty() || name.size() > kMaxNameLength)
        return false;
    std::size_t start = 0;
    std::string_view label;
    while (true) {
        const std::size_t dot = name.find('.', start);
        label = name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (label.empty() || label.size() > kMaxLabelLength || label.front() == '-' || label.back() == '-')
            return false;
        const bool valid = std::all_of(label.begin(), label.end(),
                                       [](char c) { return isLowerLetter(c) || isDigit(c) || c == '-'; });
        if (!valid)
            return false;
        if (dot == std::string_view::npos)
            break;
        start = dot + 1;
    }
    return isLowerLetter(label.front());
}

std::size_t labelCount(std::string_view name) {
    return static_cast<std::size_t>(std::count(name.begin(), name.end(), '.')) + 1;
}

// Four decimal octets, each 0..255 without leading zeros: the one IPv4 spelling every parser reads alike.
bool isCanonicalDottedQuad(std::string_view text) {
    int octets = 0;
    std::size_t start = 0;
    while (true) {
        const std::size_t dot = text.find('.', start);
        const std::string_view part =
            text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (part.empty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), isDigit))
            return false;
        if (part.size() > 1 && part.front() == '0')
            return false;
        int value = 0;
        for (char c : part)
            value = value * 10 + (c - '0');
        if (value > 255)
            return false;
        ++octets;
        if (dot == std::string_view::npos)
            break;
        start = dot + 1;
    }
    return octets == 4;
}

} // namespace

std::optional<NormalizedHost> normalizeHost(std::string_view written) {
    if (!isAscii(written))
        return std::nullopt;
    if (written.size() >= 2 && written.front() == '[' && written.back() == ']') {
        const auto address = parseAddressLiteral(written.substr(1, written.size() - 2));
        if (!address || address->protocol() != QAbstractSocket::IPv6Protocol)
            return std::nullopt;
        return NormalizedHost{address->toString().toStdString(), address};
    }
    std::string host = lowered(written);
    if (const auto address = parseAddressLiteral(host))
        return NormalizedHost{address->toString().toStdString(), address};
    // One trailing dot marks a fully qualified name; a literal with one ("127.0.0.1.") is not a literal.
    if (!host.empty() && host.back() == '.')
        host.pop_back();
    if (!isDnsName(host))
        return std::nullopt;
    return NormalizedHost{std::move(host), std::nullopt};
}

namespace {

bool portAllowed(const HostRule& rule, std::uint16_t port) {
    if (rule.port)
        return port == *rule.port;
    return port == 80 || port == 443;
}

std::uint32_t ipv4At(const Q_IPV6ADDR& bytes, int offset) {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i)
        value = (value << 8) | bytes[offset + i];
    return value;
}

template <std::size_t N> bool hasPrefix(const Q_IPV6ADDR& bytes, const std::array<std::uint8_t, N>& prefix) {
    static_assert(N <= 16);
    return std::equal(prefix.begin(), prefix.end(), std::begin(bytes.c));
}

// The IPv4 ranges that are not public hosts (IANA special-purpose registry), as (network, prefix length).
struct Ipv4Range {
    std::uint32_t network;
    int prefix;
};
constexpr std::array<Ipv4Range, 16> kInternalIpv4 = {{
    {0x00000000, 8},  // 0.0.0.0/8 "this network"; connect() to 0.0.0.0 reaches the machine itself
    {0x0A000000, 8},  // 10.0.0.0/8 private
    {0x64400000, 10}, // 100.64.0.0/10 carrier-grade NAT
    {0x7F000000, 8},  // 127.0.0.0/8 loopback
    {0xA9FE0000, 16}, // 169.254.0.0/16 link-local, cloud metadata services (169.254.169.254)
    {0xAC100000, 12}, // 172.16.0.0/12 private
    {0xC0000000, 24}, // 192.0.0.0/24 IETF protocol assignments
    {0xC0000200, 24}, // 192.0.2.0/24 documentation
    {0xC0586300, 24}, // 192.88.99.0/24 deprecated 6to4 relay anycast
    {0xC0A80000, 16}, // 192.168.0.0/16 private
    {0xC6120000, 15}, // 198.18.0.0/15 benchmarking
    {0xC6336400, 24}, // 198.51.100.0/24 documentation
    {0xCB007100, 24}, // 203.0.113.0/24 documentation
    {0xE0000000, 4},  // 224.0.0.0/4 multicast
    {0xF0000000, 4},  // 240.0.0.0/4 reserved, with 255.255.255.255 broadcast
    {0xFFFFFFFF, 32}, // broadcast, also inside 240/4; listed for the reader
}};

bool isInternalIpv4(std::uint32_t address) {
    return std::any_of(kInternalIpv4.begin(), kInternalIpv4.end(), [address](const Ipv4Range& range) {
        const std::uint32_t mask = range.prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - range.prefix);
        return (address & mask) == range.network;
    });
}

bool isInternalIpv6(const Q_IPV6ADDR& bytes) {
    // Forms that carry an IPv4 address a dual-stack socket or a NAT64 gateway would reach: judged by it.
    constexpr std::array<std::uint8_t, 12> kMapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    constexpr std::array<std::uint8_t, 12> kTranslated = {0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0};
    constexpr std::array<std::uint8_t, 12> kNat64 = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    constexpr std::array<std::uint8_t, 4> kDocumentation = {0x20, 0x01, 0x0d, 0xb8};
    constexpr std::array<std::uint8_t, 2> kSixToFour = {0x20, 0x02};
    if (hasPrefix(bytes, kMapped) || hasPrefix(bytes, kTranslated) || hasPrefix(bytes, kNat64))
        return isInternalIpv4(ipv4At(bytes, 12));
    // Everything outside global unicast 2000::/3 is inside or not a host: ::, ::1, IPv4-compatible ::/96,
    // link-local fe80::/10, site-local fec0::/10, unique-local fc00::/7, multicast ff00::/8, discard
    // 100::/64, local-use NAT64 64:ff9b:1::/48.
    if ((bytes[0] & 0xe0) != 0x20)
        return true;
    // Inside 2000::/3: IETF protocol assignments 2001::/23 (Teredo, benchmarking, ORCHID), documentation
    // 2001:db8::/32 and 3fff::/20; 6to4 2002::/16 is judged by the IPv4 address it carries.
    if (bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] <= 0x01)
        return true;
    if (hasPrefix(bytes, kDocumentation))
        return true;
    if (bytes[0] == 0x3f && bytes[1] == 0xff && (bytes[2] & 0xf0) == 0)
        return true;
    if (hasPrefix(bytes, kSixToFour))
        return isInternalIpv4(ipv4At(bytes, 2));
    return false;
}

Error entryError(std::string_view entry, std::string_view problem) {
    return makeError(ErrorCode::InvalidArgument,
                     "--network allow:...: \"" + std::string(entry) + "\" " + std::string(problem));
}

constexpr std::string_view kHowToWriteHost =
    "is neither a host name nor an address: write a name such as pypi.org, a wildcard such as "
    "*.pythonhosted.org, an IPv4 address such as 192.0.2.7 or an IPv6 address such as [2001:db8::7], "
    "each optionally with :PORT";

Result<HostRule> parseHostRule(std::string_view entry) {
    if (!isAscii(entry)) {
        return entryError(entry,
                          "is not ASCII: write an internationalised name in its punycode form, such as "
                          "xn--bcher-kva.example for bücher.example");
    }
    std::string_view hostText = entry;
    std::optional<std::string_view> portText;
    bool bracketed = false;
    if (!entry.empty() && entry.front() == '[') {
        const std::size_t close = entry.find(']');
        if (close == std::string_view::npos)
            return entryError(
                entry, "has no closing ']': write an IPv6 address as [2001:db8::7] or [2001:db8::7]:8443");
        hostText = entry.substr(1, close - 1);
        bracketed = true;
        const std::string_view rest = entry.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':')
                return entryError(entry, "has text after ']': write an IPv6 address as [2001:db8::7]:8443");
            portText = rest.substr(1);
        }
    } else if (std::count(entry.begin(), entry.end(), ':') == 1) {
        const std::size_t colon = entry.find(':');
        hostText = entry.substr(0, colon);
        portText = entry.substr(colon + 1);
    }
    // More than one colon without brackets: an IPv6 address without a port.

    HostRule rule;
    if (portText) {
        rule.port = parsePort(*portText);
        if (!rule.port)
            return entryError(entry,
                              "has a bad port: write a port from 1 to 65535, such as example.com:8443");
    }
    if (hostText == "*")
        return entryError(entry, "is too broad: name the hosts, such as allow:pypi.org,*.pythonhosted.org");

    if (hostText.size() >= 2 && hostText.substr(0, 2) == "*.") {
        std::string suffix = lowered(hostText.substr(2));
        if (!suffix.empty() && suffix.back() == '.')
            suffix.pop_back();
        if (!isDnsName(suffix))
            return entryError(
                entry, "is not a valid wildcard: write a star, a dot and a domain, such as *.example.com");
        if (labelCount(suffix) < 2)
            return entryError(entry, "is too broad: a wildcard needs a domain such as *.example.com");
        rule.host = std::move(suffix);
        rule.wildcard = true;
        return rule;
    }

    const auto address = parseAddressLiteral(bracketed ? hostText : lowered(hostText));
    if (bracketed && (!address || address->protocol() != QAbstractSocket::IPv6Protocol))
        return entryError(entry,
                          "holds no IPv6 address in its brackets: write one such as [2001:db8::7]:8443");
    if (address) {
        rule.host = address->toString().toStdString();
        rule.literalAddress = true;
        return rule;
    }
    std::string name = lowered(hostText);
    if (!name.empty() && name.back() == '.')
        name.pop_back();
    if (!isDnsName(name))
        return entryError(entry, kHowToWriteHost);
    rule.host = std::move(name);
    return rule;
}

} // namespace

Result<HostRule> parseNamedHostPort(std::string_view text) {
    auto rule = parseHostRule(text);
    if (rule && (rule->wildcard || rule->literalAddress || !rule->port))
        return entryError(text, "is not one name and its port, such as pypi.org:443");
    return rule;
}

std::optional<std::uint16_t> parsePort(std::string_view text) {
    if (text.empty() || text.size() > 5 || !std::all_of(text.begin(), text.end(), isDigit))
        return std::nullopt;
    std::uint32_t value = 0;
    for (char c : text)
        value = value * 10 + static_cast<std::uint32_t>(c - '0');
    if (value == 0 || value > 65535)
        return std::nullopt;
    return static_cast<std::uint16_t>(value);
}

std::optional<QHostAddress> parseAddressLiteral(std::string_view text) {
    if (text.empty())
        return std::nullopt;
    if (text.find(':') == std::string_view::npos) {
        if (!isCanonicalDottedQuad(text))
            return std::nullopt;
        return QHostAddress(QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size())));
    }
    // RFC 4291 text: hex groups and colons, maybe a dotted quad at the end; no zone ("%eth0"), no brackets.
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
        return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    });
    if (!plain)
        return std::nullopt;
    const std::size_t lastColon = text.rfind(':');
    const std::string_view tail = text.substr(lastColon + 1);
    if (tail.find('.') != std::string_view::npos && !isCanonicalDottedQuad(tail))
        return std::nullopt;
    QHostAddress address;
    if (!address.setAddress(QString::fromLatin1(text.data(), static_cast<qsizetype>(text.size()))) ||
        address.protocol() != QAbstractSocket::IPv6Protocol)
        return std::nullopt;
    return address;
}

bool isInternalAddress(const QHostAddress& address) {
    switch (address.protocol()) {
    case QAbstractSocket::IPv4Protocol:
        return isInternalIpv4(address.toIPv4Address());
    case QAbstractSocket::IPv6Protocol:
        if (!address.scopeId().isEmpty())
            return true; // a zone names a local interface
        return isInternalIpv6(address.toIPv6Address());
    default:
        return true; // null or unknown: nothing to connect to
    }
}

Result<TaskNetwork> parseTaskNetwork(std::string_view text) {
    if (text == "none")
        return TaskNetwork{TaskNetwork::Kind::None, {}};
    if (text == "loopback")
        return TaskNetwork{TaskNetwork::Kind::Loopback, {}};
    if (text == "ask")
        return TaskNetwork{TaskNetwork::Kind::Allow, {}, true};
    const bool ask = text.substr(0, kAskPrefix.size()) == kAskPrefix;
    if (!ask && text.substr(0, kAllowPrefix.size()) != kAllowPrefix) {
        return makeError(ErrorCode::InvalidArgument,
                         "--network \"" + std::string(text) +
                             "\": use none, loopback or allow:HOST[,HOST...] (such as allow:pypi.org,*.pythonhosted.org); "
                             "ask or ask:HOST[,HOST...] to be asked about the hosts not listed");
    }
    const std::string_view prefix = ask ? kAskPrefix : kAllowPrefix;
    const std::string written(prefix);
    const std::string_view list = text.substr(prefix.size());
    if (trimmed(list).empty()) {
        return makeError(ErrorCode::InvalidArgument,
                         "--network " + written + " names no host: list at least one, such as " + written +
                             "pypi.org" + (ask ? ", or write ask alone" : ""));
    }
    TaskNetwork network{TaskNetwork::Kind::Allow, {}, ask};
    const auto entries = splitList(list);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].empty()) {
            return makeError(ErrorCode::InvalidArgument,
                             "--network " + written + "...: host " + std::to_string(i + 1) +
                                 " is empty: separate hosts with single commas, such as " + written +
                                 "pypi.org,files.pythonhosted.org");
        }
        auto rule = parseHostRule(entries[i]);
        if (!rule)
            return rule.error();
        if (std::find(network.hosts.begin(), network.hosts.end(), rule.value()) == network.hosts.end())
            network.hosts.push_back(std::move(rule).value());
    }
    return network;
}

const HostRule* matchHost(const std::vector<HostRule>& rules, std::string_view host, std::uint16_t port) {
    const auto normalized = normalizeHost(host);
    if (!normalized)
        return nullptr;
    for (const HostRule& rule : rules) {
        if (!portAllowed(rule, port))
            continue;
        if (normalized->address) {
            if (rule.literalAddress && parseAddressLiteral(rule.host) == normalized->address)
                return &rule;
            continue;
        }
        if (rule.literalAddress)
            continue;
        if (!rule.wildcard) {
            if (normalized->host == rule.host)
                return &rule;
            continue;
        }
        const std::string& name = normalized->host;
        const std::size_t suffixLength = rule.host.size();
        if (name.size() > suffixLength + 1 &&
            name.compare(name.size() - suffixLength, suffixLength, rule.host) == 0 &&
            name[name.size() - suffixLength - 1] == '.')
            return &rule;
    }
    return nullptr;
}

bool addressAllowed(const HostRule& rule, const QHostAddress& address) {
    if (address.isNull())
        return false;
    if (rule.literalAddress) {
        // A literal rule reaches that address and no other, inside or not: it is what the user wrote.
        const auto literal = parseAddressLiteral(rule.host);
        return literal && *literal == address && address.scopeId().isEmpty();
    }
    return !isInternalAddress(address);
}

Result<PinnedAddress> parsePinnedAddress(std::string_view text) {
    const auto bad = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument, "--resolve " + std::string(text) + ": " + why +
                                                         "; write HOST:PORT:ADDRESS[,ADDRESS...], such as "
                                                         "api.example.test:8443:127.0.0.1");
    };
    const std::size_t first = text.find(':');
    const std::size_t second = first == std::string_view::npos ? first : text.find(':', first + 1);
    if (second == std::string_view::npos)
        return bad("is not HOST:PORT:ADDRESS");
    const auto host = normalizeHost(text.substr(0, first));
    if (!host || host->address)
        return bad("HOST must be a DNS name");
    const auto port = parsePort(text.substr(first + 1, second - first - 1));
    if (!port)
        return bad("PORT must be a number from 1 to 65535");
    PinnedAddress pinned{host->host, *port, {}};
    std::string_view addresses = text.substr(second + 1);
    while (true) {
        const std::size_t comma = addresses.find(',');
        std::string_view address = addresses.substr(0, comma);
        if (address.size() > 2 && address.front() == '[' && address.back() == ']')
            address = address.substr(1, address.size() - 2);
        const auto literal = parseAddressLiteral(address);
        if (!literal)
            return bad("ADDRESS must be an IPv4 or IPv6 address");
        pinned.addresses.push_back(*literal);
        if (pinned.addresses.size() > kMaxPinnedAddresses)
            return bad("at most " + std::to_string(kMaxPinnedAddresses) + " addresses");
        if (comma == std::string_view::npos)
            return pinned;
        addresses.remove_prefix(comma + 1);
    }
}

const PinnedAddress* findPinned(const std::vector<PinnedAddress>& pinned, std::string_view host, std::uint16_t port) {
    const auto normalized = normalizeHost(host);
    if (!normalized || normalized->address)
        return nullptr;
    for (const PinnedAddress& entry : pinned)
        if (entry.host == normalized->host && entry.port == port)
            return &entry;
    return nullptr;
}

} // namespace warren::control
