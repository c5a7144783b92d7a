// Script: the scripted-model file of DESIGN §4. Good scripts parse to the expected turns with deterministic
// tool call ids; every mistake is refused with the file, the turn index and the key in the message.

#include "agent_core/protocol/Script.h"

#include <QtTest>

using namespace warren;
using namespace warren::protocol;
using nlohmann::json;

namespace {

// "content|call id:name:arguments,...|usage" per turn, to compare whole scripts in one QStringList.
QStringList describe(const Script& script) {
    QStringList out;
    for (const auto& turn : script.turns) {
        QStringList calls;
        for (const auto& call : turn.toolCalls)
            calls << QString::fromStdString(call.id + ":" + call.name + ":" + call.arguments.dump() +
                                            (call.invalidArguments ? " invalid " + *call.invalidArguments : ""));
        const QString usage =
            turn.usage ? QString("%1/%2").arg(turn.usage->input).arg(turn.usage->output) : "-";
        out << QString::fromStdString(turn.content) + "|" + calls.join(",") + "|" + usage;
    }
    return out;
}

} // namespace

class TestScript : public QObject {
    Q_OBJECT

private slots:
    void parsesGoodScripts_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QStringList>("turns");

        QTest::newRow("design example")
            << QByteArray(R"({ "turns": [
    { "content": "Listing files first.", "tool_calls": [ { "name": "shell", "arguments": { "command": "ls -la" } } ] },
    { "tool_calls": [ { "name": "write_file", "arguments": { "path": "hello.txt", "content": "hi\n" } } ] },
    { "tool_calls": [ { "name": "finish", "arguments": { "summary": "Wrote hello.txt" } } ] } ] })")
            << QStringList{"Listing files first.|call_0_0:shell:{\"command\":\"ls -la\"}|-",
                           "|call_1_0:write_file:{\"content\":\"hi\\n\",\"path\":\"hello.txt\"}|-",
                           "|call_2_0:finish:{\"summary\":\"Wrote hello.txt\"}|-"};
        QTest::newRow("content only")
            << QByteArray(R"({"turns":[{"content":"just talk"}]})") << QStringList{"just talk||-"};
        QTest::newRow("empty content counts as content")
            << QByteArray(R"({"turns":[{"content":""}]})") << QStringList{"||-"};
        QTest::newRow("several calls in a turn get indexed ids")
            << QByteArray(
                   R"({"turns":[{"content":"x"},{"tool_calls":[{"name":"read_file","arguments":{"path":"a"}},)"
                   R"({"name":"read_file","arguments":{"path":"b"}}]}]})")
            << QStringList{"x||-",
                           "|call_1_0:read_file:{\"path\":\"a\"},call_1_1:read_file:{\"path\":\"b\"}|-"};
        QTest::newRow("explicit id kept")
            << QByteArray(R"({"turns":[{"tool_calls":[{"id":"mine","name":"finish","arguments":{}}]}]})")
            << QStringList{"|mine:finish:{}|-"};
        QTest::newRow("arguments absent means empty object")
            << QByteArray(R"({"turns":[{"tool_calls":[{"name":"list_files"}]}]})")
            << QStringList{"|call_0_0:list_files:{}|-"};
        QTest::newRow("usage") << QByteArray(
                                      R"({"turns":[{"content":"c","usage":{"input":120,"output":14}}]})")
                               << QStringList{"c||120/14"};
        QTest::newRow("a model's arguments that are not JSON")
            << QByteArray("{\"turns\":[{\"tool_calls\":[{\"name\":\"shell\",\"invalid_arguments\":\"{\\\"command\\\": ls\"}]}]}")
            << QStringList{"|call_0_0:shell:{} invalid {\"command\": ls|-"};
        QTest::newRow("empty tool_calls with content")
            << QByteArray(R"({"turns":[{"content":"c","tool_calls":[]}]})") << QStringList{"c||-"};
    }

    void parsesGoodScripts() {
        QFETCH(QByteArray, text);
        QFETCH(QStringList, turns);
        const auto script = parseScript(text.toStdString(), "demo.json");
        QVERIFY2(script.ok(), script.ok() ? "" : script.error().message.c_str());
        QCOMPARE(QString::fromStdString(script->origin), "demo.json");
        QCOMPARE(describe(script.value()), turns);
    }

    void refusesBadScripts_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");

        QTest::newRow("not json")
            << QByteArray("{turns:[]}")
            << "s.json: not JSON: parse error at line 1, column 3: syntax error while parsing "
               "object key - invalid literal; last read: '{tu'; expected string literal";
        QTest::newRow("root an array")
            << QByteArray("[]") << "s.json: a script is an object {\"turns\": [...]}, got an array";
        QTest::newRow("unknown root key")
            << QByteArray(R"({"turns":[{"content":"c"}],"model":"x"})") << "s.json: unknown key \"model\"";
        QTest::newRow("turns missing") << QByteArray("{}") << "s.json: turns: missing";
        QTest::newRow("turns an object")
            << QByteArray(R"({"turns":{}})") << "s.json: turns: must be an array, got an object";
        QTest::newRow("no turns") << QByteArray(R"({"turns":[]})")
                                  << "s.json: turns: is empty; a script needs at least one turn";
        QTest::newRow("turn a string") << QByteArray(R"({"turns":[{"content":"a"},"b"]})")
                                       << "s.json: turns[1]: must be an object, got a string";
        QTest::newRow("turn neither content nor calls")
            << QByteArray(R"({"turns":[{"content":"a"},{}]})")
            << "s.json: turns[1]: a turn needs \"content\" or \"tool_calls\"";
        QTest::newRow("turn with empty calls only")
            << QByteArray(R"({"turns":[{"tool_calls":[]}]})")
            << "s.json: turns[0]: a turn needs \"content\" or \"tool_calls\"";
        QTest::newRow("unknown turn key") << QByteArray(R"({"turns":[{"content":"a","toolcalls":[]}]})")
                                          << "s.json: turns[0]: unknown key \"toolcalls\"";
        QTest::newRow("content not a string") << QByteArray(R"({"turns":[{"content":["a"]}]})")
                                              << "s.json: turns[0].content: must be a string, got an array";
        QTest::newRow("tool_calls an object")
            << QByteArray(R"({"turns":[{"tool_calls":{"name":"x"}}]})")
            << "s.json: turns[0].tool_calls: must be an array, got an object";
        QTest::newRow("call without name")
            << QByteArray(R"({"turns":[{"content":"a"},{"tool_calls":[{"arguments":{}}]}]})")
            << "s.json: turns[1].tool_calls[0].name: missing";
        QTest::newRow("call with empty name") << QByteArray(R"({"turns":[{"tool_calls":[{"name":""}]}]})")
                                              << "s.json: turns[0].tool_calls[0].name: is empty";
        QTest::newRow("arguments a string")
            << QByteArray(
                   R"({"turns":[{"tool_calls":[{"name":"shell"},{"name":"shell","arguments":"ls"}]}]})")
            << "s.json: turns[0].tool_calls[1].arguments: must be an object, got a string";
        QTest::newRow("arguments an array")
            << QByteArray(R"({"turns":[{"tool_calls":[{"name":"shell","arguments":["ls"]}]}]})")
            << "s.json: turns[0].tool_calls[0].arguments: must be an object, got an array";
        QTest::newRow("arguments and invalid_arguments")
            << QByteArray(R"({"turns":[{"tool_calls":[{"name":"shell","arguments":{},"invalid_arguments":"x"}]}]})")
            << "s.json: turns[0].tool_calls[0]: a call has \"arguments\" or \"invalid_arguments\" (the text a "
               "model wrote that is not a JSON object), not both";
        QTest::newRow("invalid_arguments not a string")
            << QByteArray(R"({"turns":[{"tool_calls":[{"name":"shell","invalid_arguments":{}}]}]})")
            << "s.json: turns[0].tool_calls[0].invalid_arguments: must be a string, got an object";
        QTest::newRow("unknown call key")
            << QByteArray(R"({"turns":[{"tool_calls":[{"name":"shell","args":{}}]}]})")
            << "s.json: turns[0].tool_calls[0]: unknown key \"args\"";
        QTest::newRow("id not a string")
            << QByteArray(R"({"turns":[{"tool_calls":[{"id":1,"name":"shell"}]}]})")
            << "s.json: turns[0].tool_calls[0].id: must be a string, got the integer 1";
        QTest::newRow("duplicate id")
            << QByteArray(
                   R"({"turns":[{"tool_calls":[{"name":"a"}]},{"tool_calls":[{"id":"call_0_0","name":"b"}]}]})")
            << "s.json: turns[1].tool_calls[0].id: \"call_0_0\" is used twice";
        QTest::newRow("usage negative")
            << QByteArray(R"({"turns":[{"content":"a","usage":{"input":-1,"output":0}}]})")
            << "s.json: turns[0].usage.input: must be a non-negative integer, got the "
               "integer -1";
        QTest::newRow("usage unknown key")
            << QByteArray(R"({"turns":[{"content":"a","usage":{"input":1,"output":0,"total":1}}]})")
            << "s.json: turns[0].usage: unknown key \"total\"";
        QTest::newRow("usage not an object")
            << QByteArray(R"({"turns":[{"content":"a","usage":5}]})")
            << "s.json: turns[0].usage: must be an object, got the integer 5";
        QTest::newRow("agents not an object")
            << QByteArray(R"({"turns":[{"content":"a"}],"agents":[]})")
            << "s.json: agents: must be an object of sub-agent id -> turns, got an array";
        QTest::newRow("a sub-agent without turns")
            << QByteArray(R"({"turns":[{"content":"a"}],"agents":{"agent-1":[]}})")
            << "s.json: agents.agent-1: is empty; a script needs at least one turn";
        QTest::newRow("a sub-agent's bad turn")
            << QByteArray(R"({"turns":[{"content":"a"}],"agents":{"agent-1":[{"content":"b"},7]}})")
            << "s.json: agents.agent-1[1]: must be an object, got the integer 7";
    }

    void paceIsReadAndBounded() {
        QCOMPARE(parseScript(R"({"turns":[{"content":"c"}]})", "s.json")->pace, std::chrono::milliseconds(0));
        QCOMPARE(parseScript(R"({"turns":[{"content":"c"}],"pace_ms":900})", "s.json")->pace,
                 std::chrono::milliseconds(900));
        const auto tooSlow = parseScript(R"({"turns":[{"content":"c"}],"pace_ms":60001})", "s.json");
        QVERIFY(!tooSlow);
        QCOMPARE(QString::fromStdString(tooSlow.error().message),
                 QString("s.json: pace_ms: at most 60000 (a turn a minute)"));
        const auto text = parseScript(R"({"turns":[{"content":"c"}],"pace_ms":"slow"})", "s.json");
        QVERIFY(!text);
        QVERIFY2(text.error().message.starts_with("s.json: pace_ms"), text.error().message.c_str());
    }

    void scriptsSubAgents() {
        const auto script = parseScript(
            R"({"turns":[{"content":"a"}],"agents":{"agent-2":[{"tool_calls":[{"name":"finish","arguments":{}}]}]}})",
            "s.json");
        QVERIFY2(script.ok(), script.ok() ? "" : script.error().message.c_str());
        QCOMPARE(script->turnsOf(std::nullopt), &script->turns);
        const auto* turns = script->turnsOf(std::string("agent-2"));
        QVERIFY(turns);
        // Ids are numbered within each agent's turns: each agent's calls are its own.
        QCOMPARE(turns->at(0).toolCalls.at(0).id, std::string("call_0_0"));
        QVERIFY(!script->turnsOf(std::string("agent-1")));
    }

    void refusesBadScripts() {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        const auto script = parseScript(text.toStdString(), "s.json");
        QVERIFY(!script.ok());
        QCOMPARE(QString::fromStdString(script.error().message), message);
    }
};

QTEST_GUILESS_MAIN(TestScript)
#include "tst_script.moc"
