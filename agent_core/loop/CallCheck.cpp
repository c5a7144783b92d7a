#include "agent_core/loop/CallCheck.h"

#include "common/EditDistance.h"
#include "common/JsonFields.h"
#include "common/Utf8.h"

#include <algorithm>
#include <cmath>

namespace warren::agent {

using nlohmann::json;

namespace {

// Bytes of a bad argument text quoted back to the model: enough to see the mistake, not a second copy.
constexpr std::size_t kQuotedBytes = 200;

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names)
        out += (out.empty() ? "" : ", ") + name;
    return out;
}

std::vector<std::string> propertyNames(const json& schema) {
    std::vector<std::string> names;
    if (const auto properties = schema.find("properties"); properties != schema.end() && properties->is_object())
        for (const auto& item : properties->items())
            names.push_back(item.key());
    return names;
}

std::vector<std::string> requiredNames(const json& schema) {
    std::vector<std::string> names;
    if (const auto required = schema.find("required"); required != schema.end() && required->is_array())
        for (const auto& name : *required)
            if (name.is_string())
                names.push_back(name.get<std::string>());
    return names;
}

// The arguments a spec asks for, as a one-line example the model can copy the shape of.
std::string shapeOf(const json& schema) {
    std::string out;
    const auto required = requiredNames(schema);
    for (const auto& name : required)
        out += std::string(out.empty() ? "" : ", ") + "\"" + name + "\": ...";
    return "{" + out + "}";
}

bool isInteger(const json& value) {
    if (value.is_number_integer())
        return true;
    if (!value.is_number_float())
        return false;
    const double number = value.get<double>();
    return std::isfinite(number) && std::floor(number) == number;
}

std::optional<std::string> typeProblem(const json& value, const std::string& type) {
    const bool fits = type == "string"    ? value.is_string()
                      : type == "integer" ? isInteger(value)
                      : type == "number"  ? value.is_number()
                      : type == "boolean" ? value.is_boolean()
                      : type == "array"   ? value.is_array()
                      : type == "object"  ? value.is_object()
                                          : true;
    if (fits)
        return std::nullopt;
    const std::string article = type == "integer" || type == "array" || type == "object" ? "an " : "a ";
    std::string problem = "must be " + article + type + ", got ";
    if (value.is_string())
        problem += "the string " + value.dump(-1, ' ', false, json::error_handler_t::replace) +
                   " (write the value itself, not in quotes)";
    else
        problem += json_fields::describeJson(value);
    return problem;
}

std::optional<std::string> argumentProblem(const json& value, const json& schema) {
    if (!schema.is_object())
        return std::nullopt;
    if (const auto type = schema.find("type"); type != schema.end() && type->is_string())
        if (auto problem = typeProblem(value, type->get<std::string>()))
            return problem;
    if (const auto minimum = schema.find("minimum"); minimum != schema.end() && minimum->is_number() &&
                                                      value.is_number() &&
                                                      value.get<double>() < minimum->get<double>())
        return "must be at least " + minimum->dump() + ", got " + value.dump();
    if (const auto choices = schema.find("enum"); choices != schema.end() && choices->is_array() &&
                                                   std::find(choices->begin(), choices->end(), value) == choices->end()) {
        std::string list;
        for (const auto& choice : *choices)
            list += (list.empty() ? "" : ", ") + choice.dump();
        return "must be one of " + list + ", got " + value.dump();
    }
    return std::nullopt;
}

std::string didYouMean(const std::vector<std::string>& near) {
    return near.empty() ? std::string(".") : "; did you mean " + joined(near) + "?";
}

} // namespace

std::vector<std::string> nearestNames(std::string_view name, const std::vector<std::string>& names,
                                      std::size_t count) {
    struct Scored {
        std::size_t distance;
        std::size_t order;
        const std::string* name;
    };
    std::vector<Scored> close;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& candidate = names[i];
        const std::size_t distance = editDistance(name, candidate);
        const std::size_t longer = std::max(name.size(), candidate.size());
        const bool contains = !name.empty() && (candidate.find(name) != std::string::npos ||
                                                name.find(candidate) != std::string_view::npos);
        if (distance * 3 <= longer || contains)
            close.push_back({distance, i, &candidate});
    }
    std::stable_sort(close.begin(), close.end(),
                     [](const Scored& a, const Scored& b) { return a.distance < b.distance; });
    std::vector<std::string> out;
    for (const auto& scored : close) {
        if (out.size() == count)
            break;
        out.push_back(*scored.name);
    }
    return out;
}

std::optional<std::string> checkToolCall(const protocol::ToolCall& call, const std::vector<protocol::ToolSpec>& specs) {
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&](const protocol::ToolSpec& s) { return s.name == call.name; });
    if (spec == specs.end()) {
        std::vector<std::string> names;
        for (const auto& s : specs)
            names.push_back(s.name);
        return "there is no tool \"" + call.name + "\"" + didYouMean(nearestNames(call.name, names)) +
               " The tools are: " + joined(names) + ".";
    }
    const json& schema = spec->parameters;
    if (call.invalidArguments) {
        const std::string& text = *call.invalidArguments;
        const std::string quoted = text.size() > kQuotedBytes
                                       ? std::string(utf8Prefix(text, kQuotedBytes)) + "... (" +
                                             std::to_string(text.size()) + " bytes)"
                                       : text;
        return call.name + ": the arguments are not a JSON object: " + quoted +
               "\nThe call was not run. Send the arguments as one JSON object of the form " + shapeOf(schema) +
               ", with strings quoted and escaped (\\n for a newline, \\\" for a quote).";
    }
    const auto properties = schema.find("properties");
    const auto names = propertyNames(schema);
    for (const auto& required : requiredNames(schema)) {
        const auto value = call.arguments.find(required);
        if (value == call.arguments.end() || value->is_null())
            return call.name + ": missing required argument \"" + required + "\" (arguments: " + joined(names) + ")";
    }
    const bool closed = schema.value("additionalProperties", true) == false;
    for (const auto& [key, value] : call.arguments.items()) {
        if (properties == schema.end() || !properties->is_object() || !properties->contains(key)) {
            if (closed)
                return call.name + ": unknown argument \"" + key + "\"" + didYouMean(nearestNames(key, names)) +
                       " The arguments are: " + joined(names) + ".";
            continue;
        }
        if (value.is_null())
            continue;
        if (auto problem = argumentProblem(value, (*properties)[key]))
            return call.name + ": argument \"" + key + "\" " + *problem;
    }
    return std::nullopt;
}

} // namespace warren::agent
