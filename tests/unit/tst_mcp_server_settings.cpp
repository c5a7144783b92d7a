// The user's MCP servers in Settings (McpServerSettings, pure): each entry checked by the agent's own reader
// and refused with its reason, the bounds, a .mcp.json imported (what passes kept, each refusal said), a
// task's own servers over the user's by name, and the line the window lists a server by.
#include "app/control/McpServerSettings.h"

#include <QtTest>

using namespace warren::control;
using nlohmann::json;

class TestMcpServerSettings : public QObject {
    Q_OBJECT

private slots:
    void entriesTheAgentWouldUseAreKept_data();
    void entriesTheAgentWouldUseAreKept();
    void entriesTheAgentWouldLeaveOutAreRefused_data();
    void entriesTheAgentWouldLeaveOutAreRefused();
    void theWholeListIsBounded();
    void importKeepsWhatPassesAndSaysWhatNot();
    void importRefusesWhatIsNoMcpJson_data();
    void importRefusesWhatIsNoMcpJson();
    void theTasksOwnServerWinsByName();
    void aServerReadsAsOneLine();
};

void TestMcpServerSettings::entriesTheAgentWouldUseAreKept_data() {
    QTest::addColumn<QString>("entry");
    QTest::newRow("stdio") << R"({"command": "npx", "args": ["-y", "server-github"], "env": {"T": "x"}})";
    QTest::newRow("stdio, typed") << R"({"type": "stdio", "command": "/usr/bin/srv"})";
    QTest::newRow("a variable the sandbox fills in")
        << R"({"command": "srv", "env": {"T": "${GITHUB_TOKEN}"}})";
    QTest::newRow("http") << R"({"type": "http", "url": "https://mcp.example/mcp", "headers": {"X-K": "v"}})";
    QTest::newRow("sse") << R"({"type": "sse", "url": "http://127.0.0.1:9000/sse"})";
}
void TestMcpServerSettings::entriesTheAgentWouldUseAreKept() {
    QFETCH(QString, entry);
    const auto status = checkMcpServer("github", json::parse(entry.toStdString()));
    QVERIFY2(bool(status), status ? "" : status.error().message.c_str());
}

void TestMcpServerSettings::entriesTheAgentWouldLeaveOutAreRefused_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("entry");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no command") << "a"
                                << R"({"args": ["x"]})"
                                << R"(MCP server "a": no "command")";
    QTest::newRow("empty command") << "a"
                                   << R"({"command": ""})"
                                   << R"(MCP server "a": "command" is empty)";
    QTest::newRow("args not strings") << "a"
                                      << R"({"command": "s", "args": [1]})"
                                      << R"("args"[0] must be a string)";
    QTest::newRow("unknown type") << "a"
                                  << R"({"type": "ws", "url": "ws://x"})"
                                  << R"("type" must be "stdio", "http" or "sse")";
    QTest::newRow("url not http") << "a"
                                  << R"({"type": "http", "url": "file:///etc/passwd"})"
                                  << "only http:// and https:// are supported";
    QTest::newRow("url without type") << "a"
                                      << R"({"url": "https://x/mcp"})"
                                      << "a remote server needs \"type\"";
    QTest::newRow("header with a line break")
        << "a"
        << "{\"type\": \"http\", \"url\": \"https://x\", \"headers\": {\"A\": \"b\\r\\nC: d\"}}"
        << "holds a line break";
    QTest::newRow("name with a space") << "my server"
                                       << R"({"command": "s"})"
                                       << "its name must be 1 to 64 letters";
    QTest::newRow("not an object") << "a"
                                   << R"("npx server")"
                                   << "must be an object";
}
void TestMcpServerSettings::entriesTheAgentWouldLeaveOutAreRefused() {
    QFETCH(QString, name);
    QFETCH(QString, entry);
    QFETCH(QString, reason);
    const auto status = checkMcpServer(name.toStdString(), json::parse(entry.toStdString()));
    QVERIFY(!status);
    QVERIFY2(QString::fromStdString(status.error().message).contains(reason), status.error().message.c_str());
    QVERIFY2(QString::fromStdString(status.error().message).startsWith("MCP server "),
             status.error().message.c_str());
}

