#include "sandbox/cluster/ControlPlanePeer.h"

#include "sandbox/pod/KubeManifest.h"

#include <arpa/inet.h>
#include <charconv>

namespace warren::sandbox {

namespace {

constexpr const char* kForm = "; expected NAMESPACE/KEY=VALUE[,KEY=VALUE...] (the control plane's pods, e.g. "
                              "warren/app.kubernetes.io/name=warrend) or an address block such as 10.0.3.7/32";

Error invalid(const std::string& text, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, "\"" + text + "\": " + why + kForm);
}

// A label key: an optional DNS-subdomain prefix and '/', then a name of at most 63 letters, digits, '-', '_'
// and '.', starting and ending with a letter or digit.
bool isLabelKey(const std::string& key) {
    const auto slash = key.find('/');
    const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
    if (name.empty() || !isLabelValue(name))
        return false;
    if (slash == std::string::npos)
        return true;
    const std::string prefix = key.substr(0, slash);
    if (prefix.empty() || prefix.size() > 253)
        return false;
    std::size_t start = 0;
    for (;;) { // dot-separated DNS labels
        const auto dot = prefix.find('.', start);
        if (!isDnsLabel(prefix.substr(start, dot == std::string::npos ? std::string::npos : dot - start)))
            return false;
        if (dot == std::string::npos)
            return true;
        start = dot + 1;
    }
}

Result<std::string> addressBlock(const std::string& text, const std::string& address, const std::string& bits) {
    unsigned char bytes[16];
    const bool v4 = ::inet_pton(AF_INET, address.c_str(), bytes) == 1;
    if (!v4 && ::inet_pton(AF_INET6, address.c_str(), bytes) != 1)
        return invalid(text, address + " is not an IPv4 or IPv6 address");
    int prefix = -1;
    const auto [end, error] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
    if (bits.empty() || error != std::errc() || end != bits.data() + bits.size() || prefix < 0 ||
        prefix > (v4 ? 32 : 128))
        return invalid(text, "/" + bits + " is not a prefix length from 0 to " + (v4 ? "32" : "128"));
    if (prefix == 0)
        return invalid(text, "a block of every address would let the pods reach anything");
    return text;
}

} // namespace

Result<ControlPlanePeer> parseControlPlanePeer(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos)
        return invalid(text, "no '/'");
    ControlPlanePeer peer;
    const std::string head = text.substr(0, slash), rest = text.substr(slash + 1);
    unsigned char bytes[16];
    if (::inet_pton(AF_INET, head.c_str(), bytes) == 1 || ::inet_pton(AF_INET6, head.c_str(), bytes) == 1) {
        auto block = addressBlock(text, head, rest);
        if (!block)
            return block.error();
        peer.ipBlock = std::move(*block);
        return peer;
    }
    if (!isDnsLabel(head))
        return invalid(text, "\"" + head + "\" is neither a namespace (a DNS-1123 label) nor an IP address");
    peer.namespaceName = head;
    std::size_t start = 0;
    while (start <= rest.size()) {
        const auto comma = rest.find(',', start);
        const std::string pair = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto equals = pair.find('=');
        if (equals == std::string::npos)
            return invalid(text, "\"" + pair + "\" is not KEY=VALUE");
        const std::string key = pair.substr(0, equals), value = pair.substr(equals + 1);
        if (!isLabelKey(key))
            return invalid(text, "\"" + key + "\" is not a label key");
        if (value.empty() || !isLabelValue(value))
            return invalid(text, "\"" + value + "\" is not a label value (letters, digits, '-', '_', '.')");
        if (!peer.podLabels.emplace(key, value).second)
            return invalid(text, "the label " + key + " is given twice");
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return peer;
}

} // namespace warren::sandbox
