// ToolProxy: every request needs the task's token with the method's scope; memory is confined to the task's
// prefix; the token budget counts the provider's usage; approvals follow the rules, the mode, then the user.

#include "agent_core/protocol/Methods.h"
#include "app/providers/ScriptedProvider.h"
#include "app/proxy/TaskToken.h"
#include "app/proxy/ToolProxy.h"
#include "app/store/sqlite/SqliteStore.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren;
using namespace warren::control;
using nlohmann::json;

namespace {

struct Harness {
    QTemporaryDir dir;
    std::unique_ptr<Store> store;
    TaskTokens tokens;
    std::unique_ptr<ToolProxy> proxy;
    std::string token;
    std::int64_t nextId = 100; // request ids are unique within an agent's run, as the agent makes them

    explicit Harness(ToolProxy::Settings settings, std::vector<json> turns = {}) {
        auto opened = openSqliteStore(dir.filePath("warren.db").toStdString());
        store = std::move(*opened);
        TaskRecord task;
        task.id = settings.taskId;
        task.createdAt = "2026-11-29T10:00:00.000Z";
        (void)store->insertTask(task);
        json script = {{"turns", turns.empty() ? std::vector<json>{{{"content", "hi"}, {"usage", {{"input", 60}, {"output", 50}}}}}
                                               : turns}};
        auto parsed = protocol::parseScript(script.dump(), "test.json");
        token = tokens.issue(settings.taskId, {scope::kLlm, scope::kMemory, scope::kApproval}, std::chrono::minutes(5));
        proxy = std::make_unique<ToolProxy>(settings, tokens, *store, std::make_unique<ScriptedProvider>(*parsed));
    }

    // Sends one request and waits for its reply.
    protocol::Message call(const std::string& method, json params, const std::optional<std::string>& withToken) {
        if (withToken)
            params[protocol::kTokenParam] = *withToken;
        std::optional<protocol::Message> reply;
        proxy->handle(protocol::Request{nextId++, method, params}, [&](protocol::Message m) { reply = m; });
        if (!QTest::qWaitFor([&] { return reply.has_value(); }, 10000))
            return protocol::ErrorResponse{std::nullopt, {0, "no reply", std::nullopt}};
        return *reply;
    }
    protocol::Message call(const std::string& method, json params) { return call(method, std::move(params), token); }
};

ToolProxy::Settings settingsFor(const std::string& taskId, const std::string& prefix) {
    ToolProxy::Settings settings;
    settings.taskId = taskId;
    settings.memoryPrefix = prefix;
    return settings;
}

std::string errorOf(const protocol::Message& message) {
    const auto* error = std::get_if<protocol::ErrorResponse>(&message);
    return error ? error->error.message : std::string();
}

json resultOf(const protocol::Message& message) {
    const auto* response = std::get_if<protocol::Response>(&message);
    return response ? response->result : json();
}

const json kChat = {{"messages", {{{"role", "user"}, {"content", "hello"}}}}};

} // namespace

class TestToolProxy : public QObject {
    Q_OBJECT

private slots:
    void requestsNeedAValidToken_data();
    void requestsNeedAValidToken();
    void revokedTokenIsRefused();
    void chatGoesToTheProviderAndCountsTokens();
    void budgetStopsFurtherCalls();
    void memoryIsConfinedToThePrefix();
    void approvalsFollowRulesModeAndUser();
    void anAnswerGivenAsleepAnswersThatCallOnly();
    void anAnswerBeforeTheQuestionArrivesIsItsAnswer();
};

void TestToolProxy::requestsNeedAValidToken_data() {
    QTest::addColumn<QString>("token");
    QTest::newRow("missing") << QString();
    QTest::newRow("garbage") << "not-a-token";
    QTest::newRow("another task's") << "other-task";
    QTest::newRow("another secret's") << "other-secret";
    QTest::newRow("without the scope") << "no-llm-scope";
}

void TestToolProxy::requestsNeedAValidToken() {
    QFETCH(QString, token);
    Harness harness(settingsFor("t-1", "alice"));
    std::optional<std::string> presented;
    if (token == "other-task")
        presented = harness.tokens.issue("t-2", {scope::kLlm}, std::chrono::minutes(5));
    else if (token == "other-secret")
        presented = TaskTokens().issue("t-1", {scope::kLlm}, std::chrono::minutes(5));
    else if (token == "no-llm-scope")
        presented = harness.tokens.issue("t-1", {scope::kMemory}, std::chrono::minutes(5));
    else if (!token.isEmpty())
        presented = token.toStdString();
    QSignalSpy problems(harness.proxy.get(), &ToolProxy::problem);
    const auto reply = harness.call(protocol::method::kLlmChat, kChat, presented);
    QVERIFY2(errorOf(reply).find("unauthorized") != std::string::npos, errorOf(reply).c_str());
    QCOMPARE(problems.size(), 1);
    QCOMPARE(harness.proxy->used().input, 0u);
}

