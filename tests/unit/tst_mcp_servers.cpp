// The MCP servers a .mcp.json declares (parseMcpServers, pure): Claude Code's document read into stdio and
// remote servers; a document that cannot be read is an error, an entry that cannot be used is skipped with
// a message naming it and saying why while the others load; ${VAR} and ${VAR:-default} filled in from the
// environment given, in every field Claude Code fills them in; the bounds; and the names of the tools the
// model calls (mcp__SERVER__TOOL, within the model APIs' ^[a-zA-Z0-9_-]{1,128}$).

#include "agent_core/mcp/McpServers.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

namespace {

const Environment kEnvironment = {{"HOME", "/home/user"}, {"TOKEN", "s3cret"}, {"EMPTY", ""}};

McpServerList parse(const json& document, const Environment& environment = kEnvironment) {
    auto list = parseMcpServers(document.dump(), environment);
    if (!list)
        qFatal("%s", list.error().message.c_str());
    return std::move(list).value();
}

// A document as the data rows hold them. (moc misreads a backslash in a raw string literal.)
QString jsonText(const json& document) {
    return QString::fromStdString(document.dump());
}

// A document with the entry under test beside one that is fine.
json withGoodServer(const json& entry) {
    return {{"mcpServers", {{"bad", entry}, {"good", {{"command", "good-server"}}}}}};
}

QString joined(const std::vector<std::string>& messages) {
    QStringList out;
    for (const auto& message : messages)
        out << QString::fromStdString(message);
    return out.join(" | ");
}

} // namespace

class TestMcpServers : public QObject {
    Q_OBJECT
private slots:
    void readsStdioAndRemoteServers() {
        const json document = {
            {"mcpServers",
             {{"files",
               {{"command", "npx"}, {"args", {"-y", "server-filesystem", "."}}, {"env", {{"DEBUG", "1"}}}}},
              {"typed", {{"type", "stdio"}, {"command", "/usr/bin/typed"}}},
              {"web",
               {{"type", "http"},
                {"url", "https://mcp.example.com/mcp"},
                {"headers", {{"Authorization", "Bearer x"}}}}},
              {"events", {{"type", "sse"}, {"url", "http://localhost:9000/sse"}}}}},
            {"otherKey", "ignored, as Claude Code ignores it"}};
        const auto list = parse(document);
        QVERIFY2(list.skipped.empty(), qPrintable(joined(list.skipped)));
        QCOMPARE(list.servers.size(), std::size_t(4));

        McpServer events;
        events.name = "events";
        events.transport = McpTransport::Sse;
        events.url = "http://localhost:9000/sse";
        QCOMPARE(list.servers[0], events); // by name

        McpServer files;
        files.name = "files";
        files.command = "npx";
        files.args = {"-y", "server-filesystem", "."};
        files.env = {{"DEBUG", "1"}};
        QCOMPARE(list.servers[1], files);

        QVERIFY(list.servers[2].transport == McpTransport::Stdio);
        QCOMPARE(list.servers[2].command, std::string("/usr/bin/typed"));

        McpServer web;
        web.name = "web";
        web.transport = McpTransport::Http;
        web.url = "https://mcp.example.com/mcp";
        web.headers = {{"Authorization", "Bearer x"}};
        QCOMPARE(list.servers[3], web);
    }

    void malformedDocumentIsAnError_data() {
        QTest::addColumn<QString>("document");
        QTest::addColumn<QString>("message");
        QTest::newRow("not JSON") << R"({"mcpServers": {)"
                                  << "not JSON: ";
        QTest::newRow("empty") << ""
                               << "not JSON: ";
        QTest::newRow("an array") << R"([{"mcpServers": {}}])"
                                  << "must be a JSON object, got an array";
        QTest::newRow("no mcpServers") << R"({"servers": {}})"
                                       << "has no \"mcpServers\"";
        QTest::newRow("mcpServers an array")
            << R"({"mcpServers": []})"
            << "\"mcpServers\" must be an object of servers by name, got an array";
        QTest::newRow("too deep") << QString(200, '[') + QString(200, ']') << "not JSON: ";
    }

