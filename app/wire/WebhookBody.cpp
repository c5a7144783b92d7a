#include "app/wire/WebhookBody.h"

#include "common/JsonFields.h"
#include "common/Utf8.h"

#include <algorithm>
#include <array>
#include <utility>

namespace warren::wire {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<WebhookEvent, std::string_view>, 4> kEventNames{{
    {WebhookEvent::TaskCreated, "task.created"},
    {WebhookEvent::TaskStarted, "task.started"},
    {WebhookEvent::TaskWaiting, "task.waiting"},
    {WebhookEvent::TaskFinished, "task.finished"},
}};

const char* const kShape =
    "; send {\"url\": \"https://example.com/hook\", \"events\": [\"task.created\", \"task.started\", "
    "\"task.waiting\", \"task.finished\"]}";

Error refuse(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message + kShape);
}

json eventNames(const std::vector<WebhookEvent>& events) {
    json names = json::array();
    for (const WebhookEvent event : events)
        names.push_back(std::string(webhookEventName(event)));
    return names;
}

Result<json> parseObject(std::string_view body) {
    if (firstInvalidUtf8(body))
        return makeError(ErrorCode::InvalidArgument, "the request body is not UTF-8");
    auto parsed = json_fields::parseJson(body, json_fields::ParseOptions{true});
    if (!parsed || !parsed->is_object())
        return makeError(ErrorCode::InvalidArgument, "the request body is not a JSON object");
    return parsed;
}

} // namespace

std::string_view webhookEventName(WebhookEvent event) {
    for (const auto& [value, name] : kEventNames)
        if (value == event)
            return name;
    return "task.created";
}

std::optional<WebhookEvent> webhookEventFromName(std::string_view name) {
    for (const auto& [value, text] : kEventNames)
        if (text == name)
            return value;
    return std::nullopt;
}

std::vector<WebhookEvent> allWebhookEvents() {
    std::vector<WebhookEvent> all;
    for (const auto& [value, name] : kEventNames)
        all.push_back(value);
    return all;
}

std::string joinWebhookEvents(const std::vector<WebhookEvent>& events) {
    std::string text;
    for (const WebhookEvent event : events)
        text += (text.empty() ? "" : ",") + std::string(webhookEventName(event));
    return text;
}

std::vector<WebhookEvent> splitWebhookEvents(std::string_view text) {
    std::vector<WebhookEvent> events;
    while (!text.empty()) {
        const auto comma = text.find(',');
        if (const auto event = webhookEventFromName(text.substr(0, comma)))
            events.push_back(*event);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return events;
}

json WebhookRequest::toJson() const {
    return {{"url", url}, {"events", eventNames(events)}};
}

Result<WebhookRequest> WebhookRequest::fromJson(std::string_view body) {
    auto parsed = parseObject(body);
    if (!parsed)
        return refuse(parsed.error().message);
    if (json_fields::findUnknownKey(*parsed, {"url", "events"}))
        return refuse("the request body has a field other than \"url\" and \"events\"");
    WebhookRequest out;
    const auto url = parsed->find("url");
    if (url == parsed->end() || !url->is_string())
        return refuse("url: a string is required");
    out.url = url->get<std::string>();
    const auto events = parsed->find("events");
    if (events == parsed->end()) {
        out.events = allWebhookEvents();
        return out;
    }
    if (!events->is_array() || events->empty())
        return refuse("events: must be a non-empty array of event names");
    const json& names = *events;
    for (std::size_t i = 0; i < names.size(); ++i) { // by index: GCC sees a null iterator in a range-for here
        const json& name = names[i];
        const auto event = name.is_string() ? webhookEventFromName(name.get<std::string>()) : std::nullopt;
        if (!event)
            return refuse(
                "events: each must be one of task.created, task.started, task.waiting, task.finished");
        if (std::find(out.events.begin(), out.events.end(), *event) != out.events.end())
            return refuse("events: " + std::string(webhookEventName(*event)) + " is named twice");
        out.events.push_back(*event);
    }
    return out;
}

json WebhookEntry::toJson() const {
    json entry = {{"id", id}, {"url", url}, {"events", eventNames(events)}, {"created_at", createdAt}};
    if (!secret.empty())
        entry["secret"] = secret;
    json counts = {{"delivered", deliveries.delivered}, {"failed", deliveries.failed}};
    if (!deliveries.lastError.empty())
        counts["last_error"] = deliveries.lastError;
    entry["deliveries"] = counts;
    return entry;
}

json WebhookList::toJson() const {
    json list = json::array();
    for (const auto& entry : webhooks)
        list.push_back(entry.toJson());
    return {{"webhooks", list}};
}

json WebhookDelivery::toJson() const {
    return {{"id", id},
            {"type", std::string(webhookEventName(type))},
            {"created_at", createdAt},
            {"task", {{"id", taskId}, {"status", status}}}};
}

Result<WebhookDelivery> WebhookDelivery::fromJson(std::string_view body) {
    auto parsed = parseObject(body);
    if (!parsed)
        return parsed.error();
    const json& value = *parsed;
    const auto text = [&](const json& object, const char* key) -> std::optional<std::string> {
        const auto found = object.find(key);
        return found != object.end() && found->is_string() ? std::optional(found->get<std::string>())
                                                           : std::nullopt;
    };
    const auto task = value.find("task");
    const auto id = text(value, "id"), type = text(value, "type"), createdAt = text(value, "created_at");
    if (json_fields::findUnknownKey(value, {"id", "type", "created_at", "task"}) || !id || !type ||
        !createdAt || task == value.end() || !task->is_object() ||
        json_fields::findUnknownKey(*task, {"id", "status"}))
        return makeError(ErrorCode::InvalidArgument,
                         "not a webhook delivery: {\"id\", \"type\", \"created_at\", "
                         "\"task\": {\"id\", \"status\"}}");
    const auto event = webhookEventFromName(*type);
    const auto taskId = text(*task, "id"), status = text(*task, "status");
    if (!event || !taskId || !status)
        return makeError(ErrorCode::InvalidArgument, "not a webhook delivery: its type or task is not one");
    return WebhookDelivery{*id, *event, *createdAt, *taskId, *status};
}

} // namespace warren::wire