void TestToolProxy::revokedTokenIsRefused() {
    Harness harness(settingsFor("t-1", "alice"));
    QVERIFY(errorOf(harness.call(protocol::method::kMemoryGet, {{"namespace", "n"}, {"key", "k"}})).empty());
    harness.tokens.revokeTask("t-1");
    QVERIFY(errorOf(harness.call(protocol::method::kMemoryGet, {{"namespace", "n"}, {"key", "k"}})).find("unauthorized") !=
            std::string::npos);
}

void TestToolProxy::chatGoesToTheProviderAndCountsTokens() {
    Harness harness(settingsFor("t-1", "alice"));
    QSignalSpy deltas(harness.proxy.get(), &ToolProxy::modelDelta);
    const auto reply = harness.call(protocol::method::kLlmChat, kChat);
    QCOMPARE(resultOf(reply).value("content", ""), "hi");
    QVERIFY(!deltas.isEmpty());
    QCOMPARE(harness.proxy->used().input, 60u);
    QCOMPARE(harness.proxy->used().output, 50u);
    // The token is taken out before the strict reader: a stray key would have been refused.
    QVERIFY(errorOf(reply).empty());
}

void TestToolProxy::budgetStopsFurtherCalls() {
    auto settings = settingsFor("t-1", "alice");
    settings.tokenBudget = 100;
    Harness harness(settings, {{{"content", "one"}, {"usage", {{"input", 60}, {"output", 50}}}},
                               {{"content", "two"}, {"usage", {{"input", 1}, {"output", 1}}}}});
    QSignalSpy exhausted(harness.proxy.get(), &ToolProxy::budgetExhausted);
    QCOMPARE(resultOf(harness.call(protocol::method::kLlmChat, kChat)).value("content", ""), "one");
    QCOMPARE(exhausted.size(), 1);
    const auto refused = harness.call(protocol::method::kLlmChat, kChat);
    QVERIFY2(errorOf(refused).find("token budget of 100") != std::string::npos, errorOf(refused).c_str());
}

void TestToolProxy::memoryIsConfinedToThePrefix() {
    Harness alice(settingsFor("t-1", "alice"));
    QVERIFY(errorOf(alice.call(protocol::method::kMemoryPut,
                               {{"namespace", "notes"}, {"key", "build"}, {"value", "cmake --build build"}}))
                .empty());
    QCOMPARE(resultOf(alice.call(protocol::method::kMemoryGet, {{"namespace", "notes"}, {"key", "build"}}))
                 .value("value", ""),
             "cmake --build build");

    // Another task with another prefix, on the same database: nothing of alice's is visible.
    auto bobSettings = settingsFor("t-2", "bob");
    TaskRecord bobTask;
    bobTask.id = "t-2";
    bobTask.createdAt = "2026-11-29T10:00:00.000Z";
    QVERIFY(alice.store->insertTask(bobTask));
    const std::string bobToken = alice.tokens.issue("t-2", {scope::kMemory}, std::chrono::minutes(5));
    ToolProxy bob(bobSettings, alice.tokens, *alice.store, nullptr);
    std::optional<protocol::Message> reply;
    bob.handle(protocol::Request{std::int64_t{1}, protocol::method::kMemoryGet,
                                 {{"namespace", "notes"}, {"key", "build"}, {"token", bobToken}}},
               [&](protocol::Message m) { reply = m; });
    QVERIFY(reply);
    QCOMPARE(resultOf(*reply).value("found", true), false);
    reply.reset();
    bob.handle(protocol::Request{std::int64_t{2}, protocol::method::kMemorySearch,
                                 {{"query", "cmake"}, {"token", bobToken}}},
               [&](protocol::Message m) { reply = m; });
    QVERIFY(reply);
    QVERIFY(resultOf(*reply)["hits"].empty());
    // Bob's token does not open alice's proxy either.
    const auto stolen = alice.call(protocol::method::kMemoryGet, {{"namespace", "notes"}, {"key", "build"}}, bobToken);
    QVERIFY(errorOf(stolen).find("unauthorized") != std::string::npos);
}

