// A tool call checked against what the model was offered before it runs: arguments that are not a JSON
// object, a tool the task lacks (with the nearest names), missing, unknown or mistyped arguments; and
// the near-miss names themselves.

#include "agent_core/loop/CallCheck.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

Q_DECLARE_METATYPE(json)

namespace {

std::vector<protocol::ToolSpec> offered() {
    const json shell = {{"type", "object"},
                        {"properties",
                         {{"command", {{"type", "string"}}},
                          {"timeout_sec", {{"type", "integer"}, {"minimum", 1}}},
                          {"workdir", {{"type", "string"}}}}},
                        {"required", {"command"}},
                        {"additionalProperties", false}};
    const json readFile = {{"type", "object"},
                           {"properties",
                            {{"path", {{"type", "string"}}},
                             {"offset", {{"type", "integer"}, {"minimum", 0}}},
                             {"limit", {{"type", "integer"}, {"minimum", 1}}}}},
                           {"required", {"path"}},
                           {"additionalProperties", false}};
    const json edit = {{"type", "object"},
                       {"properties",
                        {{"path", {{"type", "string"}}},
                         {"replace_all", {{"type", "boolean"}}},
                         {"mode", {{"type", "string"}, {"enum", {"text", "bytes"}}}}}},
                       {"required", {"path"}},
                       {"additionalProperties", false}};
    const json finish = {{"type", "object"}, {"properties", {{"summary", {{"type", "string"}}}}}, {"required", {"summary"}}};
    return {{"shell", "", shell}, {"read_file", "", readFile}, {"write_file", "", readFile},
            {"edit_file", "", edit}, {"list_files", "", json::object()}, {"finish", "", finish}};
}

} // namespace

class TestCallCheck : public QObject {
    Q_OBJECT

private slots:
    void checksCalls_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<json>("arguments");
        QTest::addColumn<QString>("invalid"); // invalid_arguments; "-" for none
        QTest::addColumn<QString>("problem"); // a part of the message; empty: the call is fine

        QTest::newRow("good call") << "shell" << json{{"command", "ls"}} << "-" << "";
        QTest::newRow("optional argument given") << "read_file" << json{{"path", "a"}, {"limit", 10}} << "-" << "";
        QTest::newRow("3.0 is an integer") << "read_file" << json{{"path", "a"}, {"offset", 3.0}} << "-" << "";
        QTest::newRow("null counts as not given") << "read_file" << json{{"path", "a"}, {"limit", nullptr}} << "-" << "";
        QTest::newRow("a tool without a schema takes anything") << "list_files" << json{{"depth", 2}} << "-" << "";
        QTest::newRow("arguments that are not JSON, quoted back with the shape")
            << "shell" << json::object() << "{\"command\": \"ls" << "shell: the arguments are not a JSON object: {\"command\": \"ls";
        QTest::newRow("the shape names the required arguments")
            << "shell" << json::object() << "[1]" << R"(of the form {"command": ...})";
        QTest::newRow("long bad arguments are cut")
            << "shell" << json::object() << QString(500, 'x') << QString(200, 'x') + "... (500 bytes)";
        QTest::newRow("unknown tool with the nearest names")
            << "read" << json::object() << "-" << R"(there is no tool "read"; did you mean read_file?)";
        QTest::newRow("unknown tool: a slip of two letters")
            << "shel" << json::object() << "-" << "did you mean shell?";
        QTest::newRow("unknown tool lists the tools")
            << "browse" << json::object() << "-" << "The tools are: shell, read_file, write_file, edit_file, list_files, finish.";
        QTest::newRow("unknown tool far from all: no guess")
            << "browse" << json::object() << "-" << R"(there is no tool "browse". The tools)";
        QTest::newRow("missing required argument")
            << "shell" << json{{"cmd", "ls"}} << "-" << R"(shell: missing required argument "command" (arguments: command, timeout_sec, workdir))";
        QTest::newRow("required argument null") << "finish" << json{{"summary", nullptr}} << "-"
                                                << R"(finish: missing required argument "summary")";
        QTest::newRow("unknown argument with the nearest")
            << "read_file" << json{{"path", "a"}, {"limits", 5}} << "-" << R"(read_file: unknown argument "limits"; did you mean limit?)";
        QTest::newRow("mistyped argument")
            << "read_file" << json{{"path", "a"}, {"offset", "10"}} << "-"
            << R"(read_file: argument "offset" must be an integer, got the string "10" (write the value itself, not in quotes))";
        QTest::newRow("fraction is not an integer")
            << "read_file" << json{{"path", "a"}, {"limit", 2.5}} << "-" << R"(argument "limit" must be an integer)";
        QTest::newRow("boolean") << "edit_file" << json{{"path", "a"}, {"replace_all", "yes"}} << "-"
                                 << R"(argument "replace_all" must be a boolean)";
        QTest::newRow("below the minimum") << "shell" << json{{"command", "ls"}, {"timeout_sec", 0}} << "-"
                                           << R"(shell: argument "timeout_sec" must be at least 1, got 0)";
        QTest::newRow("outside the enum") << "edit_file" << json{{"path", "a"}, {"mode", "lines"}} << "-"
                                          << R"(argument "mode" must be one of "text", "bytes", got "lines")";
        QTest::newRow("path not a string") << "read_file" << json{{"path", json::array({"a"})}} << "-"
                                           << R"(argument "path" must be a string, got an array)";
    }
    void checksCalls() {
        QFETCH(QString, tool);
        QFETCH(json, arguments);
        QFETCH(QString, invalid);
        QFETCH(QString, problem);
        protocol::ToolCall call{"c1", tool.toStdString(), arguments};
        if (invalid != "-")
            call.invalidArguments = invalid.toStdString();
        const auto found = checkToolCall(call, offered());
        if (problem.isEmpty()) {
            QVERIFY2(!found, found ? found->c_str() : "");
            return;
        }
        QVERIFY2(found, "the call passed");
        QVERIFY2(QString::fromStdString(*found).contains(problem), found->c_str());
    }

    void nearestNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("nearest");
        QTest::newRow("one letter off") << "serch" << QStringList{"search"};
        QTest::newRow("a part of a name") << "read" << QStringList{"read_file"};
        QTest::newRow("a name within it") << "memory_search_all" << QStringList{"memory_search", "search"};
        QTest::newRow("closest first, at most three") << "rite_file" << QStringList{"write_file", "read_file", "edit_file"};
        QTest::newRow("nothing close") << "kubectl" << QStringList{};
        QTest::newRow("empty") << "" << QStringList{};
    }
    void nearestNames() {
        QFETCH(QString, name);
        QFETCH(QStringList, nearest);
        const std::vector<std::string> names{"shell", "read_file", "write_file", "edit_file", "search", "memory_search"};
        QStringList got;
        for (const auto& n : agent::nearestNames(name.toStdString(), names))
            got << QString::fromStdString(n);
        QCOMPARE(got, nearest);
    }
};

QTEST_APPLESS_MAIN(TestCallCheck)
#include "tst_call_check.moc"
