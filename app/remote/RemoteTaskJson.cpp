#include "app/remote/RemoteTaskJson.h"

#include "agent_core/protocol/EventPayloads.h"
#include "agent_core/protocol/EventTypes.h"
#include "app/wire/ProviderKeyBody.h"
#include "app/wire/TaskRequest.h"
#include "common/JsonFields.h"

namespace warren::remote {

using nlohmann::json;
using json_fields::memberString;

json taskRequestJson(const std::string& prompt, const std::string& uploadId, const control::TaskSpec& spec,
                     const json& script, std::optional<wire::MoveOrigin> moved) {
    wire::TaskRequest request;
    request.prompt = prompt;
    request.workspace = uploadId;
    request.network = spec.network;
    if (!script.is_null())
        request.script = script;
    else
        request.provider = spec.provider;
    request.model = spec.model;
    request.presets = spec.presets;
    if (spec.overrides.is_object())
        request.settings = spec.overrides;
    if (spec.timeoutSec > 0)
        request.limits = {{"timeout_sec", spec.timeoutSec}};
    request.tokenBudget = spec.tokenBudget;
    request.attended = spec.attended;
    request.agent = spec.agent;
    request.secrets = spec.secrets; // the user's on the server (PUT /v1/me/secrets/{name})
    request.moved = std::move(moved);
    return request.toJson();
}

std::optional<control::ApprovalRecord> approvalFromEvent(const std::string& taskId, const json& event) {
    if (!event.is_object() || memberString(event, "type") != protocol::event_type::kApprovalRequested)
        return std::nullopt;
    const auto data = event.find("data");
    if (data == event.end())
        return std::nullopt;
    auto payload = protocol::ApprovalRequestedData::fromJson(*data);
    if (!payload)
        return std::nullopt;
    control::ApprovalRecord approval;
    approval.taskId = taskId;
    approval.callId = payload->id;
    approval.tool = memberString(event, "tool");
    approval.arguments = payload->arguments.dump();
    approval.reason = payload->reason;
    approval.requestedAt = memberString(event, "ts");
    return approval;
}

Result<EventsPage> eventsPageFromJson(const std::string& taskId, const json& answer) {
    auto page = EventsPage::fromJson(answer);
    if (!page)
        return makeError(ErrorCode::System, "warrend's events of " + taskId + " do not read: " + page.error().message);
    return page;
}

std::optional<json> eventFromStreamData(std::string_view data) {
    auto parsed = json_fields::parseJson(data);
    if (!parsed || !wire::hasSeq(*parsed))
        return std::nullopt;
    return std::move(*parsed);
}

bool listsProviderKey(const json& answer, const std::string& keyName) {
    return wire::ProviderKeyList::fromJson(answer).lists(keyName);
}

} // namespace warren::remote
