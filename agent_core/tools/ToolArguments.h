#pragma once
// Strict reading of a tool call's arguments, shared by the file tools: a misspelt or unknown argument is
// refused with the allowed ones listed, and a wrong type is named, so the model can correct its call
// instead of having an argument silently ignored. Every message starts with the tool's name.

#include "common/JsonFields.h"
#include "common/Result.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warren::agent {

class ToolArguments {
public:
    // Null arguments count as {}: a model may send no arguments for a tool whose arguments are optional.
    static Result<ToolArguments> read(std::string_view tool, const nlohmann::json& arguments,
                                      std::initializer_list<std::string_view> allowed) {
        static const nlohmann::json empty = nlohmann::json::object();
        const nlohmann::json& object = arguments.is_null() ? empty : arguments;
        ToolArguments reader(tool, object);
        if (!object.is_object())
            return reader.error("arguments must be an object, got " + json_fields::describeJson(object));
        if (const auto unknown = json_fields::findUnknownKey(object, allowed)) {
            std::string list;
            for (const auto name : allowed)
                list += (list.empty() ? "" : ", ") + std::string(name);
            return reader.error("unknown argument \"" + *unknown + "\" (allowed: " + list + ")");
        }
        return reader;
    }

    Result<std::string> string(const char* key) const {
        const auto value = m_arguments->find(key);
        if (value == m_arguments->end() || value->is_null())
            return error("missing required argument \"" + std::string(key) + "\"");
        if (!value->is_string())
            return wrongType(key, "a string", *value);
        return value->get<std::string>();
    }

    // Optional arguments: nullopt when absent or null (how some models spell "not given").
    Result<std::optional<std::string>> optionalString(const char* key) const {
        const nlohmann::json* value = find(key);
        if (!value)
            return std::optional<std::string>();
        if (!value->is_string())
            return wrongType(key, "a string", *value);
        return std::optional<std::string>(value->get<std::string>());
    }

    // A non-negative integer; 3.0 is accepted as 3, 3.5 is not.
    Result<std::optional<std::uint64_t>> optionalUint(const char* key) const {
        const nlohmann::json* value = find(key);
        if (!value)
            return std::optional<std::uint64_t>();
        if (const auto number = json_fields::asUint(*value))
            return number;
        if (value->is_number_float()) {
            const double number = value->get<double>();
            if (number >= 0 && number <= 9007199254740992.0 && std::floor(number) == number)
                return std::optional<std::uint64_t>(static_cast<std::uint64_t>(number));
        }
        return wrongType(key, "a non-negative integer", *value);
    }

    Result<std::optional<bool>> optionalBool(const char* key) const {
        const nlohmann::json* value = find(key);
        if (!value)
            return std::optional<bool>();
        if (!value->is_boolean())
            return wrongType(key, "true or false", *value);
        return std::optional<bool>(value->get<bool>());
    }

    // "read_file: " + message, as an Error to hand back.
    Error error(const std::string& message) const {
        return makeError(ErrorCode::InvalidArgument, m_tool + ": " + message);
    }

private:
    ToolArguments(std::string_view tool, const nlohmann::json& arguments)
        : m_tool(tool), m_arguments(&arguments) {}

    const nlohmann::json* find(const char* key) const {
        const auto value = m_arguments->find(key);
        return value == m_arguments->end() || value->is_null() ? nullptr : &*value;
    }

    Error wrongType(const char* key, const char* expected, const nlohmann::json& value) const {
        return error("argument \"" + std::string(key) + "\" must be " + expected + ", got " +
                     json_fields::describeJson(value));
    }

    std::string m_tool;
    const nlohmann::json* m_arguments; // the call's arguments: a reader lives only while run() does
};

} // namespace warren::agent
