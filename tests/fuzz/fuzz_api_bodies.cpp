// warrend's request bodies, as bytes, read the way the handlers read them (json_fields::parseJson, then the
// body's reader), through the reader the first byte picks:
//  0. POST /v1/tasks (parseTaskRequest): what it admits holds what it promises (a prompt, an upload id, a
//     script that parses, settings of scalars), and written back (wire::TaskRequest::toJson, as the client
//     writes it) as a body it reads as the same request;
//  1. PUT /v1/me/provider-keys/{provider} (wire::ProviderKeyBody): a key is 1 to 4096 visible ASCII bytes,
//     and a refusal is a short fixed sentence (it never repeats the body, which may be the key);
//  2. POST /v1/tasks/{id}/reply (parseReplyRequest), 3. POST /v1/tasks/{id}/approvals/{call}
//     (wire::ApprovalAnswer): what they admit reads back the same;
//  4. a limits object (limitsFromJson, as a request's and as a quota's): written back, read the same;
//  5. PUT /v1/me/secrets/{name} (wire::HostSecretBody, then HostSecret's rules, as the handler reads it): a
//     secret admitted has a value that can go into a header line, round-trips through its stored form, and a
//     refusal never repeats the value.
// Nothing may crash, leak or trip a sanitizer.

#include "FuzzInput.h"

#include "agent_core/protocol/Script.h"
#include "common/JsonFields.h"
#include "server/accounts/Limits.h"
#include "app/wire/OwnerAnswers.h"
#include "app/secretproxy/HostSecret.h"
#include "app/wire/HostSecretBody.h"
#include "app/wire/ProviderKeyBody.h"
#include "server/api/AnswerRequest.h"
#include "server/api/TaskRequest.h"

#include <algorithm>

using namespace warren;
using nlohmann::json;
using warren::fuzz::require;

namespace {

json setLimits(const accounts::Limits& limits) {
    json out = json::object();
    for (const auto& info : accounts::allLimits())
        if (const auto value = limits.get(info.name))
            out[std::string(info.key)] = *value;
    return out;
}

// The limits as read, written back in place of the body's: what the server took is what it reads again.
json toBody(const server::TaskRequest& request) {
    auto body = request.body;
    body.limits = setLimits(request.limits);
    return body.toJson();
}

bool same(const server::TaskRequest& x, const server::TaskRequest& y) {
    const auto& a = x.body;
    const auto& b = y.body;
    return a.prompt == b.prompt && a.workspace == b.workspace && a.provider == b.provider && a.model == b.model &&
           a.script == b.script && a.presets == b.presets && a.settings == b.settings && a.network == b.network &&
           x.limits == y.limits && a.tokenBudget == b.tokenBudget && a.queue == b.queue && a.attended == b.attended &&
           a.secrets == b.secrets;
}

// The body the handler reads: the bytes as JSON, or nothing to read.
std::optional<json> bodyJson(std::string_view bytes) {
    auto parsed = json_fields::parseJson(bytes);
    return parsed ? std::optional<json>(std::move(*parsed)) : std::nullopt;
}

void taskRequest(std::string_view bytes) {
    const auto body = bodyJson(bytes);
    if (!body)
        return;
    auto request = server::parseTaskRequest(*body);
    if (!request)
        return;
    const auto& asked = request->body;
    require(!asked.prompt.empty() && !asked.workspace.empty());
    require(!asked.provider.starts_with("scripted"));
    require(!asked.script || (asked.provider.empty() && protocol::parseScript(asked.script->dump(), "s").ok()));
    require(asked.settings.is_object());
    // Lists and objects too (approval_tools, mcp_servers); never null: the agent's table judges each key later.
    for (const auto& [key, value] : asked.settings.items())
        require(!value.is_null() && !value.is_binary());
    for (const auto& info : accounts::allLimits())
        require(info.sandbox || !request->limits.get(info.name));
    auto again = server::parseTaskRequest(json::parse(toBody(*request).dump()));
    require(again.ok() && same(*again, *request));
}

void providerKey(std::string_view bytes) {
    auto key = wire::ProviderKeyBody::fromJson(bytes);
    if (!key) {
        // A refused body may be the key itself: the message quotes none of it, so it is one of a few fixed
        // sentences whatever the body's size.
        require(key.error().message.size() <= 200);
        return;
    }
    const std::string& text = key->key;
    require(!text.empty() && text.size() <= wire::kMaxProviderKeyBytes);
    require(std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < '\x7f'; }));
    auto again = wire::ProviderKeyBody::fromJson(key->toJson().dump());
    require(again.ok() && again->key == text);
}

void hostSecret(std::string_view bytes) {
    auto body = wire::HostSecretBody::fromJson(bytes);
    if (!body) {
        require(body.error().message.size() <= 300);
        return;
    }
    auto secret = control::makeHostSecret("FUZZ_TOKEN", body->hosts, body->header, body->value);
    if (!secret) {
        // The value is never repeated (of 8 bytes or more: a shorter one may be any word of the message).
        require(body->value.size() < 8 || secret.error().message.find(body->value) == std::string::npos);
        return;
    }
    require(!secret->value.empty() && !secret->hosts.empty());
    require(std::none_of(secret->value.begin(), secret->value.end(),
                         [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }));
    auto again = control::readHostSecret("FUZZ_TOKEN", control::storedHostSecret(*secret));
    require(again.ok() && again->value == secret->value && again->hosts == secret->hosts &&
            again->header == secret->header);
}

void replyRequest(std::string_view bytes) {
    const auto body = bodyJson(bytes);
    if (!body)
        return;
    auto message = server::parseReplyRequest(*body);
    if (!message)
        return;
    auto again = server::parseReplyRequest(json::parse(json{{"message", *message}}.dump()));
    require(again.ok() && *again == *message);
}

void approvalAnswer(std::string_view bytes) {
    const auto body = bodyJson(bytes);
    if (!body)
        return;
    auto answer = wire::ApprovalAnswer::fromJson(*body);
    if (!answer)
        return;
    auto again = wire::ApprovalAnswer::fromJson(json::parse(answer->toJson().dump()));
    require(again.ok() && again->approved == answer->approved && again->note == answer->note &&
            again->always == answer->always);
}

void limits(std::string_view bytes) {
    const auto body = bodyJson(bytes);
    if (!body)
        return;
    for (const auto scope : {accounts::LimitsScope::Request, accounts::LimitsScope::Quota}) {
        auto read = accounts::limitsFromJson(*body, scope, "limits");
        if (!read)
            continue;
        for (const auto& info : accounts::allLimits())
            if (const auto value = read->get(info.name))
                require(accounts::checkLimitValue(info.name, *value, "limits").ok());
        auto again = accounts::limitsFromJson(json::parse(setLimits(*read).dump()), scope, "limits");
        require(again.ok() && *again == *read);
        auto everyLimit = accounts::limitsFromJson(accounts::limitsToJson(*read), accounts::LimitsScope::Quota, "l");
        require(everyLimit.ok() && *everyLimit == *read);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::FuzzInput::from(data, size);
    switch (input.pick(6)) {
    case 0:
        taskRequest(input.body);
        break;
    case 1:
        providerKey(input.body);
        break;
    case 2:
        replyRequest(input.body);
        break;
    case 3:
        approvalAnswer(input.body);
        break;
    case 4:
        limits(input.body);
        break;
    default:
        hostSecret(input.body);
        break;
    }
    return 0;
}
