#pragma once
// Strict reading of JSON objects that come from a peer: unknown keys are errors (a misspelt key must not
// be silently ignored), every type is checked, and every message names where in the document it failed.
// Shared by every strict reader (the wire protocol, the sandbox profile, the seccomp table, presets,
// checkpoints, approval rules).

#include "common/Result.h"

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warren::json_fields {

// Nesting deeper than this is refused before parsing: copying, printing and destroying a JSON value
// recurse, and a peer's 8 MiB line of "[[[[..." would otherwise overflow the stack.
inline constexpr std::size_t kMaxJsonDepth = 128;

struct ParseOptions {
    // nlohmann keeps the last of two equal keys without a word; a table that must not silently drop a
    // setting (the seccomp table) refuses them instead.
    bool rejectDuplicateKeys = false;
};

// Parses text as one JSON value; the error says where it failed ("at line 1, column 5: ...") or which key
// appeared twice ("key \"id\" appears twice in one object").
Result<nlohmann::json> parseJson(std::string_view text, ParseOptions options = {});

// "a string", "an object", "the number 1.5": what a value is, for error messages.
std::string describeJson(const nlohmann::json& value);

// The value as a non-negative integer, or nullopt (a negative, a fraction, a string, true), for a reader
// that words its message its own way. A value built in C++ from an int is signed even when it is not
// negative; one parsed from text is unsigned: both count.
std::optional<std::uint64_t> asUint(const nlohmann::json& value);

// object[key] when it is a string, else "" (missing, another type, or object not an object at all): for
// readers of answers from outside that take what they can and never throw.
std::string memberString(const nlohmann::json& object, const char* key);
// object[key] as asUint reads it, else 0 (missing, not a non-negative integer, object not an object).
std::uint64_t memberUint(const nlohmann::json& object, const char* key);
// object[key] when it is a boolean, else false (json::value would throw on a member of another type).
bool memberBool(const nlohmann::json& object, const char* key);

// The first key of object not in allowed, for a reader that words the error its own way.
std::optional<std::string> findUnknownKey(const nlohmann::json& object,
                                          std::span<const std::string_view> allowed);
inline std::optional<std::string> findUnknownKey(const nlohmann::json& object,
                                                 std::initializer_list<std::string_view> allowed) {
    return findUnknownKey(object, std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

// Whether the unknown-key message lists the known keys: worth it where a person writes the document.
enum class ListKnown { No, Yes };

// "where: unknown key \"k\"" for the first key of object not in allowed, followed by
// " (known: a, b, c)" with ListKnown::Yes.
Status checkKeys(const nlohmann::json& object, std::span<const std::string_view> allowed,
                 const std::string& where, ListKnown list = ListKnown::No);
inline Status checkKeys(const nlohmann::json& object, std::initializer_list<std::string_view> allowed,
                        const std::string& where, ListKnown list = ListKnown::No) {
    return checkKeys(object, std::span<const std::string_view>(allowed.begin(), allowed.size()), where, list);
}

Status requireObject(const nlohmann::json& value, const std::string& where);

// Required fields: an error names where and the key when missing or of the wrong type.
Result<std::string> getString(const nlohmann::json& object, const char* key, const std::string& where);
Result<std::uint64_t> getUint(const nlohmann::json& object, const char* key, const std::string& where);
Result<bool> getBool(const nlohmann::json& object, const char* key, const std::string& where);
// A whole number from min to max: "must be a whole number from 0 to 5, got the integer 6".
Result<std::int64_t> getInt(const nlohmann::json& object, const char* key, const std::string& where,
                            std::int64_t min, std::int64_t max);
// Any value, or only an object.
Result<nlohmann::json> getValue(const nlohmann::json& object, const char* key, const std::string& where);
Result<nlohmann::json> getObject(const nlohmann::json& object, const char* key, const std::string& where);

// Optional fields: nullopt when absent; an error when present with the wrong type.
Result<std::optional<std::string>> getOptionalString(const nlohmann::json& object, const char* key,
                                                     const std::string& where);
Result<std::optional<std::uint64_t>> getOptionalUint(const nlohmann::json& object, const char* key,
                                                     const std::string& where);
Result<std::optional<bool>> getOptionalBool(const nlohmann::json& object, const char* key,
                                            const std::string& where);
// A whole number from min to max (getInt) when present.
Result<std::optional<std::int64_t>> getOptionalInt(const nlohmann::json& object, const char* key,
                                                   const std::string& where, std::int64_t min,
                                                   std::int64_t max);

// Nullable fields: nullopt when absent or null (a writer says "none" with null).
Result<std::optional<std::string>> getNullableString(const nlohmann::json& object, const char* key,
                                                     const std::string& where);
Result<std::optional<std::int64_t>> getNullableInt(const nlohmann::json& object, const char* key,
                                                   const std::string& where);

// An object-valued field (getObject), an empty object when absent.
Result<nlohmann::json> getOptionalObject(const nlohmann::json& object, const char* key,
                                         const std::string& where);

// Moves a successful result into out, or its error into error: keeps field-by-field readers flat.
//   if (!take(getString(object, "name", where), call.name, error)) return error;
template <typename T> bool take(Result<T>&& result, T& out, Error& error) {
    if (!result) {
        error = result.error();
        return false;
    }
    out = std::move(result).value();
    return true;
}

// For a reader that fills a struct over its defaults: an absent optional field leaves out as it was.
//   if (!takeIfPresent(getOptionalUint(limits, "pids", where), profile.pids, error)) return error;
template <typename T, typename Out>
bool takeIfPresent(Result<std::optional<T>>&& result, Out& out, Error& error) {
    if (!result) {
        error = result.error();
        return false;
    }
    if (result.value())
        out = static_cast<Out>(std::move(*result.value()));
    return true;
}

inline bool take(Status&& status, Error& error) {
    if (!status) {
        error = status.error();
        return false;
    }
    return true;
}

// "where.key", or "key" when where is empty.
std::string joinPath(const std::string& where, std::string_view key);

// A string element of an array, for getArray.
Result<std::string> readString(const nlohmann::json& value, const std::string& where);

// The array at key, each element read with read(element, "where.key[i]"); absent is an error when
// required, else an empty array.
template <typename T, typename Read>
Result<std::vector<T>> getArray(const nlohmann::json& object, const char* key, const std::string& where,
                                bool required, Read read) {
    std::vector<T> out;
    const auto it = object.find(key);
    if (it == object.end()) {
        if (required)
            return makeError(ErrorCode::InvalidArgument, joinPath(where, key) + ": missing");
        return out;
    }
    if (!it->is_array())
        return makeError(ErrorCode::InvalidArgument,
                         joinPath(where, key) + ": must be an array, got " + describeJson(*it));
    std::size_t i = 0;
    for (const auto& item : *it) {
        auto element = read(item, joinPath(where, key) + "[" + std::to_string(i++) + "]");
        if (!element)
            return element.error();
        out.push_back(std::move(element).value());
    }
    return out;
}

// The array of strings at key (see getArray).
Result<std::vector<std::string>> getStringArray(const nlohmann::json& object, const char* key,
                                                const std::string& where, bool required);

} // namespace warren::json_fields
