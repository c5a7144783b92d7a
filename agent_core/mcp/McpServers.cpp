#include "agent_core/mcp/McpServers.h"

#include "agent_core/tools/ToolText.h"
#include "common/JsonFields.h"
#include "common/http/HttpUrl.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

namespace warren::agent {

using json_fields::describeJson;
using nlohmann::json;

namespace {

bool isNameCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool isToolName(std::string_view name) {
    return !name.empty() && name.size() <= kMaxToolNameBytes &&
           std::all_of(name.begin(), name.end(), isNameCharacter);
}

// Bytes of a name quoted back in a message: a peer's name may be as long as its message.
constexpr std::size_t kQuotedBytes = 200;

std::string quotedName(std::string_view text) {
    return json(shortenLine(text, kQuotedBytes)).dump(-1, ' ', false, json::error_handler_t::replace);
}

// Why one entry is left out; the caller names the server.
struct Skip {
    std::string reason;
};

// What expansion could not fill in, over all of one entry's strings.
class Expander {
public:
    // environment null: nothing is expanded and every variable counts as set (checkMcpServers).
    explicit Expander(const Environment* environment) : m_environment(environment) {}

    std::string operator()(std::string_view text) {
        if (!m_environment)
            return std::string(text);
        auto expanded = expandVariables(text, *m_environment);
        for (auto& name : expanded.missing)
            if (std::find(m_missing.begin(), m_missing.end(), name) == m_missing.end())
                m_missing.push_back(std::move(name));
        return std::move(expanded.text);
    }

    // Whether variables are filled in (false: checkMcpServers, where a string may still hold ${VAR}).
    bool expands() const { return m_environment != nullptr; }

    std::optional<Skip> problem() const {
        if (m_missing.empty())
            return std::nullopt;
        std::string names;
        for (const auto& name : m_missing)
            names += (names.empty() ? "${" : ", ${") + name + "}";
        return Skip{names + (m_missing.size() == 1 ? " is" : " are") +
                    " not set in the agent's environment and " + (m_missing.size() == 1 ? "has" : "have") +
                    " no default (write ${NAME:-default} for one)"};
    }

private:
    const Environment* m_environment;
    std::vector<std::string> m_missing;
};

// A string the server is started with or sent: exec and HTTP take no NUL, and a header line no line break.
std::optional<Skip> unusable(std::string_view what, std::string_view text, bool headerValue = false) {
    if (text.find('\0') != std::string_view::npos)
        return Skip{std::string(what) + " holds a NUL character"};
    if (headerValue && text.find_first_of("\r\n") != std::string_view::npos)
        return Skip{std::string(what) + " holds a line break"};
    return std::nullopt;
}

std::optional<Skip> readString(const json& entry, const char* key, bool required, Expander& expand,
                               std::string& out) {
    const auto it = entry.find(key);
    if (it == entry.end() || (!required && it->is_null()))
        return required ? std::optional(Skip{std::string("no \"") + key + "\""}) : std::nullopt;
    if (!it->is_string())
        return Skip{std::string("\"") + key + "\" must be a string, got " + describeJson(*it)};
    out = expand(it->get<std::string>());
    if (required && out.empty())
        return Skip{std::string("\"") + key + "\" is empty"};
    return unusable(std::string("\"") + key + "\"", out);
}

// "env" or "headers": an object of strings, names checked by validName.
std::optional<Skip> readVariables(const json& entry, const char* key, Expander& expand,
                                  bool (*validName)(std::string_view),
                                  std::vector<std::pair<std::string, std::string>>& out) {
    const auto it = entry.find(key);
    if (it == entry.end() || it->is_null())
        return std::nullopt;
    const std::string where = std::string("\"") + key + "\"";
    if (!it->is_object())
        return Skip{where + " must be an object of strings, got " + describeJson(*it)};
    if (it->size() > kMaxMcpVariables)
        return Skip{where + " has " + std::to_string(it->size()) + " entries, more than " +
                    std::to_string(kMaxMcpVariables)};
    const bool headers = std::string_view(key) == "headers";
    for (const auto& [name, value] : it->items()) {
        if (!validName(name))
            return Skip{where + ": " + quotedName(name) + " is not a valid name"};
        if (!value.is_string())
            return Skip{where + ": " + quotedName(name) + " must be a string, got " + describeJson(value)};
        std::string expanded = expand(value.get<std::string>());
        if (auto problem = unusable(where + ": " + quotedName(name), expanded, headers))
            return problem;
        out.emplace_back(name, std::move(expanded));
    }
    return std::nullopt;
}

bool isEnvironmentName(std::string_view name) {
    return !name.empty() && name.find_first_of(std::string_view("=\0", 2)) == std::string_view::npos;
}

// RFC 9110 token characters.
bool isHeaderName(std::string_view name) {
    constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
    return !name.empty() && std::all_of(name.begin(), name.end(), [&](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               kSymbols.find(c) != std::string_view::npos;
    });
}

std::optional<Skip> readStdio(const json& entry, Expander& expand, McpServer& server) {
    if (!entry.contains("command") && entry.contains("url"))
        return Skip{"a url without \"type\": a remote server needs \"type\": \"http\" or \"sse\""};
    if (auto problem = readString(entry, "command", true, expand, server.command))
        return Skip{problem->reason +
                    (entry.contains("command") ? "" : " (a stdio server needs the program to start)")};
    if (const auto args = entry.find("args"); args != entry.end() && !args->is_null()) {
        if (!args->is_array())
            return Skip{"\"args\" must be an array of strings, got " + describeJson(*args)};
        if (args->size() > kMaxMcpArgs)
            return Skip{"\"args\" has " + std::to_string(args->size()) + " items, more than " +
                        std::to_string(kMaxMcpArgs)};
        for (std::size_t i = 0; i < args->size(); ++i) {
            const json& arg = (*args)[i];
            const std::string where = "\"args\"[" + std::to_string(i) + "]";
            if (!arg.is_string())
                return Skip{where + " must be a string, got " + describeJson(arg)};
            server.args.push_back(expand(arg.get<std::string>()));
            if (auto problem = unusable(where, server.args.back()))
                return problem;
        }
    }
    return readVariables(entry, "env", expand, isEnvironmentName, server.env);
}

// Every ${...} of text as "x".
std::string withVariablesAsNames(std::string_view text) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t open = text.find("${", at);
        const std::size_t close = open == std::string_view::npos ? open : text.find('}', open + 2);
        if (close == std::string_view::npos) {
            out.append(text.substr(at));
            break;
        }
        out.append(text.substr(at, open - at)).append("x");
        at = close + 1;
    }
    return out;
}

