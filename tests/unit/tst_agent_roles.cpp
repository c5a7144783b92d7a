// What a sub-agent may call by its role (pure), and who holds which path (PathClaims).

#include "agent_core/team/AgentRoles.h"
#include "agent_core/team/PathClaims.h"
#include "tests/support/StringLists.h"

#include <QtTest>

using warren::test::toQt;
using warren::test::toStd;
using namespace warren::agent;

namespace {



} // namespace

class TestAgentRoles : public QObject {
    Q_OBJECT

private slots:
    void toolsForRole_data() {
        QTest::addColumn<QString>("role");
        QTest::addColumn<QStringList>("starter");
        QTest::addColumn<QStringList>("expected");
        QTest::addColumn<QString>("error");
        const QStringList all = {"shell", "read_file", "write_file", "edit_file", "list_files", "search",
                                 "memory_save", "memory_load", "memory_search", "finish"};
        QTest::newRow("worker: the starter's without memory")
            << "worker" << all
            << QStringList{"shell", "read_file", "write_file", "edit_file", "list_files", "search", "finish"} << "";
        QTest::newRow("explorer: read-only")
            << "explorer" << all << QStringList{"read_file", "list_files", "search", "finish"} << "";
        QTest::newRow("explorer: what the tools say of themselves")
            << "explorer"
            << QStringList{"shell", "apply_patch", "update_plan", "search", "list_files", "memory_load", "read_file"}
            << QStringList{"search", "list_files", "read_file", "finish"} << "";
        QTest::newRow("a role never widens the starter's tools")
            << "explorer" << QStringList{"shell", "read_file", "finish"} << QStringList{"read_file", "finish"} << "";
        QTest::newRow("finish is always there")
            << "worker" << QStringList{"shell"} << QStringList{"shell", "finish"} << "";
        QTest::newRow("unknown role") << "boss" << all << QStringList{}
                                      << "unknown role \"boss\" (known: worker, explorer)";
    }
    void toolsForRole() {
        QFETCH(QString, role);
        QFETCH(QStringList, starter);
        QFETCH(QStringList, expected);
        QFETCH(QString, error);
        const auto tools = warren::agent::toolsForRole(role.toStdString(), toStd(starter));
        if (!error.isEmpty()) {
            QVERIFY(!tools);
            QCOMPARE(QString::fromStdString(tools.error().message), error);
            return;
        }
        QVERIFY(tools);
        QCOMPARE(toQt(*tools), expected);
    }

    void theBriefSaysWhoAndHow() {
        const auto text = subAgentBrief("agent-2", "explorer", "Find the parser");
        QVERIFY(text.find("You are agent-2") == 0);
        QVERIFY(text.find("read-only") != std::string::npos);
        QVERIFY(text.ends_with("Your brief:\nFind the parser"));
        QVERIFY(subAgentBrief("agent-1", "worker", "x").find("read-only") == std::string::npos);
    }

    void aSubAgentsCallIdsAreItsOwn() {
        QCOMPARE(subAgentCallId("agent-2", 7, 0, "call_0"), "agent-2_call_0");
        QCOMPARE(subAgentCallId("agent-3", 7, 0, "call_0"), "agent-3_call_0");
        // OpenAI's ids are 29 characters: with the agent's, still within the 40 providers accept.
        QCOMPARE(subAgentCallId("agent-12", 1, 0, "call_abcdefghijklmnopqrstuvwx"),
                 "agent-12_call_abcdefghijklmnopqrstuvwx");
        // Longer, or none: the model call's number and the index.
        QCOMPARE(subAgentCallId("agent-2", 7, 1, std::string(40, 'a')), "agent-2_7_1");
        QCOMPARE(subAgentCallId("agent-2", 8, 0, ""), "agent-2_8_0");
        QVERIFY(subAgentCallId("agent-2", 9, 3, std::string(64, 'b')).size() <= 40);
    }

    // Rows of claims in order: "AGENT PATH" -> the holder it conflicts with ("" = granted).
    void claims_data() {
        QTest::addColumn<QStringList>("steps");
        QTest::addColumn<QStringList>("holders");
        QTest::newRow("first claim wins") << QStringList{"a x", "b x"} << QStringList{"", "a"};
        QTest::newRow("a holder claims again") << QStringList{"a x", "a x"} << QStringList{"", ""};
        QTest::newRow("other paths are free") << QStringList{"a x", "b y"} << QStringList{"", ""};
        QTest::newRow("the task's own agent is a holder too") << QStringList{"- x", "a x"} << QStringList{"", "-"};
    }
    void claims() {
        QFETCH(QStringList, steps);
        QFETCH(QStringList, holders);
        PathClaims claims;
        auto agent = [](const QString& name) { return name == "-" ? std::string() : name.toStdString(); };
        for (int i = 0; i < steps.size(); ++i) {
            const auto parts = steps[i].split(' ');
            const auto holder = claims.claim(agent(parts[0]), parts[1].toStdString());
            if (holders[i].isEmpty())
                QVERIFY2(!holder, qPrintable(steps[i]));
            else
                QCOMPARE(holder.value_or("?"), agent(holders[i]));
        }
    }

    void pathsWrittenBy_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("arguments");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("write_file") << "write_file"
                                    << R"({"path":"a/b.txt","content":"x"})" << QStringList{"a/b.txt"};
        QTest::newRow("edit_file") << "edit_file"
                                   << R"({"path":"c","old_string":"1","new_string":"2"})" << QStringList{"c"};
        QTest::newRow("apply_patch: every file, a move's target too")
            << "apply_patch"
            << R"({"input":"*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Delete File: old.txt\n*** Update File: m.txt\n*** Move to: n.txt\n@@\n-a\n+b\n*** End Patch"})"
            << QStringList{"new.txt", "old.txt", "m.txt", "n.txt"};
        QTest::newRow("apply_patch that does not parse: the tool refuses it")
            << "apply_patch"
            << R"({"input":"nope"})" << QStringList{};
        QTest::newRow("a path that is not a string") << "write_file"
                                                     << R"({"path":7})" << QStringList{};
        QTest::newRow("shell: not known beforehand") << "shell"
                                                     << R"({"command":"echo > x"})" << QStringList{};
        QTest::newRow("arguments that are not an object") << "write_file"
                                                          << R"("x")" << QStringList{};
    }
    void pathsWrittenBy() {
        QFETCH(QString, tool);
        QFETCH(QString, arguments);
        QFETCH(QStringList, expected);
        const warren::protocol::ToolCall call{"id", tool.toStdString(),
                                              nlohmann::json::parse(arguments.toStdString())};
        QCOMPARE(toQt(warren::agent::pathsWrittenBy(call)), expected);
    }

    void releasing() {
        PathClaims claims;
        QVERIFY(!claims.claim("a", "x"));
        QVERIFY(!claims.claim("a", "y"));
        claims.release("b", "x"); // not b's: nothing happens
        QCOMPARE(claims.claim("b", "x").value_or(""), std::string("a"));
        QCOMPARE(claims.heldBy("a"), (std::vector<std::string>{"x", "y"}));
        claims.release("a", "x");
        QVERIFY(!claims.claim("b", "x"));
        claims.releaseAll("a");
        QVERIFY(claims.heldBy("a").empty());
        QVERIFY(!claims.claim("c", "y"));
    }
};

QTEST_GUILESS_MAIN(TestAgentRoles)
#include "tst_agent_roles.moc"
