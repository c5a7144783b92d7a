#include "app/secretproxy/HostSecret.h"

#include "app/egress/AsciiText.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

namespace warren::control {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxNameLength = 64;
constexpr std::size_t kMaxValueLength = 8192;
constexpr std::size_t kMaxTemplateLength = 1024;
constexpr std::size_t kMinMaskedValue = 8;

bool isNameStart(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool isNameChar(char c) {
    return isNameStart(c) || (c >= '0' && c <= '9');
}

// What the sandbox, its shell and its tools read for themselves, and what Warren sets there.
bool isReservedName(std::string_view name) {
    const std::string lower = ascii::lowered(name);
    static constexpr std::array<std::string_view, 20> kNames = {
        "path", "home", "user", "logname", "shell", "pwd", "tmpdir", "term", "lang", "http_proxy", "https_proxy",
        "all_proxy", "no_proxy", "ssl_cert_file", "ssl_cert_dir", "node_extra_ca_certs", "requests_ca_bundle",
        "curl_ca_bundle", "git_ssl_cainfo", "ifs"};
    if (std::find(kNames.begin(), kNames.end(), lower) != kNames.end())
        return true;
    return lower.rfind("warren_", 0) == 0 || lower.rfind("ld_", 0) == 0 || lower.rfind("bash_", 0) == 0;
}

// Headers the proxy owns: the framing, the connection, the destination.
bool isOwnedHeader(std::string_view name) {
    static constexpr std::array<std::string_view, 10> kNames = {
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection", "te",
        "trailer", "upgrade", "expect"};
    const std::string lower = ascii::lowered(name);
    return std::find(kNames.begin(), kNames.end(), lower) != kNames.end();
}

} // namespace

Status validateSecretName(std::string_view name) {
    if (name.empty() || name.size() > kMaxNameLength || !isNameStart(name.front()) ||
        !std::all_of(name.begin(), name.end(), isNameChar))
        return makeError(ErrorCode::InvalidArgument,
                         "a secret's NAME is the variable the sandbox holds its placeholder in: letters, digits and "
                         "'_', not starting with a digit, at most 64 (e.g. GITHUB_TOKEN)");
    if (isReservedName(name))
        return makeError(ErrorCode::InvalidArgument,
                         std::string(name) + " is a variable the sandbox or its tools read for themselves; name the "
                                             "secret otherwise (e.g. GITHUB_TOKEN)");
    return Ok{};
}

Status validateHeaderTemplate(std::string_view text) {
    const auto bad = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument,
                         "--header " + why + "; write it as 'Authorization: Bearer {}' ({} is where the value goes)");
    };
    if (text.size() > kMaxTemplateLength)
        return bad("is longer than " + std::to_string(kMaxTemplateLength) + " bytes");
    if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; }))
        return bad("holds a character that is not printable ASCII");
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos)
        return bad("has no ':' after the header's name");
    const std::string_view name = text.substr(0, colon);
    if (name.empty() || !std::all_of(name.begin(), name.end(), ascii::isTokenChar))
        return bad("does not start with a header name");
    if (isOwnedHeader(name))
        return bad("names " + std::string(name) + ", which the proxy sets itself");
    const std::string_view value = text.substr(colon + 1);
    const std::size_t first = value.find("{}");
    if (first == std::string_view::npos || value.find("{}", first + 2) != std::string_view::npos)
        return bad("must hold {} exactly once");
    return Ok{};
}

Status validateSecretValue(std::string_view value) {
    if (value.empty())
        return makeError(ErrorCode::InvalidArgument, "the secret's value is empty");
    if (value.size() > kMaxValueLength)
        return makeError(ErrorCode::InvalidArgument,
                         "the secret's value is longer than " + std::to_string(kMaxValueLength) + " bytes");
    if (std::any_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        return makeError(ErrorCode::InvalidArgument,
                         "the secret's value holds a control character (a line break?): it goes into a header line");
    return Ok{};
}

Result<std::vector<HostRule>> parseSecretBinding(std::string_view name, std::string_view hosts,
                                                 std::string_view header) {
    if (auto valid = validateSecretName(name); !valid)
        return valid.error();
    if (hosts.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "--host is missing: a secret goes only to the hosts it is bound to (--host api.github.com)");
    auto network = parseTaskNetwork("allow:" + std::string(hosts));
    if (!network)
        return makeError(ErrorCode::InvalidArgument, "--host: " + network.error().message);
    if (auto valid = header.empty() ? Status(Ok{}) : validateHeaderTemplate(header); !valid)
        return valid.error();
    return std::move(network->hosts);
}

Result<HostSecret> makeHostSecret(std::string name, std::string_view hosts, std::string header, std::string value) {
    auto rules = parseSecretBinding(name, hosts, header);
    if (!rules) {
        // A message quotes the part it refuses, which may hold the value pasted in the wrong place. (A value
        // of a few bytes could be any word of the message: those are left.)
        std::string message = rules.error().message;
        for (auto at = value.size() < kMinMaskedValue ? std::string::npos : message.find(value); at != std::string::npos;
             at = message.find(value, at + 11))
            message.replace(at, value.size(), "[the value]");
        return makeError(rules.error().code, std::move(message));
    }
    if (auto valid = validateSecretValue(value); !valid)
        return valid.error();
    return HostSecret{std::move(name), std::string(hosts), std::move(*rules), std::move(header), std::move(value)};
}

std::string hostSecretEntry(std::string_view name) {
    return "host-secret/" + std::string(name);
}

std::string storedHostSecret(const HostSecret& secret) {
    json stored{{"hosts", secret.hostsText}, {"header", secret.header}, {"value", secret.value}};
    if (secret.inBody)
        stored["in_body"] = true;
    return stored.dump();
}

Result<HostSecret> readHostSecret(std::string name, std::string_view stored) {
    const json document = json::parse(stored, nullptr, false);
    if (!document.is_object() || !document.contains("hosts") || !document["hosts"].is_string() ||
        !document.contains("value") || !document["value"].is_string() ||
        (document.contains("header") && !document["header"].is_string()) ||
        (document.contains("in_body") && !document["in_body"].is_boolean()))
        return makeError(ErrorCode::InvalidArgument, "the stored secret " + name +
                                                         " is not one warren wrote; set it again with warren secrets "
                                                         "set " + name + " --host HOST");
    auto secret = makeHostSecret(std::move(name), document["hosts"].get<std::string>(), document.value("header", ""),
                                 document["value"].get<std::string>());
    if (secret)
        secret->inBody = document.value("in_body", false);
    return secret;
}

} // namespace warren::control
