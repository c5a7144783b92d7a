// Sub-agents in one sandbox (spawn_agent, wait_agents, send_agent, close_agent), with this test as the
// control plane answering every agent's llm.chat: sub-agents run at once, each with its own loop, context
// and events; roles limit their tools; the limits, the shared budget and the path claims hold; kill -9
// resumes every agent from its checkpoint, and cancel stops them all.

#include "agent_core/protocol/EventTypes.h"
#include "tests/support/SandboxRun.h"
#include "tests/support/ServeSession.h"

#include <QFile>
#include <QtTest>
#include <csignal>
#include <map>
#include <set>

using namespace warren;
using namespace warren::test;
namespace et = warren::protocol::event_type;
using nlohmann::json;

namespace {

json reply(std::vector<json> calls, const std::string& content = {}) {
    return {{"content", content},
            {"tool_calls", std::move(calls)},
            {"token_usage", {{"input", 10}, {"output", 5}}},
            {"finish_reason", "tool_calls"}};
}

json call(const std::string& id, const std::string& tool, json arguments) {
    return {{"id", id}, {"name", tool}, {"arguments", std::move(arguments)}};
}

json finishCall(const std::string& id, const std::string& summary) {
    return call(id, "finish", {{"summary", summary}});
}

std::string agentOf(const json& chat) {
    return chat["params"].value("agent", "");
}

QStringList toolsOf(const json& chat) {
    QStringList names;
    for (const auto& tool : chat["params"]["tools"])
        names << QString::fromStdString(tool["name"].get<std::string>());
    return names;
}

// The content of the last message of a chat request (a tool result, or a message to a sub-agent).
std::string lastMessage(const json& chat) {
    return chat["params"]["messages"].back().value("content", "");
}

// The control plane's side, by agent: llm.chat requests held until the test answers them.
class Agents {
public:
    explicit Agents(ServeSession& session) : m_session(session) {}

