#include "app/wire/ProviderKeyBody.h"

#include "app/wire/Member.h"
#include "common/JsonFields.h"
#include "common/Utf8.h"

#include <algorithm>

namespace warren::wire {

using nlohmann::json;

namespace {

Error refuse(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message);
}

const char* const kShape = R"(; send {"key": "..."} and nothing else)";

} // namespace

json ProviderKeyBody::toJson() const {
    return {{"key", key}};
}

Result<ProviderKeyBody> ProviderKeyBody::fromJson(std::string_view body) {
    // The parser's own messages quote what it read last: none of them is passed on.
    if (firstInvalidUtf8(body))
        return refuse(std::string("the request body is not UTF-8") + kShape);
    auto parsed =
        json_fields::parseJson(body, json_fields::ParseOptions{true}); // strict: two keys, two meanings
    if (!parsed || !parsed->is_object())
        return refuse(std::string("the request body is not a JSON object") + kShape);
    // Not named: a key pasted as a field's name would be repeated.
    if (parsed->size() > 1 || (parsed->size() == 1 && !parsed->contains("key")))
        return refuse(std::string("the request body has a field other than \"key\"") + kShape);
    const auto key = parsed->find("key");
    if (key == parsed->end() || !key->is_string())
        return refuse(std::string("key: a string is required") + kShape);
    const std::string& text = key->get_ref<const std::string&>();
    if (text.empty())
        return refuse("key: is empty; to remove a key, DELETE it");
    if (text.size() > kMaxProviderKeyBytes)
        return refuse("key: longer than " + std::to_string(kMaxProviderKeyBytes) + " bytes");
    const bool visible = std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < '\x7f'; });
    if (!visible)
        return refuse("key: holds a space, a control or a non-ASCII character; providers' keys are visible "
                      "ASCII");
    return ProviderKeyBody{text};
}

json ProviderKeyList::toJson() const {
    json list = json::array();
    for (const auto& entry : keys)
        list.push_back({{"provider", entry.provider}, {"updated_at", entry.updatedAt}});
    return {{"provider_keys", list}};
}

ProviderKeyList ProviderKeyList::fromJson(const json& answer) {
    ProviderKeyList read;
    const json& list = member(answer, "provider_keys");
    if (!list.is_array())
        return read;
    for (const auto& item : list)
        if (auto provider = json_fields::memberString(item, "provider"); !provider.empty())
            read.keys.push_back({std::move(provider), json_fields::memberString(item, "updated_at")});
    return read;
}

bool ProviderKeyList::lists(const std::string& provider) const {
    return std::any_of(keys.begin(), keys.end(), [&](const ProviderKeyEntry& entry) { return entry.provider == provider; });
}

} // namespace warren::wire
