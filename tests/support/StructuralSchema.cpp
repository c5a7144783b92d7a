#include "tests/support/StructuralSchema.h"

namespace warren::test {
namespace {

using nlohmann::json;

class Checker {
public:
    explicit Checker(const json& definitions) : m_definitions(definitions) {}

    void check(const json& value, const json& schemaIn, const std::string& path) {
        const json& schema = resolve(schemaIn);
        if (schema.is_null()) {
            fail(path, "the schema's $ref " + schemaIn.value("$ref", "") + " names no definition");
            return;
        }
        if (schema.value("x-kubernetes-int-or-string", false)) {
            if (!value.is_number_integer() && !value.is_string())
                fail(path, "expected an integer or a string");
            return;
        }
        const std::string type = schema.value("type", "");
        if (!type.empty() && !hasType(value, type, schema.value("format", ""))) {
            fail(path, "expected " + type + (schema.contains("format") ? " (" + schema["format"].get<std::string>() + ")" : "") +
                           ", found " + value.dump());
            return;
        }
        if (schema.contains("enum") && std::find(schema["enum"].begin(), schema["enum"].end(), value) == schema["enum"].end())
            fail(path, value.dump() + " is not one of " + schema["enum"].dump());
        if (schema.contains("maxLength") && value.is_string() && value.get<std::string>().size() > schema["maxLength"].get<std::size_t>())
            fail(path, "longer than " + schema["maxLength"].dump());
        if (value.is_object())
            checkObject(value, schema, path);
        if (value.is_array() && schema.contains("items"))
            for (std::size_t i = 0; i < value.size(); ++i)
                check(value[i], schema["items"], path + "[" + std::to_string(i) + "]");
    }

    std::vector<std::string> violations;

private:
    const json& resolve(const json& schema) const {
        static const json none;
        if (!schema.contains("$ref"))
            return schema;
        const std::string ref = schema["$ref"].get<std::string>();
        const std::string prefix = "#/definitions/";
        if (ref.rfind(prefix, 0) != 0 || !m_definitions.contains(ref.substr(prefix.size())))
            return none;
        return m_definitions[ref.substr(prefix.size())];
    }

    static bool hasType(const json& value, const std::string& type, const std::string& format) {
        if (type == "object")
            return value.is_object();
        if (type == "array")
            return value.is_array();
        if (type == "string")
            return value.is_string();
        if (type == "boolean")
            return value.is_boolean();
        if (type == "number")
            return value.is_number();
        if (type == "integer") {
            if (!value.is_number_integer())
                return false;
            if (format == "int32")
                return value.get<std::int64_t>() >= INT32_MIN && value.get<std::int64_t>() <= INT32_MAX;
            return true;
        }
        return false;
    }

    void checkObject(const json& value, const json& schema, const std::string& path) {
        const std::string prefix = path.empty() ? "" : path + ".";
        for (const auto& name : schema.value("required", json::array()))
            if (!value.contains(name.get<std::string>()))
                fail(prefix + name.get<std::string>(), "required, missing");
        const json properties = schema.value("properties", json::object());
        for (const auto& [name, field] : value.items()) {
            if (properties.contains(name))
                check(field, properties[name], prefix + name);
            else if (schema.contains("additionalProperties") && schema["additionalProperties"].is_object())
                check(field, schema["additionalProperties"], prefix + name);
            else if (!schema.value("x-kubernetes-preserve-unknown-fields", false) &&
                     !(schema.contains("additionalProperties") && schema["additionalProperties"] == true))
                fail(prefix + name, "not a field of the schema");
        }
    }

    void fail(const std::string& path, const std::string& what) { violations.push_back(path + ": " + what); }

    const json& m_definitions;
};

} // namespace

std::vector<std::string> schemaViolations(const json& document, const json& schema, const json& definitions) {
    Checker checker(definitions);
    checker.check(document, schema, "");
    return checker.violations;
}

} // namespace warren::test