std::optional<Skip> readRemote(const json& entry, Expander& expand, McpServer& server) {
    if (auto problem = readString(entry, "url", true, expand, server.url))
        return problem;
    // Checked before the environment is known (checkMcpServers), a url holding ${VAR} is read with each
    // variable a plain name ("https://${HOST}/mcp" as https://x/mcp); one that is a variable whole, in the sandbox.
    const bool whole = !expand.expands() && server.url.starts_with("${");
    const std::string checked = expand.expands() ? server.url : withVariablesAsNames(server.url);
    if (auto url = parseHttpUrl(checked); !url && !whole)
        return Skip{"\"url\": " + url.error().message};
    if (auto problem = readVariables(entry, "headers", expand, isHeaderName, server.headers))
        return problem;
    // The agent frames each request itself: a header that changes the framing or the target is refused.
    for (const auto& [name, value] : server.headers) {
        std::string lower = name;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (lower == "host" || lower == "content-length" || lower == "transfer-encoding" || lower == "connection" ||
            lower == "mcp-session-id" || lower == "mcp-protocol-version")
            return Skip{"\"headers\": " + quotedName(name) + " is set by the agent itself"};
    }
    return std::nullopt;
}

std::optional<Skip> readServer(const json& entry, const Environment* environment, McpServer& server) {
    if (!entry.is_object())
        return Skip{"must be an object, got " + describeJson(entry)};
    const auto type = entry.find("type");
    if (type != entry.end() && !type->is_null() && !type->is_string())
        return Skip{"\"type\" must be a string, got " + describeJson(*type)};
    const std::string kind = type != entry.end() && type->is_string() ? type->get<std::string>() : "stdio";
    Expander expand(environment);
    std::optional<Skip> problem;
    if (kind == "stdio") {
        server.transport = McpTransport::Stdio;
        problem = readStdio(entry, expand, server);
    } else if (kind == "http" || kind == "sse") {
        server.transport = kind == "http" ? McpTransport::Http : McpTransport::Sse;
        problem = readRemote(entry, expand, server);
    } else {
        return Skip{"\"type\" must be \"stdio\", \"http\" or \"sse\", got " + quotedName(kind)};
    }
    return problem ? problem : expand.problem();
}

} // namespace

