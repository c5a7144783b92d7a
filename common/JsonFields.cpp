#include "common/JsonFields.h"

#include <algorithm>
#include <set>

namespace warren::json_fields {

using nlohmann::json;

namespace {

Error fieldError(const std::string& where, std::string_view key, const std::string& problem) {
    return makeError(ErrorCode::InvalidArgument, joinPath(where, key) + ": " + problem);
}

bool nestsDeeperThan(std::string_view text, std::size_t limit) {
    std::size_t depth = 0;
    bool inString = false;
    bool escaped = false;
    for (const char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit)
                return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return false;
}

// A parse callback that remembers the first key repeated within one object.
class DuplicateKeyCheck {
public:
    explicit DuplicateKeyCheck(std::string* duplicate) : m_duplicate(duplicate) {}

    bool operator()(int, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::object_start)
            m_open.emplace_back();
        else if (event == json::parse_event_t::object_end)
            m_open.pop_back();
        else if (event == json::parse_event_t::key &&
                 !m_open.back().insert(parsed.get<std::string>()).second && m_duplicate->empty())
            *m_duplicate = parsed.get<std::string>();
        return true;
    }

private:
    std::vector<std::set<std::string>> m_open;
    std::string* m_duplicate;
};

} // namespace

Result<json> parseJson(std::string_view text, ParseOptions options) {
    if (nestsDeeperThan(text, kMaxJsonDepth))
        return makeError(ErrorCode::InvalidArgument,
                         "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels is not accepted");
    try {
        if (!options.rejectDuplicateKeys)
            return json::parse(text);
        std::string duplicate;
        json document = json::parse(text.begin(), text.end(), DuplicateKeyCheck(&duplicate));
        if (!duplicate.empty())
            return makeError(ErrorCode::InvalidArgument,
                             "key \"" + duplicate + "\" appears twice in one object");
        return document;
    } catch (const json::exception& e) {
        // Mostly parse_error, but a number too large for a double is out_of_range: catch the base.
        // what() is "[json.exception.parse_error.101] parse error at line 1, ...": keep the readable part.
        std::string what = e.what();
        const auto start = what.find("] ");
        return makeError(ErrorCode::InvalidArgument,
                         start == std::string::npos ? what : what.substr(start + 2));
    }
}

std::string joinPath(const std::string& where, std::string_view key) {
    return where.empty() ? std::string(key) : where + "." + std::string(key);
}

std::string describeJson(const json& value) {
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string:
        return "a string";
    case json::value_t::boolean:
        return value.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return "the integer " + value.dump();
    case json::value_t::number_float:
        return "the number " + value.dump();
    default:
        return "an unsupported value";
    }
}

std::optional<std::uint64_t> asUint(const json& value) {
    if (value.is_number_unsigned())
        return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(value.get<std::int64_t>());
    return std::nullopt;
}

std::optional<std::string> findUnknownKey(const json& object, std::span<const std::string_view> allowed) {
    for (const auto& item : object.items()) {
        if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end())
            return item.key();
    }
    return std::nullopt;
}

Status checkKeys(const json& object, std::span<const std::string_view> allowed, const std::string& where,
                 ListKnown list) {
    const auto unknown = findUnknownKey(object, allowed);
    if (!unknown)
        return Ok{};
    std::string message = (where.empty() ? std::string() : where + ": ") + "unknown key \"" + *unknown + "\"";
    if (list == ListKnown::Yes) {
        std::string known;
        for (const auto key : allowed)
            known += (known.empty() ? "" : ", ") + std::string(key);
        message += " (known: " + known + ")";
    }
    return makeError(ErrorCode::InvalidArgument, message);
}

Status requireObject(const json& value, const std::string& where) {
    if (!value.is_object())
        return makeError(ErrorCode::InvalidArgument,
                         where + ": must be an object, got " + describeJson(value));
    return Ok{};
}

Result<std::string> getString(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end())
        return fieldError(where, key, "missing");
    if (!it->is_string())
        return fieldError(where, key, "must be a string, got " + describeJson(*it));
    return it->get<std::string>();
}

Result<std::uint64_t> getUint(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end())
        return fieldError(where, key, "missing");
    const auto number = asUint(*it);
    if (!number)
        return fieldError(where, key, "must be a non-negative integer, got " + describeJson(*it));
    return *number;
}