void TestToolProxy::approvalsFollowRulesModeAndUser() {
    auto settings = settingsFor("t-1", "alice");
    settings.approvalMode = ApprovalMode::Ask;
    auto rules = parseApprovalRules(defaultApprovalRulesJson());
    QVERIFY(rules);
    settings.rules = *rules;
    Harness harness(settings);
    auto ask = [&](const std::string& command) {
        return json{{"tool", "shell"}, {"arguments", {{"command", command}}}, {"reason", "approval_tools"}};
    };
    // A rule allows, a rule denies, without asking anyone.
    QCOMPARE(resultOf(harness.call(protocol::method::kApprovalRequest, ask("ls -la"))).value("approved", false), true);
    QCOMPARE(resultOf(harness.call(protocol::method::kApprovalRequest, ask("rm -rf /"))).value("approved", true), false);

    // No rule: the user is asked; "always" approves the same command for the rest of the task.
    QSignalSpy needed(harness.proxy.get(), &ToolProxy::approvalNeeded);
    std::optional<protocol::Message> reply;
    harness.proxy->handle(protocol::Request{std::int64_t{9}, protocol::method::kApprovalRequest,
                                            [&] { json p = ask("make test"); p["token"] = harness.token; return p; }()},
                          [&](protocol::Message m) { reply = m; });
    QCOMPARE(needed.size(), 1);
    QVERIFY(!reply);
    const auto record = needed.front().front().value<ApprovalRecord>();
    harness.proxy->answerApproval(record.callId, true, "", true);
    QVERIFY(reply);
    QCOMPARE(resultOf(*reply).value("approved", false), true);
    QCOMPARE(resultOf(harness.call(protocol::method::kApprovalRequest, ask("make test"))).value("approved", false), true);
    QCOMPARE(needed.size(), 1);

    // The window answers the card of the approval_requested event: by the tool call's id.
    std::optional<protocol::Message> windowReply;
    harness.proxy->handle(protocol::Request{std::int64_t{10}, protocol::method::kApprovalRequest,
                                            [&] {
                                                json p = ask("make install");
                                                p["call_id"] = "call_4";
                                                p["token"] = harness.token;
                                                return p;
                                            }()},
                          [&](protocol::Message m) { windowReply = m; });
    QCOMPARE(needed.size(), 2);
    harness.proxy->answerApproval("call_3", true, "", false); // another call: nothing happens
    QVERIFY(!windowReply);
    harness.proxy->answerApproval("call_4", false, "not now", false);
    QVERIFY(windowReply);
    QCOMPARE(resultOf(*windowReply).value("approved", true), false);
    QCOMPARE(resultOf(*windowReply).value("note", ""), "not now");

    // Every decision is stored.
    auto stored = harness.store->approvals("t-1");
    QVERIFY(stored);
    QCOMPARE(stored->size(), 5u);
    QCOMPARE(std::count_if(stored->begin(), stored->end(), [](const ApprovalRecord& a) { return a.decidedBy == "user"; }),
             2);
    QCOMPARE(std::count_if(stored->begin(), stored->end(), [](const ApprovalRecord& a) { return a.decidedBy == "rule"; }),
             2);
}

// The answer a user gave while the task slept (TaskSleep.h) answers the woken agent's question about that call
// once, at once, with no new record; the same id with other arguments, or the same call asked again, is a
// question like any other.
void TestToolProxy::anAnswerGivenAsleepAnswersThatCallOnly() {
    auto settings = settingsFor("t-1", "alice");
    settings.approvalMode = ApprovalMode::Ask;
    Harness harness(settings);
    const auto ask = [&](const std::string& path) {
        return json{{"tool", "write_file"}, {"arguments", {{"path", path}}}, {"reason", "approval_tools"},
                    {"call_id", "w1"}, {"token", harness.token}};
    };
    harness.proxy->answerWhenAsked({"w1", "write_file", json{{"path", "notes.txt"}}, false, "not that one", false});
    QSignalSpy needed(harness.proxy.get(), &ToolProxy::approvalNeeded);
    std::vector<protocol::Message> replies;
    const auto request = [&](std::int64_t id, const std::string& path) {
        harness.proxy->handle(protocol::Request{id, protocol::method::kApprovalRequest, ask(path)},
                              [&](protocol::Message m) { replies.push_back(std::move(m)); });
    };
    // Another file under the same call id: not what the user answered.
    request(1, "../.bashrc");
    QCOMPARE(needed.size(), 1);
    QVERIFY(replies.empty());
    request(2, "notes.txt");
    QCOMPARE(replies.size(), std::size_t(1));
    QCOMPARE(resultOf(replies[0]).value("approved", true), false);
    QCOMPARE(resultOf(replies[0]).value("note", ""), "not that one");
    QCOMPARE(needed.size(), 1);
    request(3, "notes.txt"); // spent: asked again, it waits for the user
    QCOMPARE(needed.size(), 2);
    QCOMPARE(replies.size(), std::size_t(1));
    auto stored = harness.store->approvals("t-1");
    QVERIFY(stored);
    QCOMPARE(stored->size(), 2u); // the two questions asked; the early answer made none
}

