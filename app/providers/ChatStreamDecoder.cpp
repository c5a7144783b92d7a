#include "app/providers/ChatStreamDecoder.h"

#include "common/Utf8.h"

namespace warren::control {

std::string excerpt(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes)
        return std::string(text);
    // Cut on a character boundary so the message stays valid UTF-8.
    return std::string(utf8Prefix(text, maxBytes)) + "...";
}

namespace stream_json {

using nlohmann::json;

Error malformed(const std::string& what, const std::string& data) {
    return makeError(ErrorCode::System, "the model server sent " + what + ": data: " + excerpt(data, kLineExcerpt));
}

std::string stringOr(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint64_t uintOr(const json& object, const char* key, std::uint64_t fallback) {
    const auto it = object.find(key);
    return it != object.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : fallback;
}

const json* objectAt(const json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_object() ? &*it : nullptr;
}

} // namespace stream_json

} // namespace warren::control
