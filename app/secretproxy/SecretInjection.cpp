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

namespace {

enum class BodyType { Json, Form, Other };

BodyType bodyType(std::string_view contentType) {
    const std::string type = ascii::lowered(ascii::trimmed(contentType.substr(0, contentType.find(';'))));
    if (type == "application/json" || (type.rfind("application/", 0) == 0 && type.ends_with("+json")))
        return BodyType::Json;
    if (type == "application/x-www-form-urlencoded")
        return BodyType::Form;
    return BodyType::Other;
}

std::string written(const std::string& value, BodyType type) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '.' || c == '_' || c == '~';
        if (type == BodyType::Json && (c == '"' || c == '\\'))
            out += '\\';
        if (type == BodyType::Form && !unreserved) {
            out += '%';
            out += kHex[byte >> 4];
            out += kHex[byte & 0xf];
            continue;
        }
        out += c;
    }
    return out;
}

} // namespace

std::vector<std::string> injectIntoBody(std::string& body, std::string_view contentType,
                                        std::string_view contentEncoding, const std::vector<const TaskSecret*>& bound) {
    std::vector<std::string> used;
    const std::string_view encoding = ascii::trimmed(contentEncoding);
    if (!encoding.empty() && !ascii::equalsIgnoringCase(encoding, "identity"))
        return used;
    const BodyType type = bodyType(contentType);
    for (const TaskSecret* secret : bound) {
        if (!secret->secret.inBody)
            continue;
        const std::string value = written(secret->secret.value, type);
        bool found = false;
        for (auto at = body.find(secret->placeholder); at != std::string::npos;
             at = body.find(secret->placeholder, at + value.size())) {
            body.replace(at, secret->placeholder.size(), value);
            found = true;
        }
        if (found)
            used.push_back(secret->secret.name);
    }
    return used;
}

} // namespace warren::control
