#include "app/secretproxy/SecretInjection.h"

#include "app/egress/AsciiText.h"

#include <algorithm>

namespace warren::control {

std::string makePlaceholder(const std::array<std::uint8_t, 16>& random) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text(kPlaceholderPrefix);
    for (const std::uint8_t byte : random) {
        text += kHex[byte >> 4];
        text += kHex[byte & 0xf];
    }
    return text;
}

std::vector<const TaskSecret*> secretsBoundTo(const std::vector<TaskSecret>& secrets, std::string_view host,
                                              std::uint16_t port) {
    std::vector<const TaskSecret*> bound;
    for (const TaskSecret& secret : secrets)
        if (matchHost(secret.secret.hosts, host, port) != nullptr)
            bound.push_back(&secret);
    return bound;
}

InjectedHeaders injectSecrets(std::vector<ModelRequestHeader> headers, const std::vector<const TaskSecret*>& bound) {
    InjectedHeaders out;
    std::vector<bool> used(bound.size(), false);
    for (std::size_t i = 0; i < bound.size(); ++i) {
        const TaskSecret& secret = *bound[i];
        for (ModelRequestHeader& header : headers) {
            for (auto at = header.value.find(secret.placeholder); at != std::string::npos;
                 at = header.value.find(secret.placeholder, at + secret.secret.value.size())) {
                header.value.replace(at, secret.placeholder.size(), secret.secret.value);
                used[i] = true;
            }
        }
        const std::string& pattern = secret.secret.header;
        if (pattern.empty())
            continue;
        const std::size_t colon = pattern.find(':');
        const std::string name(ascii::trimmed(std::string_view(pattern).substr(0, colon)));
        std::string value(ascii::trimmed(std::string_view(pattern).substr(colon + 1)));
        value.replace(value.find("{}"), 2, secret.secret.value);
        std::erase_if(headers, [&](const ModelRequestHeader& header) { return ascii::equalsIgnoringCase(header.name, name); });
        headers.push_back({name, std::move(value)});
        used[i] = true;
    }
    out.headers = std::move(headers);
    for (std::size_t i = 0; i < bound.size(); ++i)
        if (used[i])
            out.used.push_back(bound[i]->secret.name);
    return out;
}

} // namespace warren::control
