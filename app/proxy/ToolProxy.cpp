#include "app/proxy/ToolProxy.h"

#include "agent_core/protocol/Methods.h"
#include "agent_core/protocol/Timestamp.h"
#include "app/egress/NetworkQuestion.h"
#include "app/store/Store.h"

#include <chrono>
#include <utility>

namespace warren::control {

using nlohmann::json;

namespace {

// Failures of a method itself (PROTOCOL.md: -32000 down to -32099).
constexpr int kUnauthorized = -32001;
constexpr int kModelFailed = -32002;
constexpr int kBudgetExhausted = -32003;
constexpr int kStoreFailed = -32004;

protocol::ErrorResponse failure(const protocol::Id& id, int code, std::string message) {
    return protocol::ErrorResponse{id, {code, std::move(message), std::nullopt}};
}

const char* scopeFor(const std::string& method) {
    if (method == protocol::method::kLlmChat)
        return scope::kLlm;
    if (method == protocol::method::kMemoryGet || method == protocol::method::kMemoryPut ||
        method == protocol::method::kMemorySearch)
        return scope::kMemory;
    if (method == protocol::method::kApprovalRequest)
        return scope::kApproval;
    if (method == protocol::method::kWorkspacePull || method == protocol::method::kWorkspacePush)
        return scope::kTrees;
    return nullptr;
}

std::int64_t nowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string now() { return protocol::formatTimestamp(std::chrono::system_clock::now()); }

} // namespace

ToolProxy::ToolProxy(Settings settings, TaskTokens& tokens, Store& store, std::unique_ptr<Provider> provider,
                     QObject* parent)
    : QObject(parent), m_settings(std::move(settings)), m_tokens(tokens), m_store(store),
      m_provider(std::move(provider)) {
    if (m_settings.trees)
        m_trees.emplace(*m_settings.trees);
}

ToolProxy::~ToolProxy() { abortAll(); }

void ToolProxy::handle(const protocol::Request& request, Reply reply) {
    if (m_aborted)
        return;
    const char* requiredScope = scopeFor(request.method);
    if (!requiredScope) {
        reply(failure(request.id, protocol::rpc_error::kMethodNotFound,
                      "the control plane has no method \"" + request.method + "\""));
        return;
    }
    // The token rides in params; it is checked, then removed before the method's strict reader sees it.
    protocol::Request checked = request;
    std::string token;
    if (checked.params.is_object() && checked.params.contains(protocol::kTokenParam) &&
        checked.params[protocol::kTokenParam].is_string()) {
        token = checked.params[protocol::kTokenParam].get<std::string>();
        checked.params.erase(protocol::kTokenParam);
    }
    if (auto valid = checkToken(token, requiredScope); !valid) {
        emit problem(QString::fromStdString(request.method + " refused: " + valid.error().message));
        reply(failure(request.id, kUnauthorized, request.method + ": unauthorized: " + valid.error().message));
        return;
    }
    if (request.method == protocol::method::kLlmChat)
        chat(checked, std::move(reply));
    else if (request.method == protocol::method::kApprovalRequest)
        approval(checked, std::move(reply));
    else if (requiredScope == std::string_view(scope::kTrees))
        carry(checked, std::move(reply));
    else
        memory(checked, std::move(reply));
}

void ToolProxy::carry(const protocol::Request& request, Reply reply) {
    if (!m_trees) {
        reply(failure(request.id, protocol::rpc_error::kMethodNotFound,
                      request.method + ": this task's agent runs beside its trees; there is nothing to carry"));
        return;
    }
    auto refusedBy = [&](const Error& error) {
        emit problem(QString::fromStdString(error.message));
        const int code = error.code == ErrorCode::InvalidArgument ? protocol::rpc_error::kInvalidParams : kStoreFailed;
        reply(failure(request.id, code, error.message));
    };
    if (request.method == protocol::method::kWorkspacePull) {
        auto params = protocol::workspacePullParamsFromJson(request.params);
        if (!params)
            return reply(failure(request.id, protocol::rpc_error::kInvalidParams, params.error().message));
        auto chunk = m_trees->pull(*params);
        if (!chunk)
            return refusedBy(chunk.error());
        return reply(protocol::Response{request.id, protocol::toJson(*chunk)});
    }
    auto params = protocol::workspacePushParamsFromJson(request.params);
    if (!params)
        return reply(failure(request.id, protocol::rpc_error::kInvalidParams, params.error().message));
    if (auto pushed = m_trees->push(*params); !pushed)
        return refusedBy(pushed.error());
    reply(protocol::Response{request.id, json::object()});
}

void ToolProxy::chat(const protocol::Request& request, Reply reply) {
    auto params = protocol::llmChatParamsFromJson(request.params);
    if (!params) {
        reply(failure(request.id, protocol::rpc_error::kInvalidParams, params.error().message));
        return;
    }
    if (const auto spent = budgetSpent()) {
        reply(failure(request.id, kBudgetExhausted, *spent));
        return;
    }
    if (!m_provider) {
        reply(failure(request.id, kModelFailed, "this task has no model provider"));
        return;
    }
    ChatCall* call = m_provider->chat(*params, this);
    m_calls.emplace_back(call);
    const QString agent = QString::fromStdString(params->agent.value_or(""));
    connect(call, &ChatCall::delta, this, [this, agent](const QString& text) { emit modelDelta(text, agent); });
    connect(call, &ChatCall::retrying, this, &ToolProxy::modelRetry);
    connect(call, &ChatCall::adapted, this, &ToolProxy::modelAdapted);
    const protocol::Id id = request.id;
    connect(call, &ChatCall::finished, this, [this, call, id, reply = std::move(reply)] {
        call->deleteLater();
        std::erase_if(m_calls, [call](const QPointer<ChatCall>& pending) { return pending == call; });
        if (m_aborted)
            return;
        const auto& result = call->result();
        if (!result) {
            emit modelCalled(false, 0, 0);
            reply(failure(id, kModelFailed, result.error().message));
            return;
        }
        emit modelCalled(true, result->tokenUsage.input, result->tokenUsage.output);
        reply(protocol::Response{id, protocol::toJson(*result)});
        count(result->tokenUsage);
    });
}

std::optional<std::string> ToolProxy::budgetSpent() {
    const std::uint64_t spent = m_used.input + m_used.output;
    if (!m_settings.tokenBudget || spent < m_settings.tokenBudget)
        return std::nullopt;
    emit budgetExhausted(spent, m_settings.tokenBudget);
    return "the task's token budget of " + std::to_string(m_settings.tokenBudget) + " is spent (" +
           std::to_string(spent) + " used); raise it with --token-budget";
}

void ToolProxy::count(const protocol::TokenUsage& usage) {
    m_used.input += usage.input;
    m_used.output += usage.output;
    m_used.reasoning += usage.reasoning;
    const std::uint64_t total = m_used.input + m_used.output;
    if (m_settings.tokenBudget && total >= m_settings.tokenBudget)
        emit budgetExhausted(total, m_settings.tokenBudget);
}

Status ToolProxy::checkToken(const std::string& token, const char* requiredScope) const {
    auto claims = m_tokens.verify(token, requiredScope, nowMs());
    if (!claims)
        return claims.error();
    if (claims->taskId != m_settings.taskId)
        return makeError(ErrorCode::InvalidArgument, "the token belongs to another task");
    return Ok{};
}

Status ToolProxy::admitModelCall() {
    if (const auto spent = budgetSpent())
        return makeError(ErrorCode::InvalidArgument, *spent);
    return Ok{};
}

void ToolProxy::countModelCall(const protocol::TokenUsage& usage) {
    if (!m_aborted)
        count(usage);
}

void ToolProxy::memory(const protocol::Request& request, Reply reply) {
    const std::string& prefix = m_settings.memoryPrefix;
    auto storeFailed = [&](const Error& error) {
        reply(failure(request.id, kStoreFailed, request.method + ": " + error.message));
    };
    if (request.method == protocol::method::kMemoryGet) {
        auto params = protocol::memoryGetParamsFromJson(request.params);
        if (!params)
            return reply(failure(request.id, protocol::rpc_error::kInvalidParams, params.error().message));
        auto value = m_store.memoryGet(prefix, params->ns, params->key);
        if (!value)
            return storeFailed(value.error());
        return reply(protocol::Response{request.id, protocol::toJson(protocol::MemoryGetResult{*value})});
    }
    if (request.method == protocol::method::kMemoryPut) {
        auto params = protocol::memoryPutParamsFromJson(request.params);
        if (!params)
            return reply(failure(request.id, protocol::rpc_error::kInvalidParams, params.error().message));
        auto stored = m_store.memoryPut(prefix, params->ns, params->key, params->value);
        if (!stored)
            return storeFailed(stored.error());
        return reply(protocol::Response{request.id, json::object()});
    }
    auto params = protocol::memorySearchParamsFromJson(request.params);
    if (!params)
        return reply(failure(request.id, protocol::rpc_error::kInvalidParams, params.error().message));
    auto rows = m_store.memorySearch(prefix, params->query, params->limit, params->ranked);
    if (!rows)
        return storeFailed(rows.error());
    protocol::MemorySearchResult result;
    for (auto& row : *rows)
        result.hits.push_back({std::move(row.ns), std::move(row.key), std::move(row.value)});
    reply(protocol::Response{request.id, protocol::toJson(result)});
}

std::string ToolProxy::alwaysKey(const std::string& tool, const json& arguments) const {
    if (tool == "shell" && arguments.contains("command") && arguments["command"].is_string())
        return "shell\n" + arguments["command"].get<std::string>();
    return tool;
}

void ToolProxy::approval(const protocol::Request& request, Reply reply) {
    auto params = protocol::approvalRequestParamsFromJson(request.params);
    if (!params) {
        reply(failure(request.id, protocol::rpc_error::kInvalidParams, params.error().message));
        return;
    }
    if (params->tool == kNetworkTool) { // the egress proxy's questions (NetworkQuestion.h): never the agent's
        protocol::ApprovalResult refused{false, "the tool name network is the control plane's own; denied"};
        reply(protocol::Response{request.id, protocol::toJson(refused)});
        return;
    }
    m_announced.erase(params->callId);
    std::optional<EarlyAnswer> early; // the user's answer, given before this question came
    if (const auto kept = m_earlyAnswers.find(params->callId); kept != m_earlyAnswers.end() &&
                                                             params->tool == kept->second.tool &&
                                                             params->arguments == kept->second.arguments) {
        early = std::move(kept->second);
        m_earlyAnswers.erase(kept);
    }
    Answer answer = [reply = std::move(reply), id = request.id](bool approved, const std::string& note) {
        protocol::ApprovalResult result{approved, note.empty() ? std::nullopt : std::optional(note)};
        reply(protocol::Response{id, protocol::toJson(result)});
    };
    const auto answerAsTheUser = [&](std::optional<ApprovalRecord> record) {
        if (early->approved && early->always)
            m_always.insert(alwaysKey(params->tool, params->arguments));
        if (record)
            decide(*record, early->approved, "user", early->note);
        answer(early->approved, early->note);
    };
    if (early && early->recorded) // asked before the task slept, and decided then
        return answerAsTheUser(std::nullopt);
    ApprovalRecord record;
    record.taskId = m_settings.taskId;
    // The request id restarts with each agent process; the run number keeps the key unique in the task.
    record.callId = std::to_string(m_settings.run) + "." + protocol::idToJson(request.id).dump();
    record.tool = params->tool;
    record.arguments = params->arguments.dump();
    record.reason = params->reason;
    record.requestedAt = now();
    if (auto stored = m_store.insertApproval(record); !stored)
        emit problem(QString::fromStdString("approval not recorded: " + stored.error().message));

    // What denies comes first: a rule, or approvals set to deny, is never overridden by an answer given early.
    const auto decision = decideApproval(m_settings.rules, params->tool, params->arguments);
    const auto byRule = [&] {
        const bool approved = decision.verdict == ApprovalVerdict::Allow;
        decide(record, approved, "rule", decision.rule);
        return answer(approved, approved ? "" : "denied by rule: " + decision.rule);
    };
    const auto byMode = [&] {
        const bool approved = m_settings.approvalMode == ApprovalMode::Auto;
        decide(record, approved, approvalModeName(m_settings.approvalMode), "");
        return answer(approved, approved ? "" : "denied: approvals are set to deny (--approve deny)");
    };
    if (decision.verdict == ApprovalVerdict::Deny)
        return byRule();
    if (decision.verdict == ApprovalVerdict::Ask && m_settings.approvalMode == ApprovalMode::Deny)
        return byMode();
    if (early) // the user answered this very call
        return answerAsTheUser(record);
    if (m_always.contains(alwaysKey(params->tool, params->arguments))) {
        decide(record, true, "always", "approved earlier with 'always' for this task");
        return answer(true, "");
    }
    if (decision.verdict != ApprovalVerdict::Ask)
        return byRule();
    if (m_settings.approvalMode != ApprovalMode::Ask)
        return byMode();
    m_pendingApprovals.emplace(record.callId, PendingApproval{record, params->callId, std::move(answer)});
    emit approvalNeeded(record);
}

namespace {

// A question by its record's callId, or by the tool call's id the agent gave (the window answers a card,
// which knows the latter).
template <typename Pending> auto findPending(Pending& pending, const std::string& callId) {
    auto found = pending.find(callId);
    if (found == pending.end())
        found = std::find_if(pending.begin(), pending.end(),
                             [&](const auto& entry) { return entry.second.toolCallId == callId; });
    return found;
}

} // namespace

bool ToolProxy::isWaiting(const std::string& callId) const {
    return !m_aborted &&
           (findPending(m_pendingApprovals, callId) != m_pendingApprovals.end() || m_announced.contains(callId));
}

void ToolProxy::announced(const std::string& toolCallId, const std::string& tool, const json& arguments) {
    if (!toolCallId.empty() && !m_aborted)
        m_announced[toolCallId] = {tool, arguments};
}

bool ToolProxy::answerApproval(const std::string& callId, bool approved, const std::string& note, bool always) {
    if (m_aborted)
        return false;
    auto pending = findPending(m_pendingApprovals, callId);
    if (const auto announced = m_announced.find(callId); pending == m_pendingApprovals.end() && announced != m_announced.end()) {
        auto [tool, arguments] = std::move(announced->second);
        m_announced.erase(announced);
        answerWhenAsked({callId, std::move(tool), std::move(arguments), approved, note, always, false});
        return true;
    }
    if (pending == m_pendingApprovals.end())
        return false;
    auto [record, toolCallId, reply] = std::move(pending->second);
    m_pendingApprovals.erase(pending);
    if (approved && always)
        m_always.insert(alwaysKey(record.tool, json::parse(record.arguments)));
    decide(record, approved, "user", note);
    reply(approved, note);
    return true;
}

std::vector<std::pair<ApprovalRecord, std::string>> ToolProxy::waitingApprovals() const {
    std::vector<std::pair<ApprovalRecord, std::string>> waiting;
    if (!m_aborted)
        for (const auto& [id, pending] : m_pendingApprovals)
            waiting.emplace_back(pending.record, pending.toolCallId);
    return waiting;
}

void ToolProxy::addRule(const ApprovalRule& rule) {
    if (std::find(m_settings.rules.begin(), m_settings.rules.end(), rule) == m_settings.rules.end())
        m_settings.rules.push_back(rule);
}

void ToolProxy::decide(ApprovalRecord record, bool approved, const std::string& by, const std::string& note) {
    record.approved = approved;
    record.decidedBy = by;
    record.note = note;
    record.decidedAt = now();
    if (auto stored = m_store.updateApproval(record); !stored)
        emit problem(QString::fromStdString("approval decision not recorded: " + stored.error().message));
}

void ToolProxy::abortAll() {
    if (m_aborted)
        return;
    m_aborted = true;
    m_pendingApprovals.clear();
    const auto calls = std::exchange(m_calls, {});
    for (const auto& call : calls)
        if (ChatCall* live = call.data())
            live->abort();
}

} // namespace warren::control
