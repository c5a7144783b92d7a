#pragma once
// The control plane's side of one task's requests (docs/PROTOCOL.md): every request must carry the task's
// token with the method's scope; then llm.chat goes to the provider with the real key (its streamed text
// comes out as modelDelta), memory.* is served from the store confined to the task's memory prefix, and
// approval.request is decided by the rules, the approval mode, and, when they say ask, the user;
// workspace.pull and workspace.push carry the task's trees (TaskTrees) for a task whose agent runs where
// they are not (a cluster's pod), and are refused for any other.
// The token budget is enforced here, on the provider's own counts, which the agent cannot understate.

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/TokenUsage.h"
#include "app/providers/Provider.h"
#include "app/proxy/ApprovalMode.h"
#include "app/proxy/ApprovalRules.h"
#include "app/proxy/TaskToken.h"
#include "app/proxy/TaskTrees.h"
#include "app/store/StoreTypes.h"

#include <QObject>
#include <QPointer>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace warren::control {

class Store;

class ToolProxy : public QObject {
    Q_OBJECT
public:
    struct Settings {
        std::string taskId;
        std::uint64_t run = 1; // which launch of the task's agent (1 + resumes)
        std::string memoryPrefix;
        std::uint64_t tokenBudget = 0; // 0: none
        ApprovalMode approvalMode = ApprovalMode::Deny;
        std::vector<ApprovalRule> rules;
        // The trees workspace.pull and workspace.push carry; nullopt: the agent has them (a sandbox on this
        // host), and those methods are refused.
        std::optional<TaskTrees::Settings> trees = std::nullopt;
    };
    using Reply = std::function<void(protocol::Message)>;
    using Answer = std::function<void(bool approved, const std::string& note)>;

    // provider may be null (a task without a model): llm.chat then fails with a message saying so.
    ToolProxy(Settings settings, TaskTokens& tokens, Store& store, std::unique_ptr<Provider> provider,
              QObject* parent = nullptr);
    ~ToolProxy() override;

    // reply is called exactly once, now or later (a model call, a user's decision), unless abortAll() ran.
    void handle(const protocol::Request& request, Reply reply);
    // The user's answer to an approvalNeeded. callId is its record's callId, or the tool call's id the
    // agent gave (approval_requested's data.id). always: the same call (shell: the same command; other
    // tools: the tool) is approved for the rest of this task without asking.
    // False when no question with that id waits (answered already, never asked or announced). A question
    // announced and not asked yet keeps the answer for when it is (see announced).
    bool answerApproval(const std::string& callId, bool approved, const std::string& note, bool always);
    // Whether the question callId (as answerApproval takes it) waits for the user now.
    bool isWaiting(const std::string& callId) const;
    // The agent's approval_requested event about the call toolCallId: its question follows on the channel.
    // The window shows the card from the event, which can be stored and shown before the question comes; an
    // answer given in between is the question's, recorded as the user's when it comes, never lost.
    void announced(const std::string& toolCallId, const std::string& tool, const nlohmann::json& arguments);
    void addRule(const ApprovalRule& rule); // after the others, for the rest of this task
    // The questions that wait for the user now, and the agent's id of each one's call.
    std::vector<std::pair<ApprovalRecord, std::string>> waitingApprovals() const;
    bool modelCallsInFlight() const { return !m_calls.empty(); }
    // An answer the user gave while no agent ran (a task asleep, TaskSleep.h): the question about the call
    // toolCallId, with that tool and those arguments (JSON), is answered with it as soon as the agent asks,
    // once, without a new record (its record was decided when the answer came). A question that differs in
    // any of them is asked as any other.
    struct EarlyAnswer {
        std::string toolCallId;
        std::string tool;
        nlohmann::json arguments;
        bool approved = false;
        std::string note;
        bool always = false;
        bool recorded = true; // false: an answer to an announced question, recorded when the question comes
    };
    void answerWhenAsked(EarlyAnswer answer) { m_earlyAnswers[answer.toolCallId] = std::move(answer); }
    // The task ended: model calls in flight are aborted and nothing more is answered.
    void abortAll();

    // A CLI agent's model calls go through the task's ModelProxy, not llm.chat, and count against the same
    // budget: whether one more may go (an error, and budgetExhausted, once the budget is spent), and what one
    // used, on the provider's counts.
    Status admitModelCall();
    // A token of this task with that scope, unexpired and not revoked (what every request is checked with).
    Status checkToken(const std::string& token, const char* requiredScope) const;
    void countModelCall(const protocol::TokenUsage& usage);

    protocol::TokenUsage used() const { return m_used; }
    const Settings& settings() const { return m_settings; }

signals:
    // agent: the sub-agent whose call it is (llm.chat's agent); empty for the task's own agent.
    void modelDelta(const QString& text, const QString& agent);
    void modelRetry(int attempt, qint64 delayMs, const QString& why);
    void modelAdapted(const QString& what); // the server refused a parameter; the request was adapted
    void approvalNeeded(const warren::control::ApprovalRecord& approval);
    void budgetExhausted(quint64 used, quint64 budget);
    // An llm.chat call ended: the provider answered (with the tokens it counted) or the call failed.
    void modelCalled(bool answered, quint64 inputTokens, quint64 outputTokens);
    void problem(const QString& message); // a refused request or a store failure, for the task's log

private:
    void chat(const protocol::Request& request, Reply reply);
    void memory(const protocol::Request& request, Reply reply);
    void approval(const protocol::Request& request, Reply reply);
    void carry(const protocol::Request& request, Reply reply);
    std::optional<std::string> budgetSpent(); // why no model call may go, once the budget is spent
    void count(const protocol::TokenUsage& usage);
    void decide(ApprovalRecord record, bool approved, const std::string& by, const std::string& note);
    std::string alwaysKey(const std::string& tool, const nlohmann::json& arguments) const;

    Settings m_settings;
    TaskTokens& m_tokens;
    Store& m_store;
    std::unique_ptr<Provider> m_provider;
    std::optional<TaskTrees> m_trees;
    protocol::TokenUsage m_used;
    struct PendingApproval {
        ApprovalRecord record;
        std::string toolCallId; // the agent's id of the call (approval_requested's data.id)
        Answer answer;
    };
    std::map<std::string, PendingApproval> m_pendingApprovals; // by ApprovalRecord::callId
    std::set<std::string> m_always;
    std::map<std::string, EarlyAnswer> m_earlyAnswers; // by the agent's id of the call
    std::map<std::string, std::pair<std::string, nlohmann::json>> m_announced; // id -> (tool, arguments)
    std::vector<QPointer<ChatCall>> m_calls;
    bool m_aborted = false;
};

} // namespace warren::control
