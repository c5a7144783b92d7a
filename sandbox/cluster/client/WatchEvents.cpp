#include "sandbox/cluster/client/WatchEvents.h"

#include "common/JsonFields.h"

#include <array>
#include <string>

namespace warren::kube {

using nlohmann::json;

namespace {

const json& member(const json& object, const char* name) {
    static const json null;
    if (!object.is_object())
        return null;
    const auto found = object.find(name);
    return found == object.end() ? null : *found;
}

std::string text(const json& object, const char* name) {
    const json& value = member(object, name);
    return value.is_string() ? value.get<std::string>() : std::string();
}

const json* condition(const json& status, const std::string& type) {
    const json& conditions = member(status, "conditions");
    if (!conditions.is_array())
        return nullptr;
    for (const auto& c : conditions) {
        if (text(c, "type") == type)
            return &c;
    }
    return nullptr;
}

// Waiting reasons that do not go away by waiting: the user must change the image, the pull secret or the spec.
bool isStuckReason(const std::string& reason) {
    static const std::array<const char*, 6> reasons = {"ImagePullBackOff",         "ErrImagePull",
                                                       "InvalidImageName",         "CreateContainerConfigError",
                                                       "CreateContainerError",     "ErrImageNeverPull"};
    for (const char* r : reasons) {
        if (reason == r)
            return true;
    }
    return false;
}

// The first container's terminated state, else its last one (the container restarted), or null.
const json& terminatedState(const json& status) {
    static const json null;
    const json& statuses = member(status, "containerStatuses");
    if (!statuses.is_array() || statuses.empty())
        return null;
    const json& first = statuses[0];
    const json& now = member(member(first, "state"), "terminated");
    if (now.is_object())
        return now;
    const json& last = member(member(first, "lastState"), "terminated");
    return last.is_object() ? last : null;
}

} // namespace

Result<WatchEvent> parseWatchEvent(std::string_view line) {
    // Depth-capped: the event's object is copied and may be dumped into a message.
    auto parsed = json_fields::parseJson(line);
    const json document = parsed ? std::move(*parsed) : json();
    if (!document.is_object() || !member(document, "type").is_string() || !member(document, "object").is_object())
        return makeError(ErrorCode::InvalidArgument,
                         "the API server's watch sent a line that is not an event: " +
                             std::string(line.substr(0, 200)));
    const std::string type = document["type"].get<std::string>();
    WatchEvent event;
    if (type == "ADDED")
        event.type = WatchEventType::Added;
    else if (type == "MODIFIED")
        event.type = WatchEventType::Modified;
    else if (type == "DELETED")
        event.type = WatchEventType::Deleted;
    else if (type == "BOOKMARK")
        event.type = WatchEventType::Bookmark;
    else if (type == "ERROR")
        event.type = WatchEventType::Error;
    else
        return makeError(ErrorCode::InvalidArgument, "the API server's watch sent an event of unknown type \"" +
                                                         type + "\"");
    event.object = document["object"];
    return event;
}

std::string resourceVersionOf(const json& object) { return text(member(object, "metadata"), "resourceVersion"); }

std::string nameOf(const json& object) { return text(member(object, "metadata"), "name"); }

const json& itemsOf(const json& list) {
    static const json none = json::array();
    const json& items = member(list, "items");
    return items.is_array() ? items : none;
}

bool isResourceVersionExpired(const WatchEvent& event) {
    if (event.type != WatchEventType::Error)
        return false;
    const json& code = member(event.object, "code");
    const std::string reason = text(event.object, "reason");
    return (code.is_number_integer() && code.get<int>() == 410) || reason == "Expired" || reason == "Gone";
}

std::string watchErrorMessage(const WatchEvent& event) {
    std::string message = text(event.object, "message");
    return message.empty() ? event.object.dump() : message;
}

PodState podState(const json& pod) {
    const json& status = member(pod, "status");
    const std::string phase = text(status, "phase");
    PodState state;
    if (phase == "Succeeded" || phase == "Failed") {
        state.progress = PodProgress::Ended;
        state.succeeded = phase == "Succeeded";
        state.reason = text(status, "reason"); // DeadlineExceeded, Evicted
        state.message = text(status, "message");
        const json& terminated = terminatedState(status);
        if (terminated.is_object()) {
            const json& code = member(terminated, "exitCode");
            if (code.is_number_integer())
                state.exitCode = code.get<int>();
            if (state.reason.empty())
                state.reason = text(terminated, "reason"); // OOMKilled, Error, Completed
            if (state.message.empty())
                state.message = text(terminated, "message");
        }
        return state;
    }
    if (phase == "Running") {
        const json* ready = condition(status, "Ready");
        state.progress = ready && text(*ready, "status") == "True" ? PodProgress::Ready : PodProgress::Running;
        return state;
    }
    // Pending (or no status yet): why it waits.
    if (const json* scheduled = condition(status, "PodScheduled");
        scheduled && text(*scheduled, "status") == "False") {
        state.reason = text(*scheduled, "reason");
        state.message = text(*scheduled, "message");
        if (state.reason == "Unschedulable")
            state.progress = PodProgress::Stuck;
        return state;
    }
    const json& statuses = member(status, "containerStatuses");
    if (statuses.is_array() && !statuses.empty()) {
        const json& waiting = member(member(statuses[0], "state"), "waiting");
        state.reason = text(waiting, "reason");
        state.message = text(waiting, "message");
        if (isStuckReason(state.reason))
            state.progress = PodProgress::Stuck;
    }
    return state;
}

PodState sandboxState(const json& sandbox) {
    PodState state;
    const json* ready = condition(member(sandbox, "status"), "Ready");
    if (!ready)
        return state;
    state.reason = text(*ready, "reason");
    state.message = text(*ready, "message");
    if (text(*ready, "status") == "True")
        state.progress = PodProgress::Ready;
    return state;
}

std::string describePodState(const PodState& state) {
    const std::string why = state.reason.empty() ? std::string() : " (" + state.reason + ")";
    const std::string said = state.message.empty() ? std::string() : ": " + state.message;
    switch (state.progress) {
    case PodProgress::Waiting:
        return "Waiting" + why + said;
    case PodProgress::Stuck:
        return "Stuck" + why + said;
    case PodProgress::Running:
        return "Running" + why;
    case PodProgress::Ready:
        return "Ready";
    case PodProgress::Ended:
        if (state.exitCode)
            return std::string(state.succeeded ? "Succeeded" : "Failed") + " with exit code " +
                   std::to_string(*state.exitCode) + why + said;
        return std::string(state.succeeded ? "Succeeded" : "Failed") + why + said;
    }
    return {};
}

} // namespace warren::kube