// The window shows a card from the agent's approval_requested event, which can be stored and shown before the
// question itself reaches the proxy. The user's click in between is the question's answer, recorded as the
// user's when the question comes; before, it was dropped and the task waited forever.
void TestToolProxy::anAnswerBeforeTheQuestionArrivesIsItsAnswer() {
    auto settings = settingsFor("t-1", "alice");
    settings.approvalMode = ApprovalMode::Ask;
    auto rules = parseApprovalRules(defaultApprovalRulesJson());
    QVERIFY(rules);
    settings.rules = *rules;
    Harness harness(settings);
    const auto ask = [&](const std::string& callId, const std::string& command) {
        return json{{"tool", "shell"}, {"arguments", {{"command", command}}}, {"reason", "approval_tools"},
                    {"call_id", callId}, {"token", harness.token}};
    };
    QSignalSpy needed(harness.proxy.get(), &ToolProxy::approvalNeeded);
    std::vector<protocol::Message> replies;
    const auto request = [&](std::int64_t id, const std::string& callId, const std::string& command) {
        harness.proxy->handle(protocol::Request{id, protocol::method::kApprovalRequest, ask(callId, command)},
                              [&](protocol::Message m) { replies.push_back(std::move(m)); });
    };

    QVERIFY(!harness.proxy->answerApproval("c1", true, "", false)); // neither announced nor asked
    harness.proxy->announced("c1", "shell", json{{"command", "touch a"}});
    QVERIFY(harness.proxy->isWaiting("c1"));
    QVERIFY(harness.proxy->answerApproval("c1", false, "not yet", false));
    QVERIFY(!harness.proxy->answerApproval("c1", true, "", false)); // one answer per question
    request(1, "c1", "touch a");
    QCOMPARE(needed.size(), 0);
    QCOMPARE(replies.size(), std::size_t(1));
    QCOMPARE(resultOf(replies[0]).value("approved", true), false);
    QCOMPARE(resultOf(replies[0]).value("note", ""), "not yet");
    QVERIFY(!harness.proxy->isWaiting("c1"));

    // Announced, then asked about other arguments than the card showed: the answer is not for it.
    harness.proxy->announced("c2", "shell", json{{"command", "touch b"}});
    QVERIFY(harness.proxy->answerApproval("c2", true, "", false));
    request(2, "c2", "rm -rf b");
    QCOMPARE(needed.size(), 1);
    QCOMPARE(replies.size(), std::size_t(1));

    // Announced and asked in the usual order: the question waits as any other.
    harness.proxy->announced("c3", "shell", json{{"command", "touch c"}});
    request(3, "c3", "touch c");
    QCOMPARE(needed.size(), 2);
    QVERIFY(harness.proxy->answerApproval("c3", true, "", false));
    QCOMPARE(replies.size(), std::size_t(2));

    // A rule that denies is not overridden by an early approval (every call's card shows, also one a rule
    // decides at once).
    harness.proxy->announced("c4", "shell", json{{"command", "rm -rf /"}});
    QVERIFY(harness.proxy->answerApproval("c4", true, "", false));
    request(4, "c4", "rm -rf /");
    QCOMPARE(replies.size(), std::size_t(3));
    QCOMPARE(resultOf(replies[2]).value("approved", true), false);

    auto stored = harness.store->approvals("t-1");
    QVERIFY(stored);
    QCOMPARE(stored->size(), 4u);
    QCOMPARE(stored->at(0).decidedBy, "user");
    QCOMPARE(stored->at(0).approved, std::optional<bool>(false));
    QCOMPARE(stored->at(0).note, "not yet");
    QCOMPARE(stored->at(1).decidedBy, ""); // still waiting
    QCOMPARE(stored->at(2).decidedBy, "user");
    QCOMPARE(stored->at(3).decidedBy, "rule");
}

QTEST_GUILESS_MAIN(TestToolProxy)
#include "tst_tool_proxy.moc"