void TestMcpServerSettings::theWholeListIsBounded() {
    json servers = json::object();
    QVERIFY(bool(checkMcpServerSettings(servers)));
    QVERIFY(!checkMcpServerSettings(json::array()));
    for (int i = 0; i < 32; ++i)
        servers["s" + std::to_string(i)] = {{"command", "srv"}};
    QVERIFY(bool(checkMcpServerSettings(servers)));
    servers["s32"] = {{"command", "srv"}};
    QVERIFY(QString::fromStdString(checkMcpServerSettings(servers).error().message).contains("more than 32"));
    const json large = {{"big", {{"command", "srv"}, {"args", {std::string(300 * 1024, 'a')}}}}};
    QVERIFY(QString::fromStdString(checkMcpServerSettings(large).error().message).contains("256 KiB"));
    servers = {{"good", {{"command", "srv"}}}, {"bad", {{"command", 7}}}};
    QVERIFY(QString::fromStdString(checkMcpServerSettings(servers).error().message)
                .contains("MCP server \"bad\""));
}

void TestMcpServerSettings::importKeepsWhatPassesAndSaysWhatNot() {
    const std::string document = R"({"mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
        "docs": {"type": "http", "url": "https://docs.example/mcp"},
        "broken": {"args": []},
        "bad name!": {"command": "x"}}, "other": true})";
    auto imported = readMcpImport(document);
    QVERIFY(bool(imported));
    QCOMPARE(
        imported->servers,
        json::parse(R"({"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                                        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
                             "docs": {"type": "http", "url": "https://docs.example/mcp"}})"));
    QCOMPARE(imported->refused.size(), std::size_t(2));
    QVERIFY(QString::fromStdString(imported->refused[0] + imported->refused[1])
                .contains("MCP server \"broken\": no \"command\""));
}

void TestMcpServerSettings::importRefusesWhatIsNoMcpJson_data() {
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QString>("reason");
    QTest::newRow("not JSON") << QByteArray("{\"mcpServers\": ") << "not JSON";
    QTest::newRow("an array") << QByteArray("[]") << "must be a JSON object";
    QTest::newRow("no mcpServers") << QByteArray("{\"servers\": {}}") << "has no \"mcpServers\"";
    QTest::newRow("too large") << QByteArray("{\"mcpServers\": {}, \"x\": \"" + QByteArray(300 * 1024, 'a') +
                                             "\"}")
                               << "larger than 256 KiB";
    QTest::newRow("too deep") << (QByteArray(200, '[') + QByteArray(200, ']')) << "nesting deeper";
}
void TestMcpServerSettings::importRefusesWhatIsNoMcpJson() {
    QFETCH(QByteArray, document);
    QFETCH(QString, reason);
    const auto imported = readMcpImport(document.toStdString());
    QVERIFY(!imported);
    QVERIFY2(QString::fromStdString(imported.error().message).contains(reason),
             imported.error().message.c_str());
}

void TestMcpServerSettings::theTasksOwnServerWinsByName() {
    const json users = {{"github", {{"command", "users-github"}}}, {"docs", {{"command", "docs"}}}};
    const json tasks = {{"github", {{"command", "tasks-github"}}}, {"db", {{"command", "db"}}}};
    QCOMPARE(withUsersMcpServers(users, tasks), (json{{"github", {{"command", "tasks-github"}}},
                                                      {"docs", {{"command", "docs"}}},
                                                      {"db", {{"command", "db"}}}}));
    QCOMPARE(withUsersMcpServers(users, nullptr), users);
    QCOMPARE(withUsersMcpServers(json::object(), tasks), tasks);
}

void TestMcpServerSettings::aServerReadsAsOneLine() {
    QCOMPARE(describeMcpServer({{"command", "npx"}, {"args", {"-y", "server-github"}}}),
             std::string("stdio \xC2\xB7 npx -y server-github"));
    QCOMPARE(describeMcpServer({{"type", "sse"}, {"url", "https://x/sse"}}),
             std::string("sse \xC2\xB7 https://x/sse"));
}

QTEST_GUILESS_MAIN(TestMcpServerSettings)
#include "tst_mcp_server_settings.moc"