    void malformedDocumentIsAnError() {
        QFETCH(QString, document);
        QFETCH(QString, message);
        const auto list = parseMcpServers(document.toStdString(), kEnvironment);
        QVERIFY(!list);
        QVERIFY2(QString::fromStdString(list.error().message).contains(message),
                 list.error().message.c_str());
    }

    void tooLargeDocumentIsAnError() {
        const std::string document =
            json{{"mcpServers", json::object()}, {"padding", std::string(kMaxMcpConfigBytes, 'x')}}.dump();
        const auto list = parseMcpServers(document, kEnvironment);
        QVERIFY(!list);
        QVERIFY2(list.error().message.find("more than 1048576 bytes") != std::string::npos,
                 list.error().message.c_str());
    }

    void malformedEntryIsSkipped_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("message");
        QTest::newRow("not an object") << R"("npx server")"
                                       << "must be an object, got a string";
        QTest::newRow("no command") << R"({"args": ["x"]})"
                                    << "no \"command\" (a stdio server needs the program";
        QTest::newRow("empty command") << R"({"command": ""})"
                                       << "\"command\" is empty";
        QTest::newRow("command not a string") << R"({"command": ["npx"]})"
                                              << "\"command\" must be a string, got an array";
        QTest::newRow("args not an array") << R"({"command": "x", "args": "-y"})"
                                           << "\"args\" must be an array of strings, got a string";
        QTest::newRow("an arg not a string") << R"({"command": "x", "args": ["a", 2]})"
                                             << "\"args\"[1] must be a string";
        QTest::newRow("NUL in an arg") << jsonText({{"command", "x"}, {"args", {std::string("a\0b", 3)}}})
                                       << "\"args\"[0] holds a NUL character";
        QTest::newRow("env not an object") << R"({"command": "x", "env": ["A=1"]})"
                                           << "\"env\" must be an object of strings, got an array";
        QTest::newRow("env value not a string") << R"({"command": "x", "env": {"PORT": 8080}})"
                                                << "\"env\": \"PORT\" must be a string";
        QTest::newRow("env name with =") << R"({"command": "x", "env": {"A=B": "1"}})"
                                         << "\"env\": \"A=B\" is not a valid name";
        QTest::newRow("unknown type") << R"({"type": "ws", "url": "ws://x"})"
                                      << "\"type\" must be \"stdio\", \"http\" or \"sse\", got \"ws\"";
        QTest::newRow("type not a string") << R"({"type": 1, "command": "x"})"
                                           << "\"type\" must be a string";
        QTest::newRow("url without type") << R"({"url": "https://x"})"
                                          << "a url without \"type\": a remote server needs";
        QTest::newRow("http without url") << R"({"type": "http"})"
                                          << "no \"url\"";
        QTest::newRow("url not http") << R"({"type": "sse", "url": "file:///etc/passwd"})"
                                      << "\"url\": \"file:///etc/passwd\" is not a usable http(s) URL: only http:// and "
                                         "https:// are supported";
        QTest::newRow("url with userinfo") << R"({"type": "http", "url": "http://user:pw@example.com/mcp"})"
                                           << "a user name or password in the URL (user@host) is not allowed";
        QTest::newRow("url with a fragment") << R"({"type": "http", "url": "http://example.com/mcp#x"})"
                                             << "a fragment (#...) is not sent to a server";
        QTest::newRow("url with a space") << R"({"type": "http", "url": "http://example.com/m cp"})"
                                          << "its path holds a character a request cannot carry";
        QTest::newRow("header the agent sets") << R"({"type": "http", "url": "http://example.com/", "headers": {"Host": "evil"}})"
                                               << "\"headers\": \"Host\" is set by the agent itself";
        QTest::newRow("framing header") << R"({"type": "http", "url": "http://example.com/", "headers": {"transfer-encoding": "chunked"}})"
                                        << "\"transfer-encoding\" is set by the agent itself";
        QTest::newRow("header with a line break")
            << jsonText({{"type", "http"}, {"url", "https://x"}, {"headers", {{"A", "1\r\nB: 2"}}}})
            << "\"headers\": \"A\" holds a line break";
        QTest::newRow("header name not a token")
            << R"({"type": "http", "url": "https://x", "headers": {"A B": "1"}})"
            << "\"headers\": \"A B\" is not a valid name";
        QTest::newRow("unset variable")
            << R"({"command": "x", "env": {"KEY": "${API_KEY}"}})"
            << "${API_KEY} is not set in the agent's environment and has no default";
        QTest::newRow("two unset variables") << R"({"command": "${BIN}", "args": ["${BIN}", "${DIR}"]})"
                                             << "${BIN}, ${DIR} are not set";
    }

    void malformedEntryIsSkipped() {
        QFETCH(QString, entry);
        QFETCH(QString, message);
        const auto list = parse(withGoodServer(json::parse(entry.toStdString())));
        QCOMPARE(list.servers.size(), std::size_t(1));
        QCOMPARE(list.servers[0].name, std::string("good"));
        QCOMPARE(list.skipped.size(), std::size_t(1));
        const QString skipped = QString::fromStdString(list.skipped[0]);
        QVERIFY2(skipped.startsWith("server \"bad\" skipped: "), qPrintable(skipped));
        QVERIFY2(skipped.contains(message), qPrintable(skipped));
    }

    void serverNamesMustMakeToolNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("letters digits _ -") << "My_server-2" << true;
        QTest::newRow("64 bytes") << QString(64, 'a') << true;
        QTest::newRow("65 bytes") << QString(65, 'a') << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("space") << "my server" << false;
        QTest::newRow("dot") << "my.server" << false;
        QTest::newRow("slash") << "a/b" << false;
        QTest::newRow("non-ASCII") << "sérveur" << false;
    }

    void serverNamesMustMakeToolNames() {
        QFETCH(QString, name);
        QFETCH(bool, valid);
        QCOMPARE(isValidServerName(name.toStdString()), valid);
        const auto list = parse({{"mcpServers", {{name.toStdString(), {{"command", "x"}}}}}});
        QCOMPARE(list.servers.size(), std::size_t(valid ? 1 : 0));
        if (!valid) {
            QCOMPARE(list.skipped.size(), std::size_t(1));
            QVERIFY2(list.skipped[0].find("its name must be 1 to 64 letters, digits, '_' or '-'") !=
                         std::string::npos,
                     list.skipped[0].c_str());
        }
    }

    void atMost32Servers() {
        json servers = json::object();
        for (int i = 0; i < 40; ++i)
            servers[QString("s%1").arg(i, 2, 10, QChar('0')).toStdString()] = {{"command", "x"}};
        const auto list = parse({{"mcpServers", servers}});
        QCOMPARE(list.servers.size(), kMaxMcpServers);
        QCOMPARE(list.servers.back().name, std::string("s31"));
        QCOMPARE(list.skipped.size(), std::size_t(1));
        QCOMPARE(list.skipped[0],
                 std::string("only the first 32 servers (by name) are started; skipped: s32, s33, s34, "
                             "s35, s36, s37, s38, s39"));
    }

    void atMost256Args() {
        const auto list =
            parse(withGoodServer({{"command", "x"}, {"args", std::vector<std::string>(257, "a")}}));
        QCOMPARE(list.skipped.size(), std::size_t(1));
        QVERIFY2(list.skipped[0].find("\"args\" has 257 items, more than 256") != std::string::npos,
                 list.skipped[0].c_str());
        QCOMPARE(parse(withGoodServer({{"command", "x"}, {"args", std::vector<std::string>(256, "a")}}))
                     .servers.size(),
                 std::size_t(2));
    }

    void expandsVariables_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expanded");
        QTest::addColumn<QStringList>("missing");
        QTest::newRow("plain") << "no variables"
                               << "no variables" << QStringList();
        QTest::newRow("set") << "${HOME}/x"
                             << "/home/user/x" << QStringList();
        QTest::newRow("set, with a default") << "${TOKEN:-none}"
                                             << "s3cret" << QStringList();
        QTest::newRow("unset, with a default") << "${PORT:-8080}"
                                               << "8080" << QStringList();
        QTest::newRow("unset, empty default") << "a${PORT:-}b"
                                              << "ab" << QStringList();
        QTest::newRow("set empty: empty, as in Claude Code") << "[${EMPTY:-d}]"
                                                             << "[]" << QStringList();
        QTest::newRow("default holding :-") << "${PORT:-a:-b}"
                                            << "a:-b" << QStringList();
        QTest::newRow("several") << "${HOME}:${PORT:-1}:${TOKEN}"
                                 << "/home/user:1:s3cret" << QStringList();
        QTest::newRow("unset, no default: kept") << "x${API_KEY}y"
                                                 << "x${API_KEY}y" << QStringList{"API_KEY"};
        QTest::newRow("listed once") << "${A}${A}${B}"
                                     << "${A}${A}${B}" << QStringList{"A", "B"};
        QTest::newRow("$VAR is not a reference") << "$HOME"
                                                 << "$HOME" << QStringList();
        QTest::newRow("${} is not a reference") << "${}"
                                                << "${}" << QStringList();
        QTest::newRow("unterminated") << "${HOME"
                                      << "${HOME" << QStringList();
        QTest::newRow("brace after") << "${HOME}}"
                                     << "/home/user}" << QStringList();
        QTest::newRow("value not expanded again") << "${SELF}"
                                                  << "${HOME}" << QStringList();
    }

    void expandsVariables() {
        QFETCH(QString, text);
        QFETCH(QString, expanded);
        QFETCH(QStringList, missing);
        Environment environment = kEnvironment;
        environment["SELF"] = "${HOME}";
        const auto result = expandVariables(text.toStdString(), environment);
        QCOMPARE(QString::fromStdString(result.text), expanded);
        QStringList names;
        for (const auto& name : result.missing)
            names << QString::fromStdString(name);
        QCOMPARE(names, missing);
    }

    // Where Claude Code expands: command, args, env values, url, header values; never the names.
    void expandsInEveryField() {
        const json document = {{"mcpServers",
                                {{"local",
                                  {{"command", "${HOME}/bin/server"},
                                   {"args", {"--token", "${TOKEN}", "${PORT:-7}"}},
                                   {"env", {{"${HOME}", "${TOKEN}"}}}}},
                                 {"remote",
                                  {{"type", "http"},
                                   {"url", "https://${HOST:-mcp.example.com}/mcp"},
                                   {"headers", {{"Authorization", "Bearer ${TOKEN}"}}}}}}}};
        // An env name with "${" is a name like any other (and the server gets it as written).
        const auto list = parse(document);
        QVERIFY2(list.skipped.empty(), qPrintable(joined(list.skipped)));
        QCOMPARE(list.servers[0].command, std::string("/home/user/bin/server"));
        QCOMPARE(list.servers[0].args, (std::vector<std::string>{"--token", "s3cret", "7"}));
        QCOMPARE(list.servers[0].env,
                 (std::vector<std::pair<std::string, std::string>>{{"${HOME}", "s3cret"}}));
        QCOMPARE(list.servers[1].url, std::string("https://mcp.example.com/mcp"));
        QCOMPARE(list.servers[1].headers,
                 (std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer s3cret"}}));
    }

    // Before the agent's environment is known (Settings): variables stay as written and count as set, so a
    // server is refused only for what no environment could fix.
    void checkingLeavesVariablesForTheSandbox() {
        const json document = {{"mcpServers",
                                {{"github",
                                  {{"command", "${TOOLS}/github-mcp"},
                                   {"env", {{"GITHUB_TOKEN", "${GITHUB_TOKEN}"}}}}},
                                 {"remote", {{"type", "sse"}, {"url", "${MCP_URL}"}}},
                                 {"hosted", {{"type", "http"}, {"url", "https://${HOST}/mcp"}}},
                                 {"noCommand", {{"args", {"x"}}}},
                                 {"notAUrl", {{"type", "http"}, {"url", "ftp://${HOST}/"}}}}}};
        auto list = checkMcpServers(document.dump());
        QVERIFY(list);
        QCOMPARE(list->servers.size(), std::size_t(3));
        QCOMPARE(list->servers[0].command, std::string("${TOOLS}/github-mcp"));
        QCOMPARE(list->servers[0].env,
                 (std::vector<std::pair<std::string, std::string>>{{"GITHUB_TOKEN", "${GITHUB_TOKEN}"}}));
        QCOMPARE(list->servers[1].url, std::string("https://${HOST}/mcp"));
        QCOMPARE(list->servers[2].url, std::string("${MCP_URL}"));
        QCOMPARE(list->skipped.size(), std::size_t(2));
        QVERIFY2(joined(list->skipped).contains("\"noCommand\" skipped: no \"command\""), qPrintable(joined(list->skipped)));
        QVERIFY2(joined(list->skipped).contains("\"notAUrl\" skipped: \"url\": ") &&
                     joined(list->skipped).contains("only http:// and https:// are supported"),
                 qPrintable(joined(list->skipped)));
        QVERIFY(!checkMcpServers("[]"));
    }

    void toolNames_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("name"); // empty: refused
        QTest::newRow("simple") << "everything"
                                << "echo"
                                << "mcp__everything__echo";
        QTest::newRow("dashes and underscores") << "my-server"
                                                << "get_tiny-image"
                                                << "mcp__my-server__get_tiny-image";
        QTest::newRow("128 bytes") << QString(64, 's') << QString(128 - 5 - 64 - 2, 't')
                                   << "mcp__" + QString(64, 's') + "__" + QString(57, 't');
        QTest::newRow("129 bytes") << QString(64, 's') << QString(58, 't') << "";
        QTest::newRow("dot") << "s"
                             << "files.read"
                             << "";
        QTest::newRow("slash") << "s"
                               << "a/b"
                               << "";
        QTest::newRow("space") << "s"
                               << "read file"
                               << "";
        QTest::newRow("non-ASCII") << "s"
                                   << "lire_fichier_é"
                                   << "";
        QTest::newRow("empty") << "s"
                               << ""
                               << "";
    }

    void toolNames() {
        QFETCH(QString, server);
        QFETCH(QString, tool);
        QFETCH(QString, name);
        const auto made = mcpToolName(server.toStdString(), tool.toStdString());
        if (name.isEmpty()) {
            QVERIFY(!made);
            QVERIFY2(made.error().message.find(
                         "is not one the model can call (1 to 128 letters, digits, '_' or '-')") !=
                         std::string::npos,
                     made.error().message.c_str());
            return;
        }
        QVERIFY2(made, made ? "" : made.error().message.c_str());
        QCOMPARE(QString::fromStdString(*made), name);
        QVERIFY(isMcpToolName(*made));
        QVERIFY(made->starts_with(mcpToolPrefix(server.toStdString())));
    }

    void builtInToolsAreNotMcpTools() {
        for (const char* name : {"shell", "read_file", "finish", "mcp_x", "mcp"})
            QVERIFY2(!isMcpToolName(name), name);
    }
};

QTEST_APPLESS_MAIN(TestMcpServers)
#include "tst_mcp_servers.moc"
