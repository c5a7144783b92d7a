#include "app/wire/HostSecretBody.h"

#include "common/JsonFields.h"
#include "common/Utf8.h"

namespace warren::wire {

using nlohmann::json;

namespace {

const char* const kShape =
    R"(; send {"value": "...", "hosts": "api.example.com", "header": "Authorization: Bearer {}", "in_body": false})";

Error refuse(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message + kShape);
}

} // namespace

json HostSecretBody::toJson() const {
    json body = {{"value", value}, {"hosts", hosts}};
    if (!header.empty())
        body["header"] = header;
    if (inBody)
        body["in_body"] = true;
    return body;
}

Result<HostSecretBody> HostSecretBody::fromJson(std::string_view body) {
    // The parser's own messages quote what it read last: none of them is passed on.
    if (firstInvalidUtf8(body))
        return refuse("the request body is not UTF-8");
    auto parsed = json_fields::parseJson(body, json_fields::ParseOptions{true});
    if (!parsed || !parsed->is_object())
        return refuse("the request body is not a JSON object");
    for (const auto& [name, member] : parsed->items()) {
        (void)member;
        if (name != "value" && name != "hosts" && name != "header" && name != "in_body")
            return refuse("the request body has a field other than \"value\", \"hosts\", \"header\" and \"in_body\"");
    }
    HostSecretBody out;
    if (const auto inBody = parsed->find("in_body"); inBody != parsed->end()) {
        if (!inBody->is_boolean())
            return refuse("in_body: must be true or false");
        out.inBody = inBody->get<bool>();
    }
    for (const auto& [name, target] : {std::pair<const char*, std::string*>{"value", &out.value}, {"hosts", &out.hosts},
                                       {"header", &out.header}}) {
        const auto found = parsed->find(name);
        if (found == parsed->end()) {
            if (std::string_view(name) != "header")
                return refuse(std::string(name) + ": a string is required");
            continue;
        }
        if (!found->is_string())
            return refuse(std::string(name) + ": must be a string");
        *target = found->get<std::string>();
    }
    return out;
}

std::string_view secretScopeName(SecretScope scope) {
    return scope == SecretScope::Tenant ? "tenant" : "user";
}

json HostSecretList::toJson() const {
    json list = json::array();
    for (const auto& entry : secrets)
        list.push_back({{"name", entry.name}, {"hosts", entry.hosts}, {"header", entry.header},
                        {"in_body", entry.inBody}, {"updated_at", entry.updatedAt},
                        {"scope", secretScopeName(entry.scope)}});
    return {{"secrets", list}};
}

HostSecretList HostSecretList::fromJson(const json& answer) {
    HostSecretList list;
    if (!answer.is_object() || !answer.contains("secrets") || !answer["secrets"].is_array())
        return list;
    for (const json& entry : answer["secrets"]) {
        if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
            continue;
        const auto inBody = entry.find("in_body");
        list.secrets.push_back({entry["name"].get<std::string>(), json_fields::memberString(entry, "hosts"),
                                json_fields::memberString(entry, "header"),
                                json_fields::memberString(entry, "updated_at"),
                                inBody != entry.end() && inBody->is_boolean() && inBody->get<bool>(),
                                json_fields::memberString(entry, "scope") == "tenant" ? SecretScope::Tenant
                                                                                      : SecretScope::User});
    }
    return list;
}

} // namespace warren::wire