std::string_view toString(McpTransport transport) {
    switch (transport) {
    case McpTransport::Stdio:
        return "stdio";
    case McpTransport::Http:
        return "http";
    case McpTransport::Sse:
        return "sse";
    }
    return "stdio";
}

namespace {

// environment null: checkMcpServers.
Result<McpServerList> readMcpServers(std::string_view document, const Environment* environment) {
    if (document.size() > kMaxMcpConfigBytes)
        return makeError(ErrorCode::InvalidArgument, std::to_string(document.size()) + " bytes, more than " +
                                                         std::to_string(kMaxMcpConfigBytes) + " bytes");
    auto parsed = json_fields::parseJson(document);
    if (!parsed)
        return makeError(ErrorCode::InvalidArgument, "not JSON: " + parsed.error().message);
    if (!parsed->is_object())
        return makeError(ErrorCode::InvalidArgument, "must be a JSON object, got " + describeJson(*parsed));
    const auto servers = parsed->find("mcpServers");
    if (servers == parsed->end())
        return makeError(ErrorCode::InvalidArgument,
                         "has no \"mcpServers\": write {\"mcpServers\": {\"NAME\": {\"command\": ...}}}");
    if (!servers->is_object())
        return makeError(ErrorCode::InvalidArgument,
                         "\"mcpServers\" must be an object of servers by name, got " +
                             describeJson(*servers));

    McpServerList list;
    std::string beyond; // names past kMaxMcpServers
    for (const auto& [name, entry] : servers->items()) {
        if (!isValidServerName(name)) {
            list.skipped.push_back("server " + quotedName(name) + " skipped: its name must be 1 to " +
                                   std::to_string(kMaxMcpServerNameBytes) +
                                   " letters, digits, '_' or '-' (it becomes part of its tools' names)");
            continue;
        }
        if (list.servers.size() == kMaxMcpServers) {
            beyond += (beyond.empty() ? "" : ", ") + name;
            continue;
        }
        McpServer server;
        server.name = name;
        if (auto skip = readServer(entry, environment, server)) {
            list.skipped.push_back("server " + quotedName(name) + " skipped: " + skip->reason);
            continue;
        }
        list.servers.push_back(std::move(server));
    }
    if (!beyond.empty())
        list.skipped.push_back("only the first " + std::to_string(kMaxMcpServers) +
                               " servers (by name) are started; skipped: " + beyond);
    return list;
}

} // namespace

Result<McpServerList> parseMcpServers(std::string_view document, const Environment& environment) {
    return readMcpServers(document, &environment);
}

Result<McpServerList> checkMcpServers(std::string_view document) {
    return readMcpServers(document, nullptr);
}

Expansion expandVariables(std::string_view text, const Environment& environment) {
    Expansion out;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t open = text.find("${", at);
        const std::size_t close = open == std::string_view::npos ? open : text.find('}', open + 2);
        // "${}" is no reference: its content must not be empty, as in Claude Code's /\$\{([^}]+)\}/.
        if (close == std::string_view::npos) {
            out.text.append(text.substr(at));
            break;
        }
        if (close == open + 2) {
            out.text.append(text.substr(at, close + 1 - at));
            at = close + 1;
            continue;
        }
        out.text.append(text.substr(at, open - at));
        const std::string_view content = text.substr(open + 2, close - open - 2);
        const std::size_t dash = content.find(":-");
        const std::string name(content.substr(0, dash));
        if (const auto value = environment.find(name); value != environment.end())
            out.text.append(value->second);
        else if (dash != std::string_view::npos)
            out.text.append(content.substr(dash + 2));
        else {
            out.text.append(text.substr(open, close + 1 - open));
            if (std::find(out.missing.begin(), out.missing.end(), name) == out.missing.end())
                out.missing.push_back(name);
        }
        at = close + 1;
    }
    return out;
}

bool isValidServerName(std::string_view name) {
    return !name.empty() && name.size() <= kMaxMcpServerNameBytes &&
           std::all_of(name.begin(), name.end(), isNameCharacter);
}

Result<std::string> mcpToolName(std::string_view server, std::string_view tool) {
    std::string name = mcpToolPrefix(server) + std::string(tool);
    if (tool.empty() || !isToolName(name))
        return makeError(ErrorCode::InvalidArgument,
                         "tool " + quotedName(tool) + " of server " + quotedName(server) +
                             " skipped: its name " + quotedName(name) +
                             " is not one the model can call (1 to " + std::to_string(kMaxToolNameBytes) +
                             " letters, digits, '_' or '-')");
    return name;
}

} // namespace warren::agent
