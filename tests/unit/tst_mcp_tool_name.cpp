// McpToolName: the names MCP servers' tools go by (mcp__SERVER__TOOL) taken apart, and the patterns a tool
// list names them with (the tool, mcp__SERVER__*, mcp__*), as the agent, its settings and the faces read them.
#include "agent_core/protocol/McpToolName.h"

#include <QtTest>

using namespace warren::protocol;

class TestMcpToolName : public QObject {
    Q_OBJECT

private slots:
    void splitsAName() {
        const auto parts = splitMcpToolName("mcp__github__create_issue");
        QVERIFY(parts);
        QCOMPARE(parts->server, std::string("github"));
        QCOMPARE(parts->tool, std::string("create_issue"));
        const auto nested = splitMcpToolName("mcp__fs__read__file"); // the first separator splits
        QVERIFY(nested);
        QCOMPARE(nested->server, std::string("fs"));
        QCOMPARE(nested->tool, std::string("read__file"));
        for (const char* name : {"shell", "mcp__", "mcp____tool", "mcp__server__", "mcp__server", "mcp_x__y"})
            QVERIFY2(!splitMcpToolName(name), name);
        QCOMPARE(mcpToolPrefix("fs"), std::string("mcp__fs__"));
        QVERIFY(isMcpToolName("mcp__fs__read") && !isMcpToolName("read_file"));
    }

    void readsPatterns_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<bool>("pattern");
        QTest::newRow("a tool") << "mcp__fs__read" << true;
        QTest::newRow("a server's tools") << "mcp__fs__*" << true;
        QTest::newRow("every MCP tool") << "mcp__*" << true;
        QTest::newRow("dashes and digits") << "mcp__my-srv2__get-sum" << true;
        QTest::newRow("not an MCP name") << "shell" << false;
        QTest::newRow("no tool") << "mcp__fs__" << false;
        QTest::newRow("no server") << "mcp____read" << false;
        QTest::newRow("a star inside") << "mcp__fs__re*" << false;
        QTest::newRow("a star after a tool") << "mcp__fs__a__*" << false;
        QTest::newRow("a dot") << "mcp__fs__read.file" << false;
        QTest::newRow("too long") << "mcp__fs__" + QString(130, 'a') << false;
    }

    void readsPatterns() {
        QFETCH(QString, entry);
        QTEST(isMcpToolPattern(entry.toStdString()), "pattern");
    }

    void listsByPattern() {
        QVERIFY(mcpToolListed("mcp__fs__read", "mcp__fs__read"));
        QVERIFY(mcpToolListed("mcp__fs__*", "mcp__fs__read"));
        QVERIFY(mcpToolListed("mcp__*", "mcp__gh__issue"));
        QVERIFY(!mcpToolListed("mcp__fs__*", "mcp__fsx__read")); // another server whose name starts alike
        QVERIFY(!mcpToolListed("mcp__fs__read", "mcp__fs__read_more"));
        QVERIFY(!mcpToolListed("shell", "shell")); // not an MCP tool: the built-in list decides
    }
};

QTEST_APPLESS_MAIN(TestMcpToolName)
#include "tst_mcp_tool_name.moc"
