#include "agent_core/memory/MemoryTools.h"

#include "agent_core/process/OutputCap.h"
#include "common/JsonFields.h"

#include <initializer_list>

namespace warren::agent {

using nlohmann::json;

namespace {

constexpr const char* kSaveName = "memory_save";
constexpr const char* kLoadName = "memory_load";
constexpr const char* kSearchName = "memory_search";

std::string quoted(const std::string& text) {
    return json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Reads a tool's arguments strictly; the first problem becomes the failed outcome, named after the tool.
class Arguments {
public:
    Arguments(const json& object, const char* tool, std::initializer_list<std::string_view> allowed)
        : m_object(object), m_tool(tool) {
        if (!object.is_object()) {
            m_problem = "arguments must be an object, got " + json_fields::describeJson(object);
            return;
        }
        std::string names;
        for (const auto name : allowed)
            names += (names.empty() ? "" : ", ") + std::string(name);
        if (const auto unknown = json_fields::findUnknownKey(object, allowed))
            m_problem = "unknown argument " + quoted(*unknown) + " (it takes " + names + ")";
    }

    // The fields are read with common/JsonFields ("key: missing", "limit: must be a whole number from 1 to
    // 100, got the integer 0"); after the first problem, nothing more is read.
    std::string string(const char* key) {
        return keep(json_fields::getString(m_object, key, "")).value_or("");
    }

    std::optional<std::string> optionalString(const char* key) {
        return keep(json_fields::getOptionalString(m_object, key, "")).value_or(std::nullopt);
    }

    std::optional<std::uint64_t> optionalCount(const char* key, std::uint64_t max) {
        const auto count =
            keep(json_fields::getOptionalInt(m_object, key, "", 1, static_cast<std::int64_t>(max)));
        return count && *count ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(**count))
                               : std::nullopt;
    }

    bool ok() const { return m_problem.empty(); }
    ToolOutcome failure() const { return agent::failure(std::string(m_tool) + ": " + m_problem); }

private:
    template <typename T> std::optional<T> keep(Result<T>&& result) {
        if (!m_problem.empty())
            return std::nullopt;
        if (!result) {
            m_problem = result.error().message;
            return std::nullopt;
        }
        return std::move(result).value();
    }

    const json& m_object;
    const char* m_tool;
    std::string m_problem;
};

ToolOutcome succeeded(std::string output, bool truncated = false) {
    ToolOutcome outcome;
    outcome.output = std::move(output);
    outcome.truncated = truncated;
    return outcome;
}

ToolOutcome failed(const char* tool, const Error& error) {
    return failure(std::string(tool) + ": " + error.message);
}

json stringProperty(const char* description) {
    return {{"type", "string"}, {"description", description}};
}

json namespaceProperty() {
    return {{"type", "string"},
            {"pattern", "^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$"},
            {"description", "Groups related memories; default \"default\"."}};
}

} // namespace

protocol::ToolSpec MemorySaveTool::spec() {
    return {
        kSaveName,
        "Save a note under a key, for later steps and later runs of the task. Saving under an existing key "
        "replaces its value.",
        {{"type", "object"},
         {"properties",
          {{"key", stringProperty("A short descriptive name, e.g. \"build-command\".")},
           {"value", stringProperty("The note (at most 1 MiB).")},
           {"namespace", namespaceProperty()}}},
         {"required", {"key", "value"}},
         {"additionalProperties", false}}};
}

ToolOutcome MemorySaveTool::run(const json& arguments, const ToolEnv& /*env*/) {
    Arguments args(arguments, kSaveName, {"key", "value", "namespace"});
    const std::string key = args.string("key");
    std::string value = args.string("value");
    const std::string ns = args.optionalString("namespace").value_or(std::string(kDefaultNamespace));
    if (!args.ok())
        return args.failure();
    const auto bytes = value.size();
    if (auto saved = m_memory.save(ns, key, std::move(value)); !saved)
        return failed(kSaveName, saved.error());
    std::string output =
        "saved " + std::to_string(bytes) + " bytes under key " + quoted(key) + " in namespace " + quoted(ns);
    if (m_memory.writesBehind())
        output += " (buffered: written to the store within " +
                  std::to_string(m_memory.autoSaveIntervalSec()) + " s and when the task ends)";
    return succeeded(std::move(output));
}

protocol::ToolSpec MemoryLoadTool::spec() {
    return {
        kLoadName,
        "Read the note saved under a key.",
        {{"type", "object"},
         {"properties",
          {{"key", stringProperty("The key the note was saved under.")}, {"namespace", namespaceProperty()}}},
         {"required", {"key"}},
         {"additionalProperties", false}}};
}

ToolOutcome MemoryLoadTool::run(const json& arguments, const ToolEnv& env) {
    Arguments args(arguments, kLoadName, {"key", "namespace"});
    const std::string key = args.string("key");
    const std::string ns = args.optionalString("namespace").value_or(std::string(kDefaultNamespace));
    if (!args.ok())
        return args.failure();
    auto value = m_memory.load(ns, key);
    if (!value)
        return failed(kLoadName, value.error());
    if (!*value)
        return succeeded("no memory under key " + quoted(key) + " in namespace " + quoted(ns));
    OutputCap cap(env.outputLimitBytes);
    cap.append(**value);
    return succeeded(cap.text(), cap.truncated());
}

protocol::ToolSpec MemorySearchTool::spec() {
    return {
        kSearchName,
        "Find saved notes whose key or value matches the query, in every namespace, best match first. Each "
        "hit is a JSON line {namespace, key, value}.",
        {{"type", "object"},
         {"properties",
          {{"query", stringProperty("Words or text to look for.")},
           {"limit",
            {{"type", "integer"},
             {"minimum", 1},
             {"maximum", kMaxMemorySearchLimit},
             {"description", "At most this many hits; default 10."}}}}},
         {"required", {"query"}},
         {"additionalProperties", false}}};
}

ToolOutcome MemorySearchTool::run(const json& arguments, const ToolEnv& env) {
    Arguments args(arguments, kSearchName, {"query", "limit"});
    const std::string query = args.string("query");
    const std::uint64_t limit =
        args.optionalCount("limit", kMaxMemorySearchLimit).value_or(kDefaultMemorySearchLimit);
    if (!args.ok())
        return args.failure();
    if (query.find_first_not_of(" \t\r\n") == std::string::npos)
        return failure(std::string(kSearchName) + ": query: is empty");
    auto hits = m_memory.search(query, static_cast<std::size_t>(limit));
    if (!hits)
        return failed(kSearchName, hits.error());
    if (hits->empty())
        return succeeded("no memory matches " + quoted(query));

    // Whole hits while they fit; the first one is cut rather than left out.
    std::string output = std::to_string(hits->size()) +
                         (hits->size() == 1 ? " memory matches " : " memories match ") + quoted(query) +
                         ":\n";
    std::size_t shown = 0;
    bool truncated = false;
    for (const auto& hit : *hits) {
        const std::string line = json{{"namespace", hit.ns}, {"key", hit.key}, {"value", hit.value}}.dump(
                                     -1, ' ', false, json::error_handler_t::replace) +
                                 "\n";
        if (output.size() + line.size() > env.outputLimitBytes) {
            if (shown == 0) {
                OutputCap cap(env.outputLimitBytes > output.size() ? env.outputLimitBytes - output.size()
                                                                   : 0);
                cap.append(line);
                output += cap.text();
                ++shown;
            }
            truncated = true;
            break;
        }
        output += line;
        ++shown;
    }
    if (truncated && shown < hits->size())
        output += "[... " + std::to_string(hits->size() - shown) +
                  " more not shown: narrow the query, or load a key with memory_load]\n";
    return succeeded(std::move(output), truncated);
}

} // namespace warren::agent
