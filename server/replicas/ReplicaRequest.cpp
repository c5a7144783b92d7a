#include "server/replicas/ReplicaRequest.h"

namespace warren::server {

namespace {

constexpr const char* kKinds[] = {"answer", "waiting", "cancel"};

Error notOne(const std::string& what) {
    return makeError(ErrorCode::InvalidArgument, "not a request between replicas: " + what);
}

} // namespace

nlohmann::json ReplicaRequest::toJson() const {
    nlohmann::json json{{"kind", kKinds[static_cast<int>(kind)]}};
    switch (kind) {
    case Kind::Answer:
        json.update({{"call", callId}, {"approved", approved}, {"note", note}, {"always", always}});
        break;
    case Kind::Waiting:
        json["call"] = callId;
        break;
    case Kind::Cancel:
        json["why"] = why;
        break;
    }
    return json;
}

Result<ReplicaRequest> ReplicaRequest::fromJson(const nlohmann::json& json) {
    if (!json.is_object() || !json.contains("kind") || !json["kind"].is_string())
        return notOne("no kind");
    ReplicaRequest request;
    const std::string kind = json["kind"];
    const auto text = [&json](const char* key) -> std::optional<std::string> {
        const auto found = json.find(key);
        return found != json.end() && found->is_string() ? std::optional(found->get<std::string>()) : std::nullopt;
    };
    const auto flag = [&json](const char* key) -> std::optional<bool> {
        const auto found = json.find(key);
        return found != json.end() && found->is_boolean() ? std::optional(found->get<bool>()) : std::nullopt;
    };
    if (kind == "answer") {
        const auto call = text("call"), note = text("note");
        const auto approved = flag("approved"), always = flag("always");
        if (!call || !note || !approved || !always)
            return notOne("an answer needs call, approved, note and always");
        request = {Kind::Answer, *call, *approved, *note, *always, {}};
    } else if (kind == "waiting") {
        const auto call = text("call");
        if (!call)
            return notOne("a question needs its call");
        request = {Kind::Waiting, *call, false, {}, false, {}};
    } else if (kind == "cancel") {
        const auto why = text("why");
        if (!why)
            return notOne("a cancel needs why");
        request = {Kind::Cancel, {}, false, {}, false, *why};
    } else {
        return notOne("kind " + kind);
    }
    return request;
}

nlohmann::json ReplicaAnswer::toJson() const {
    return {{"done", done}, {"error", error}};
}

Result<ReplicaAnswer> ReplicaAnswer::fromJson(const nlohmann::json& json) {
    if (!json.is_object() || !json.contains("done") || !json["done"].is_boolean() || !json.contains("error") ||
        !json["error"].is_string())
        return notOne("an answer needs done and error");
    return ReplicaAnswer{json["done"].get<bool>(), json["error"].get<std::string>()};
}

} // namespace warren::server