Result<bool> getBool(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end())
        return fieldError(where, key, "missing");
    if (!it->is_boolean())
        return fieldError(where, key, "must be true or false, got " + describeJson(*it));
    return it->get<bool>();
}

Result<std::int64_t> getInt(const json& object, const char* key, const std::string& where, std::int64_t min,
                            std::int64_t max) {
    const auto it = object.find(key);
    if (it == object.end())
        return fieldError(where, key, "missing");
    // Compared as the type nlohmann holds, so that neither a huge unsigned nor a negative wraps around.
    const bool inRange = (it->is_number_unsigned() && max >= 0 &&
                          it->get<std::uint64_t>() <= static_cast<std::uint64_t>(max) &&
                          (min <= 0 || it->get<std::uint64_t>() >= static_cast<std::uint64_t>(min))) ||
                         (it->is_number_integer() && !it->is_number_unsigned() &&
                          it->get<std::int64_t>() >= min && it->get<std::int64_t>() <= max);
    if (!inRange)
        return fieldError(where, key,
                          "must be a whole number from " + std::to_string(min) + " to " +
                              std::to_string(max) + ", got " + describeJson(*it));
    return it->get<std::int64_t>();
}

Result<json> getValue(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end())
        return fieldError(where, key, "missing");
    return *it;
}

Result<json> getObject(const json& object, const char* key, const std::string& where) {
    auto value = getValue(object, key, where);
    if (value && !value->is_object())
        return fieldError(where, key, "must be an object, got " + describeJson(*value));
    return value;
}

Result<std::optional<std::string>> getOptionalString(const json& object, const char* key,
                                                     const std::string& where) {
    if (!object.contains(key))
        return std::optional<std::string>();
    auto value = getString(object, key, where);
    if (!value)
        return value.error();
    return std::optional<std::string>(std::move(value).value());
}

Result<std::optional<std::uint64_t>> getOptionalUint(const json& object, const char* key,
                                                     const std::string& where) {
    if (!object.contains(key))
        return std::optional<std::uint64_t>();
    auto value = getUint(object, key, where);
    if (!value)
        return value.error();
    return std::optional<std::uint64_t>(value.value());
}

Result<std::optional<bool>> getOptionalBool(const json& object, const char* key, const std::string& where) {
    if (!object.contains(key))
        return std::optional<bool>();
    auto value = getBool(object, key, where);
    if (!value)
        return value.error();
    return std::optional<bool>(value.value());
}

Result<std::optional<std::int64_t>> getOptionalInt(const json& object, const char* key,
                                                   const std::string& where, std::int64_t min,
                                                   std::int64_t max) {
    if (!object.contains(key))
        return std::optional<std::int64_t>();
    auto value = getInt(object, key, where, min, max);
    if (!value)
        return value.error();
    return std::optional<std::int64_t>(value.value());
}

Result<std::optional<std::string>> getNullableString(const json& object, const char* key,
                                                     const std::string& where) {
    if (const auto it = object.find(key); it != object.end() && it->is_null())
        return std::optional<std::string>();
    return getOptionalString(object, key, where);
}

Result<std::optional<std::int64_t>> getNullableInt(const json& object, const char* key,
                                                   const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return std::optional<std::int64_t>();
    // An unsigned value above int64's range is not an exit code or any other signed field.
    const bool fits =
        it->is_number_integer() &&
        (!it->is_number_unsigned() || it->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX));
    if (!fits)
        return fieldError(where, key, "must be an integer or null, got " + describeJson(*it));
    return std::optional<std::int64_t>(it->get<std::int64_t>());
}

Result<json> getOptionalObject(const json& object, const char* key, const std::string& where) {
    if (!object.contains(key))
        return json::object();
    return getObject(object, key, where);
}

Result<std::string> readString(const nlohmann::json& value, const std::string& where) {
    if (!value.is_string())
        return makeError(ErrorCode::InvalidArgument,
                         where + ": must be a string, got " + describeJson(value));
    return value.get<std::string>();
}

Result<std::vector<std::string>> getStringArray(const json& object, const char* key, const std::string& where,
                                                bool required) {
    return getArray<std::string>(object, key, where, required, readString);
}

std::string memberString(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::uint64_t memberUint(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() ? 0 : asUint(*it).value_or(0);
}

bool memberBool(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_boolean() && it->get<bool>();
}

} // namespace warren::json_fields
