#include "sandbox/cluster/client/ApiStatus.h"

#include "common/JsonFields.h"

#include <nlohmann/json.hpp>

namespace warren::kube {

namespace {

// A member that is a string, else "": the body is the API server's (or whatever answers at its address),
// and a member of another type must read as absent, not throw.
std::string stringMember(const nlohmann::json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

} // namespace

ApiFailure describeApiFailure(int status, std::string_view body, const std::string& what,
                              const std::string& server) {
    ApiFailure failure;
    failure.status = status;
    std::string message;
    std::string causes;
    auto parsed = json_fields::parseJson(body);
    const nlohmann::json document = parsed ? std::move(*parsed) : nlohmann::json();
    if (document.is_object() && stringMember(document, "kind") == "Status") {
        failure.reason = stringMember(document, "reason");
        message = stringMember(document, "message");
        const auto details = document.find("details");
        if (details != document.end() && details->is_object() && details->contains("causes") &&
            (*details)["causes"].is_array()) {
            for (const auto& cause : (*details)["causes"]) {
                if (!cause.is_object())
                    continue;
                const std::string field = stringMember(cause, "field");
                causes += "\n  " + (field.empty() ? std::string() : field + ": ") + stringMember(cause, "message");
            }
        }
    }
    const std::string said = message.empty() ? std::string() : ": " + message;
    std::string text;
    ErrorCode code = ErrorCode::InvalidArgument;
    switch (status) {
    case 401:
        text = what + " failed: the cluster at " + server + " did not accept our credentials (401 Unauthorized" +
               said + "); check the kubeconfig's token or client certificate";
        break;
    case 403:
        text = what + " failed: forbidden (403" + said +
               "); the account needs the Role in packaging/kubernetes/rbac.yaml (docs/DEPLOY.md)";
        break;
    case 404:
        code = ErrorCode::NotFound;
        text = what + " failed: not found (404" + said + ")";
        break;
    case 409:
        text = what + " failed: " + (failure.reason == "AlreadyExists" ? "it already exists" : "conflict") +
               " (409" + said + "); delete the old object or choose another name";
        break;
    case 410:
        code = ErrorCode::Unavailable;
        text = what + " failed: the resource version is too old (410 Gone" + said + ")";
        break;
    case 422:
        text = what + " was refused as invalid (422" + said + ")" + causes;
        break;
    case 429:
        code = ErrorCode::Unavailable;
        text = what + " failed: the API server is throttling us (429" + said + "); try again shortly";
        break;
    default:
        if (status >= 500) {
            code = ErrorCode::Unavailable;
            text = what + " failed: the API server answered " + std::to_string(status) + said +
                   "; the cluster may be starting or overloaded, try again";
        } else {
            text = what + " failed: the API server answered " + std::to_string(status) + said;
        }
    }
    failure.error = makeError(code, std::move(text));
    return failure;
}

} // namespace warren::kube
