#include "agent_core/clis/CodexAppServer.h"

#include "agent_core/clis/CodexPermissions.h"
#include "common/JsonFields.h"

namespace warren::agent {

using json_fields::memberString;
using nlohmann::json;
using namespace protocol;

namespace {

// Our requests' ids: the answers are told apart by them.
constexpr int kInitialize = 1;
constexpr int kThread = 2;
constexpr int kTurn = 3;

std::string lineOf(const json& message) {
    return message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

json member(const json& object, const char* key) {
    const auto found = object.find(key);
    return found == object.end() ? json() : *found;
}

std::string joined(const json& parts) {
    std::string text;
    for (const auto& part : parts.is_array() ? parts : json::array())
        if (part.is_string())
            text += (text.empty() ? "" : "\n") + part.get<std::string>();
    return text;
}

// exec --json names a change's kind with a string.
json execChanges(const json& changes) {
    json out = json::array();
    for (const auto& change : changes.is_array() ? changes : json::array())
        if (change.is_object()) {
            const json kind = member(change, "kind");
            out.push_back({{"path", memberString(change, "path")},
                           {"kind", kind.is_object() ? memberString(kind, "type") : std::string()}});
        }
    return out;
}

// An app-server item as `codex exec --json` writes the same item; nullopt for one that is not an event
// (the user's own message, which Warren's events already hold).
std::optional<json> execItem(const json& item) {
    const std::string type = memberString(item, "type");
    const json id = member(item, "id");
    const std::string status = memberString(item, "status");
    if (type == "userMessage")
        return std::nullopt;
    if (type == "commandExecution")
        return json{{"type", kCodexCommand},
                    {"id", id},
                    {"command", memberString(item, "command")},
                    {"aggregated_output", memberString(item, "aggregatedOutput")},
                    {"exit_code", member(item, "exitCode")},
                    {"status", status}};
    if (type == "fileChange")
        return json{{"type", kCodexFileChange},
                    {"id", id},
                    {"changes", execChanges(member(item, "changes"))},
                    {"status", status}};
    if (type == "agentMessage")
        return json{{"type", "agent_message"}, {"id", id}, {"text", memberString(item, "text")}};
    if (type == "reasoning") {
        const std::string summary = joined(member(item, "summary"));
        return json{{"type", "reasoning"},
                    {"id", id},
                    {"text", summary.empty() ? joined(member(item, "content")) : summary}};
    }
    if (type == "mcpToolCall")
        return json{{"type", "mcp_tool_call"},
                    {"id", id},
                    {"server", memberString(item, "server")},
                    {"tool", memberString(item, "tool")},
                    {"arguments", member(item, "arguments")},
                    {"result", member(item, "result")},
                    {"error", member(item, "error")},
                    {"status", status}};
    if (type == "webSearch")
        return json{{"type", "web_search"}, {"id", id}, {"query", memberString(item, "query")}};
    return json{{"type", type}, {"id", id}}; // a debug log
}

// The turn's usage, as exec --json reports it: the thread's total now less its total when the turn started.
json execUsage(const json& now, const json& atStart) {
    const auto spent = [&](const char* key) {
        const std::uint64_t end = json_fields::memberUint(now, key);
        const std::uint64_t start = json_fields::memberUint(atStart, key);
        return end > start ? end - start : 0;
    };
    return {{"input_tokens", spent("inputTokens")},
            {"output_tokens", spent("outputTokens")},
            {"reasoning_output_tokens", spent("reasoningOutputTokens")}};
}

void append(CliLine& to, CliLine from) {
    to.events.insert(to.events.end(), std::make_move_iterator(from.events.begin()),
                     std::make_move_iterator(from.events.end()));
    if (from.sessionId)
        to.sessionId = std::move(from.sessionId);
    if (from.end)
        to.end = std::move(from.end);
}

} // namespace

std::string codexAppServerOpening(const std::filesystem::path& workspace,
                                  const std::optional<std::string>& session) {
    // Codex's own sandbox is off (Warren's is the boundary); "untrusted" asks for every command and change.
    json thread{
        {"cwd", workspace.string()}, {"approvalPolicy", "untrusted"}, {"sandbox", "danger-full-access"}};
    if (session) { // its past turns are not wanted back: they are the task's events already
        thread["threadId"] = *session;
        thread["excludeTurns"] = true;
    }
    return lineOf({{"id", kInitialize},
                   {"method", "initialize"},
                   {"params", {{"clientInfo", {{"name", "warren"}, {"version", "1"}}}}}}) +
           lineOf({{"method", "initialized"}}) +
           lineOf(
               {{"id", kThread}, {"method", session ? "thread/resume" : "thread/start"}, {"params", thread}});
}

CliLine CodexAppServer::translate(std::string_view line) {
    auto parsed = json_fields::parseJson(line);
    if (!parsed || !parsed->is_object() || (!parsed->contains("method") && !parsed->contains("id")))
        return m_stream.translate(line); // says what it is not
    const json& object = *parsed;
    const std::string method = memberString(object, "method");
    if (method.empty())
        return onResponse(object);
    if (object.contains("id"))
        return onRequest(object);
    const json params = member(object, "params");
    return onNotification(method, params.is_object() ? params : json::object());
}

CliLine CodexAppServer::onResponse(const json& object) {
    CliLine out;
    const json id = member(object, "id");
    if (const json error = member(object, "error"); !error.is_null()) {
        const std::string what = id == kThread ? "the thread" : id == kTurn ? "the turn" : "the session";
        const std::string message =
            "Codex refused to start " + what + ": " +
            boundedText(error.is_object() ? memberString(error, "message") : error.dump(),
                        kCliQuotedLineBytes);
        out.events.push_back({ErrorData{message, true}, std::nullopt});
        out.end = CliEnd{FinishReason::Failed, message, std::nullopt};
        return out;
    }
    if (id != kThread || m_turnSent)
        return out;
    const json result = member(object, "result");
    const json thread = result.is_object() ? member(result, "thread") : json();
    const std::string threadId = thread.is_object() ? memberString(thread, "id") : "";
    append(out, asExec({{"type", "thread.started"}, {"thread_id", threadId}}));
    m_turnSent = true;
    out.reply =
        lineOf({{"id", kTurn},
                {"method", "turn/start"},
                {"params", {{"threadId", threadId}, {"input", {{{"type", "text"}, {"text", m_prompt}}}}}}});
    return out;
}

CliLine CodexAppServer::onRequest(const json& object) {
    CliLine out;
    const std::string method = memberString(object, "method");
    const json params = member(object, "params");
    const std::string itemId = params.is_object() ? memberString(params, "itemId") : "";
    CliPermissionAsk ask{member(object, "id").dump(), "", json::object(), itemId};
    if (method == "item/commandExecution/requestApproval") {
        ask.tool = kCodexCommand;
        ask.input = {{"command", memberString(params, "command")}};
    } else if (method == "item/fileChange/requestApproval") {
        ask.tool = kCodexFileChange;
        const auto changes = m_changes.find(itemId);
        ask.input = {{"changes", changes == m_changes.end() ? json::array() : changes->second}};
    } else {
        out.events.push_back({LogData{LogLevel::Debug, "Codex asked " + method + "; refused"}, std::nullopt});
        out.reply = lineOf({{"id", member(object, "id")},
                            {"error", {{"code", -32601}, {"message", "Warren does not serve " + method}}}});
        return out;
    }
    out.permission = std::move(ask);
    return out;
}

CliLine CodexAppServer::onNotification(const std::string& method, const json& params) {
    if (method == "turn/started") {
        m_turnStart = m_usage;
        return asExec({{"type", "turn.started"}});
    }
    if (method == "item/started" || method == "item/completed") {
        const json item = member(params, "item");
        if (!item.is_object())
            return {};
        if (memberString(item, "type") ==
            "fileChange") { // what an approval request of it shows, until it ends
            if (method == "item/started")
                m_changes[memberString(item, "id")] = member(item, "changes");
            else
                m_changes.erase(memberString(item, "id"));
        }
        const auto exec = execItem(item);
        if (!exec)
            return {};
        return asExec(
            {{"type", method == "item/started" ? "item.started" : "item.completed"}, {"item", *exec}});
    }
    if (method == "turn/plan/updated") {
        json steps = json::array();
        for (const auto& step : member(params, "plan").is_array() ? params["plan"] : json::array())
            if (step.is_object())
                steps.push_back({{"text", memberString(step, "step")},
                                 {"completed", memberString(step, "status") == "completed"}});
        return asExec(
            {{"type", "item.updated"}, {"item", {{"type", "todo_list"}, {"id", "plan"}, {"items", steps}}}});
    }
    if (method == "thread/tokenUsage/updated") {
        const json usage = member(params, "tokenUsage");
        if (usage.is_object() && member(usage, "total").is_object())
            m_usage = usage["total"];
        return {};
    }
    if (method == "error") {
        const json error = member(params, "error");
        return asExec(
            {{"type", "error"}, {"message", error.is_object() ? memberString(error, "message") : ""}});
    }
    if (method == "warning" || method == "configWarning" || method == "deprecationNotice") {
        CliLine out;
        const std::string text = memberString(params, method == "deprecationNotice" ? "summary" : "message");
        out.events.push_back(
            {LogData{LogLevel::Warn, "Codex: " + boundedText(text, kCliQuotedLineBytes)}, std::nullopt});
        return out;
    }
    if (method == "turn/completed") {
        const json turn = member(params, "turn");
        const std::string status = turn.is_object() ? memberString(turn, "status") : "";
        if (status == "completed")
            return asExec({{"type", "turn.completed"}, {"usage", execUsage(m_usage, m_turnStart)}});
        const json error = turn.is_object() ? member(turn, "error") : json();
        std::string message = error.is_object() ? memberString(error, "message") : "";
        if (message.empty() && status == "interrupted")
            message = "the turn was interrupted";
        return asExec({{"type", "turn.failed"}, {"error", {{"message", message}}}});
    }
    return {}; // the server's state (thread status, MCP servers, rate limits, ...): not the task's events
}

} // namespace warren::agent
