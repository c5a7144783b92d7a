// warrend's request bodies, as bytes, read the way the handlers read them (json_fields::parseJson, then the
// body's reader), through the reader the first byte picks:
//  0. POST /v1/tasks (parseTaskRequest): what it admits holds what it promises (a prompt, an upload id, a
//     script that parses, settings of scalars), and written back as a body it reads as the same request;
//  1. PUT /v1/me/provider-keys/{provider} (parseProviderKeyBody): a key is 1 to 4096 visible ASCII bytes, and
//     a refusal is a short fixed sentence (it never repeats the body, which may be the key);
//  2. POST /v1/tasks/{id}/reply (parseReplyRequest), 3. POST /v1/tasks/{id}/approvals/{call}
//     (parseApprovalAnswer): what they admit reads back the same;
//  4. a limits object (limitsFromJson, as a request's and as a quota's): written back, read the same.
// Nothing may crash, leak or trip a sanitizer.

#include "FuzzInput.h"

#include "agent_core/protocol/Script.h"
#include "common/JsonFields.h"
#include "server/accounts/Limits.h"
#include "server/api/AnswerRequest.h"
#include "server/api/ProviderKeyRequest.h"
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

json toBody(const server::TaskRequest& request) {
    json body = {{"prompt", request.prompt},   {"workspace", request.workspace}, {"presets", request.presets},
                 {"settings", request.settings}, {"network", request.network},   {"queue", request.queue},
                 {"attended", request.attended}, {"limits", setLimits(request.limits)}};
    if (!request.provider.empty())
        body["provider"] = request.provider;
    if (!request.model.empty())
        body["model"] = request.model;
    if (request.script)
        body["script"] = json::parse(*request.script);
    if (request.tokenBudget > 0)
        body["token_budget"] = request.tokenBudget;
    return body;
}

bool same(const server::TaskRequest& a, const server::TaskRequest& b) {
    return a.prompt == b.prompt && a.workspace == b.workspace && a.provider == b.provider && a.model == b.model &&
           a.script == b.script && a.presets == b.presets && a.settings == b.settings && a.network == b.network &&
           a.limits == b.limits && a.tokenBudget == b.tokenBudget && a.queue == b.queue && a.attended == b.attended;
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
    require(!request->prompt.empty() && !request->workspace.empty());
    require(!request->provider.starts_with("scripted"));
    require(!request->script || (request->provider.empty() && protocol::parseScript(*request->script, "s").ok()));
    require(request->settings.is_object());
    for (const auto& [key, value] : request->settings.items())
        require(value.is_string() || value.is_number() || value.is_boolean());
    for (const auto& info : accounts::allLimits())
        require(info.sandbox || !request->limits.get(info.name));
    auto again = server::parseTaskRequest(json::parse(toBody(*request).dump()));
    require(again.ok() && same(*again, *request));
}

void providerKey(std::string_view bytes) {
    auto key = server::parseProviderKeyBody(bytes);
    if (!key) {
        // A refused body may be the key itself: the message quotes none of it, so it is one of a few fixed
        // sentences whatever the body's size.
        require(key.error().message.size() <= 200);
        return;
    }
    require(!key->empty() && key->size() <= server::kMaxProviderKeyBytes);
    require(std::all_of(key->begin(), key->end(), [](char c) { return c > ' ' && c < '\x7f'; }));
    auto again = server::parseProviderKeyBody(json{{"key", *key}}.dump());
    require(again.ok() && *again == *key);
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
    auto answer = server::parseApprovalAnswer(*body);
    if (!answer)
        return;
    const json written = {{"approved", answer->approved}, {"note", answer->note}, {"always", answer->always}};
    auto again = server::parseApprovalAnswer(json::parse(written.dump()));
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
    switch (input.pick(5)) {
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
    default:
        limits(input.body);
        break;
    }
    return 0;
}