    // The next llm.chat of agent ("" is the task's own agent), holding the others that come first.
    json chatOf(const std::string& agent) { return requestOf("llm.chat", agent); }
    // The next request of method from agent (approval.request names none: ""), holding the others.
    json requestOf(const std::string& method, const std::string& agent) {
        const std::string key = method == "llm.chat" ? agent : method + " " + agent;
        for (;;) {
            if (auto held = m_held.find(key); held != m_held.end() && !held->second.empty()) {
                json request = held->second.front();
                held->second.erase(held->second.begin());
                return request;
            }
            json request = m_session.next();
            if (request.is_null())
                return request;
            const std::string method_ = request.value("method", "");
            if (!method_.empty())
                m_held[method_ == "llm.chat" ? agentOf(request) : method_ + " " + agentOf(request)].push_back(
                    request);
        }
    }
    // Whether agent's request is already held, without reading more.
    bool holds(const std::string& agent) const {
        const auto held = m_held.find(agent);
        return held != m_held.end() && !held->second.empty();
    }

private:
    ServeSession& m_session;
    std::map<std::string, std::vector<json>> m_held;
};

std::vector<json> eventsOf(const ServeSession& session, const std::string& agent, std::string_view type) {
    std::vector<json> found;
    for (const auto& event : session.events)
        if (event.value("agent", "") == agent && event.value("type", "") == type)
            found.push_back(event);
    return found;
}

json readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    return json::parse(file.readAll().toStdString(), nullptr, false);
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestAgentSubagents : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY2(QFileInfo(agentBinary()).isExecutable(), "WARREN_AGENT must be set"); }

    void threeWorkersRunAtOnceAndReport() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 3}});
        Agents agents(session);

        json chat = agents.chatOf("");
        QVERIFY(toolsOf(chat).contains("spawn_agent"));
        QVERIFY(toolsOf(chat).contains("close_agent"));
        session.respond(chat, reply({call("s1", "spawn_agent", {{"brief", "Write a.txt"}}),
                                     call("s2", "spawn_agent", {{"brief", "Write b.txt"}}),
                                     call("s3", "spawn_agent", {{"brief", "Write c.txt"}})}));
        // All three ask the model before any of them is answered: they run at once.
        std::map<std::string, json> first;
        for (const char* id : {"agent-1", "agent-2", "agent-3"}) {
            first[id] = agents.chatOf(id);
            QVERIFY2(!first[id].is_null(), id);
        }
        for (const auto& [id, subChat] : first) {
            QCOMPARE(toolsOf(subChat), (QStringList{"shell", "read_file", "write_file", "edit_file", "list_files",
                                                     "search", "update_plan", "finish"}));
            QVERIFY(lastMessage(subChat).find("sub-agent") != std::string::npos);
        }
        QVERIFY(lastMessage(first["agent-2"]).find("Write b.txt") != std::string::npos);
        for (const auto& [id, name] : std::map<std::string, std::string>{
                 {"agent-1", "a.txt"}, {"agent-2", "b.txt"}, {"agent-3", "c.txt"}})
            session.respond(first[id], reply({call("w", "write_file", {{"path", name}, {"content", id + "\n"}})}));
        session.respond(agents.chatOf(""), reply({call("wait", "wait_agents", json::object())}));
        for (const char* id : {"agent-1", "agent-2", "agent-3"})
            session.respond(agents.chatOf(id), reply({finishCall("f", std::string("done by ") + id)}));

        chat = agents.chatOf("");
        const std::string waited = lastMessage(chat);
        QVERIFY2(waited.find("agent-2 (worker) finished: done by agent-2\n  files it changed: b.txt") !=
                     std::string::npos,
                 waited.c_str());
        session.respond(chat, reply({finishCall("f", "all three done")}));
        QCOMPARE(session.finish(), 0);

        for (const char* id : {"agent-1", "agent-2", "agent-3"}) {
            const auto started = eventsOf(session, id, et::kAgentStarted);
            QCOMPARE(started.size(), std::size_t(1));
            QVERIFY(started[0]["data"]["parent"].is_null());
            QCOMPARE(started[0]["data"]["role"], "worker");
            QCOMPARE(eventsOf(session, id, et::kFileChanged).size(), std::size_t(1));
            const auto finished = eventsOf(session, id, et::kAgentFinished);
            QCOMPARE(finished.size(), std::size_t(1));
            QCOMPARE(finished[0]["data"]["reason"], "finished");
        }
        QCOMPARE(eventsOf(session, "agent-3", et::kAgentFinished)[0]["data"]["files"], json({"c.txt"}));
        QCOMPARE(eventsOf(session, "agent-1", et::kAgentStarted)[0]["data"]["call_id"], "s1");
        QCOMPARE(session.lastEvent()["type"], "task_finished");
        QVERIFY(!session.lastEvent().contains("agent"));
        QCOMPARE(readAll(session.dir("workspace") + "/b.txt"), QByteArray("agent-2\n"));
        const json report = readJson(session.dir("output") + "/resource_report.json");
        QCOMPARE(report["subagents"]["started"], 3);
        QCOMPARE(report["subagents"]["steps"], 6);
        QCOMPARE(report["subagents"]["tool_calls"]["write_file"], 3);
        QCOMPARE(report["steps"], 3);
    }

    void rolesAndLimits() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 1}});
        Agents agents(session);
        session.respond(agents.chatOf(""),
                        reply({call("s1", "spawn_agent", {{"brief", "Look around"}, {"role", "explorer"}}),
                               call("s2", "spawn_agent", {{"brief", "One too many"}}),
                               call("s3", "spawn_agent", {{"brief", "x"}, {"role", "boss"}})}));
        json sub = agents.chatOf("agent-1");
        QCOMPARE(toolsOf(sub), (QStringList{"read_file", "list_files", "search", "finish"}));
        QVERIFY(lastMessage(sub).find("read-only") != std::string::npos);
        json chat = agents.chatOf("");
        QVERIFY(session.hasEvent(et::kToolResult, "1 sub-agents are open, the most this task allows"));
        QVERIFY(session.hasEvent(et::kToolResult, "must be one of \\\"worker\\\", \\\"explorer\\\", got \\\"boss\\\""));
        session.respond(sub, reply({call("w", "write_file", {{"path", "x.txt"}, {"content", "no"}})}));
        sub = agents.chatOf("agent-1");
        QVERIFY2(lastMessage(sub).find("no tool \"write_file\"") != std::string::npos, lastMessage(sub).c_str());
        session.respond(sub, reply({finishCall("f", "looked")}));
        session.respond(chat, reply({call("wait", "wait_agents", {{"agents", {"agent-1"}}})}));
        chat = agents.chatOf("");
        QVERIFY(lastMessage(chat).find("agent-1 (explorer) finished: looked") != std::string::npos);
        session.respond(chat, reply({finishCall("f", "done")}));
        QCOMPARE(session.finish(), 0);
        QVERIFY(!QFileInfo::exists(session.dir("workspace") + "/x.txt"));
    }

    void aPathAnotherAgentWritesIsAConflict() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 2}});
        Agents agents(session);
        session.respond(agents.chatOf(""), reply({call("s1", "spawn_agent", {{"brief", "Own notes.txt"}})}));
        session.respond(agents.chatOf("agent-1"),
                        reply({call("w1", "write_file", {{"path", "notes.txt"}, {"content", "sub\n"}})}));
        QVERIFY(session.waitFor([](const json& e) {
            return e.value("type", "") == "tool_result" && e["data"]["id"] == "agent-1_w1";
        }));
        session.respond(agents.chatOf(""),
                        reply({call("w2", "write_file", {{"path", "./notes.txt"}, {"content", "root\n"}})}));
        json chat = agents.chatOf("");
        QVERIFY2(lastMessage(chat).find("conflict: notes.txt is being written by agent-1") != std::string::npos,
                 lastMessage(chat).c_str());
        QCOMPARE(readAll(session.dir("workspace") + "/notes.txt"), QByteArray("sub\n"));
        session.respond(agents.chatOf("agent-1"), reply({finishCall("f", "notes written")}));
        session.respond(chat, reply({call("wait", "wait_agents", json::object())}));
        // Its claims end with it.
        session.respond(agents.chatOf(""),
                        reply({call("w3", "write_file", {{"path", "notes.txt"}, {"content", "root\n"}})}));
        chat = agents.chatOf("");
        QVERIFY(lastMessage(chat).find("conflict") == std::string::npos);
        session.respond(chat, reply({finishCall("f", "done")}));
        QCOMPARE(session.finish(), 0);
        QCOMPARE(readAll(session.dir("workspace") + "/notes.txt"), QByteArray("root\n"));
    }

    void theBudgetIsTheWholeTasks() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 1}, {"max_steps", 3}});
        Agents agents(session);
        session.respond(agents.chatOf(""), reply({call("s1", "spawn_agent", {{"brief", "Work"}})}));
        // Step 2 is the sub-agent's first and step 3 the task's own agent's second, in either order.
        json sub = agents.chatOf("agent-1");
        json chat = agents.chatOf("");
        session.respond(sub, reply({call("l", "list_files", json::object())}));
        QVERIFY(session.waitFor([](const json& e) { return e.value("type", "") == "agent_finished"; }));
        QCOMPARE(eventsOf(session, "agent-1", et::kAgentFinished)[0]["data"]["reason"], "guard");
        session.respond(chat, reply({call("wait", "wait_agents", json::object())}));
        QCOMPARE(session.finish(), 1);
        QCOMPARE(session.lastEvent()["data"]["reason"], "guard");
        QVERIFY(session.hasEvent(et::kGuard, "stopped after 3 steps (max_steps)"));
    }

    void killNineResumesEveryAgent() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 2}});
        {
            Agents agents(session);
            session.respond(agents.chatOf(""), reply({call("s1", "spawn_agent", {{"brief", "Write one.txt"}}),
                                                     call("s2", "spawn_agent", {{"brief", "Write two.txt"}})}));
            session.respond(agents.chatOf("agent-1"),
                            reply({call("w1", "write_file", {{"path", "one.txt"}, {"content", "1\n"}})}));
            QVERIFY(!agents.chatOf("agent-2").is_null()); // asked, never answered
            session.respond(agents.chatOf(""), reply({call("wait", "wait_agents", json::object())}));
            QVERIFY(!agents.chatOf("agent-1").is_null()); // its second step waits for the model
            session.kill9();
        }
        const std::size_t before = session.events.size();
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 2}});
        Agents agents(session);
        // The task's agent goes on from its checkpoint: its wait was interrupted, or (killed before the
        // state written ahead of the call) it is asked again after its spawns.
        json chat = agents.chatOf("");
        QVERIFY2(lastMessage(chat).starts_with("[interrupted]") || lastMessage(chat).starts_with("Started agent-"),
                 lastMessage(chat).c_str());
        json one = agents.chatOf("agent-1");
        json two = agents.chatOf("agent-2");
        std::set<std::string> resumed;
        for (std::size_t i = before; i < session.events.size(); ++i)
            if (session.events[i].value("type", "") == "task_resumed")
                resumed.insert(session.events[i].value("agent", "task"));
        QVERIFY((resumed == std::set<std::string>{"task", "agent-1", "agent-2"}));
        // agent-1's write is in its context: it goes on from there.
        QCOMPARE(one["params"]["messages"].back().value("tool_call_id", ""), "agent-1_w1");
        session.respond(one, reply({finishCall("f", "one written")}));
        session.respond(two, reply({call("w2", "write_file", {{"path", "two.txt"}, {"content", "2\n"}})}));
        session.respond(agents.chatOf("agent-2"), reply({finishCall("f", "two written")}));
        session.respond(chat, reply({call("wait2", "wait_agents", json::object())}));
        chat = agents.chatOf("");
        QVERIFY(lastMessage(chat).find("one written") != std::string::npos);
        QVERIFY(lastMessage(chat).find("two written") != std::string::npos);
        session.respond(chat, reply({finishCall("f", "both")}));
        QCOMPARE(session.finish(), 0);
        QCOMPARE(readAll(session.dir("workspace") + "/one.txt"), QByteArray("1\n"));
        QCOMPARE(readAll(session.dir("workspace") + "/two.txt"), QByteArray("2\n"));
        QCOMPARE(readJson(session.dir("output") + "/resource_report.json")["subagents"]["started"], 2);
    }

    void cancelStopsEveryAgent() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 1}});
        Agents agents(session);
        session.respond(agents.chatOf(""), reply({call("s1", "spawn_agent", {{"brief", "Run long"}})}));
        session.respond(agents.chatOf("agent-1"),
                        reply({call("sh", "shell", {{"command", "echo pid $$; exec sleep 600"}})}));
        session.respond(agents.chatOf(""), reply({call("wait", "wait_agents", json::object())}));
        QVERIFY(session.waitFor([](const json& e) {
            return e.value("type", "") == "tool_output" && e.value("agent", "") == "agent-1";
        }));
        const auto output = eventsOf(session, "agent-1", et::kToolOutput)[0]["data"]["text"].get<std::string>();
        const pid_t pid = std::stoi(output.substr(output.find("pid ") + 4));
        QVERIFY(pid > 0);
        session.send({{"jsonrpc", "2.0"}, {"method", "control.cancel"}});
        QCOMPARE(session.finish(), 1);
        QCOMPARE(eventsOf(session, "agent-1", et::kAgentFinished)[0]["data"]["reason"], "cancelled");
        QCOMPARE(session.lastEvent()["type"], "task_finished");
        QCOMPARE(session.lastEvent()["data"]["reason"], "cancelled");
        QVERIFY(kill(pid, 0) != 0); // nothing left running
    }

    // Two agents whose models give their calls the same id ask approval at once: each question, each event
    // and each answer stays with its own agent's call.
    void approvalsOfAgentsWithTheSameCallIdsStayApart() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 2}, {"approval_tools", {"shell"}}});
        Agents agents(session);
        session.respond(agents.chatOf(""), reply({call("s1", "spawn_agent", {{"brief", "Make one"}}),
                                                  call("s2", "spawn_agent", {{"brief", "Make two"}})}));
        for (const char* id : {"agent-1", "agent-2"}) {
            const json chat = agents.chatOf(id);
            session.respond(chat, reply({call("x", "shell", {{"command", std::string("touch ") + id}})}));
        }
        std::map<std::string, json> asked; // by the call id the control plane sees
        for (int i = 0; i < 2; ++i) {
            const json approval = agents.requestOf("approval.request", "");
            QVERIFY(!approval.is_null());
            asked[approval["params"]["call_id"].get<std::string>()] = approval;
        }
        QCOMPARE(asked.size(), std::size_t(2));
        QVERIFY(asked.contains("agent-1_x"));
        QVERIFY(asked.contains("agent-2_x"));
        QCOMPARE(asked["agent-2_x"]["params"]["arguments"]["command"], "touch agent-2");
        session.respond(asked["agent-2_x"], {{"approved", true}});
        session.respond(asked["agent-1_x"], {{"approved", false}, {"note", "not this one"}});
        for (const char* id : {"agent-1", "agent-2"})
            session.respond(agents.chatOf(id), reply({finishCall("f", "done")}));
        session.respond(agents.chatOf(""), reply({call("wait", "wait_agents", json::object())}));
        session.respond(agents.chatOf(""), reply({finishCall("f", "both asked")}));
        QCOMPARE(session.finish(), 0);

        QVERIFY(QFileInfo::exists(session.dir("workspace") + "/agent-2"));
        QVERIFY(!QFileInfo::exists(session.dir("workspace") + "/agent-1"));
        for (const char* id : {"agent-1", "agent-2"}) {
            const auto requested = eventsOf(session, id, et::kApprovalRequested);
            QCOMPARE(requested.size(), std::size_t(1));
            QCOMPARE(requested[0]["data"]["id"], std::string(id) + "_x");
            const auto resolved = eventsOf(session, id, et::kApprovalResolved);
            QCOMPARE(resolved.size(), std::size_t(1));
            QCOMPARE(resolved[0]["data"]["approved"], std::string(id) == "agent-2");
        }
    }

    // close_agent ends a sub-agent that waits for the user's approval: the question is withdrawn.
    void closingAnAgentEndsItsApprovalWait() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 1}, {"approval_tools", {"shell"}}});
        Agents agents(session);
        session.respond(agents.chatOf(""), reply({call("s1", "spawn_agent", {{"brief", "Ask"}})}));
        session.respond(agents.chatOf("agent-1"), reply({call("x", "shell", {{"command", "touch asked"}})}));
        const json approval = agents.requestOf("approval.request", "");
        QVERIFY(!approval.is_null()); // never answered
        session.respond(agents.chatOf(""), reply({call("c", "close_agent", {{"agent", "agent-1"}})}));
        const json chat = agents.chatOf("");
        QVERIFY2(lastMessage(chat).find("Closed. agent-1 (worker) cancelled") != std::string::npos,
                 lastMessage(chat).c_str());
        session.respond(chat, reply({finishCall("f", "closed it")}));
        QCOMPARE(session.finish(), 0);
        const auto resolved = eventsOf(session, "agent-1", et::kApprovalResolved);
        QCOMPARE(resolved.size(), std::size_t(1));
        QCOMPARE(resolved[0]["data"]["approved"], false);
        QVERIFY(!QFileInfo::exists(session.dir("workspace") + "/asked"));
    }

    void messagesAndClose() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask({{"max_subagents", 1}});
        Agents agents(session);
        session.respond(agents.chatOf(""), reply({call("s1", "spawn_agent", {{"brief", "Check a"}})}));
        json sub = agents.chatOf("agent-1");
        session.respond(agents.chatOf(""),
                        reply({call("m", "send_agent", {{"agent", "agent-1"}, {"message", "Also check b"}})}));
        QVERIFY(session.waitFor([](const json& e) { return e.value("type", "") == "tool_result" && e["data"]["id"] == "m"; }));
        session.respond(sub, reply({call("l", "list_files", json::object())}));
        sub = agents.chatOf("agent-1");
        QVERIFY2(lastMessage(sub).find("Also check b") != std::string::npos, lastMessage(sub).c_str());
        session.respond(agents.chatOf(""), reply({call("c", "close_agent", {{"agent", "agent-1"}})}));
        json chat = agents.chatOf("");
        QVERIFY2(lastMessage(chat).find("Closed. agent-1 (worker) cancelled") != std::string::npos,
                 lastMessage(chat).c_str());
        session.respond(chat, reply({call("m2", "send_agent", {{"agent", "agent-1"}, {"message", "more"}}),
                                     call("m3", "send_agent", {{"agent", "agent-7"}, {"message", "hi"}})}));
        chat = agents.chatOf("");
        QVERIFY(session.hasEvent(et::kToolResult, "agent-1 has ended (cancelled)"));
        QVERIFY(session.hasEvent(et::kToolResult, "there is no sub-agent \\\"agent-7\\\" of yours (yours: agent-1)"));
        session.respond(chat, reply({finishCall("f", "done")}));
        QCOMPARE(session.finish(), 0);
    }

    // warren-agent run: the script's "agents" give each sub-agent its own turns.
    void aScriptedRunScriptsItsSubAgents() {
        QTemporaryDir dir;
        for (const char* name : {"workspace", "state"})
            QDir(dir.path()).mkpath(name);
        const json script = {
            {"turns", {{{"tool_calls", {call("s", "spawn_agent", {{"brief", "write x"}})}}},
                       {{"tool_calls", {call("w", "wait_agents", json::object())}}},
                       {{"tool_calls", {finishCall("f", "ok")}}}}},
            {"agents", {{"agent-1", {{{"tool_calls", {call("x", "write_file", {{"path", "x.txt"}, {"content", "x"}})}}},
                                     {{"tool_calls", {finishCall("f", "wrote x")}}}}}}}};
        QFile file(dir.filePath("script.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(script.dump()));
        file.close();
        const auto run = runProgram(agentBinary(), {"run", "--script", dir.filePath("script.json"), "--workspace",
                                                    dir.filePath("workspace"), "--state", dir.filePath("state"),
                                                    "--preset", "local-light", "--set", "max_subagents=1", "go"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const auto events = parseEvents(run.out);
        QVERIFY2(events.error.isEmpty(), qPrintable(events.error));
        const auto finished = events.ofType(et::kAgentFinished);
        QCOMPARE(finished.size(), std::size_t(1));
        QCOMPARE(finished[0].data["summary"], "wrote x");
        QCOMPARE(readAll(dir.filePath("workspace/x.txt")), QByteArray("x"));
        QVERIFY(QFileInfo::exists(dir.filePath("state/agents/agent-1/agent.json")));
    }

    void offeredOnlyWhenAllowed() {
        ServeSession session;
        QVERIFY(session.start());
        session.startTask();
        Agents agents(session);
        json chat = agents.chatOf("");
        QVERIFY(!toolsOf(chat).contains("spawn_agent"));
        session.respond(chat, reply({finishCall("f", "alone")}));
        QCOMPARE(session.finish(), 0);
    }
};

QTEST_GUILESS_MAIN(TestAgentSubagents)
#include "tst_agent_subagents.moc"
