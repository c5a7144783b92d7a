// SetupNotices (pure): the agent's lines about its run's setup, written and read back by one definition:
// the skills offered and changed survive the round trip, a line that only looks like one is not read as one,
// and an MCP server's notice names the server and what is said of it.
#include "agent_core/protocol/SetupNotices.h"

#include <QtTest>

using namespace warren::protocol;

class TestSetupNotices : public QObject {
    Q_OBJECT

private slots:
    void skillsNoticesRoundTrip_data();
    void skillsNoticesRoundTrip();
    void otherLinesAreNoSkillsNotice_data();
    void otherLinesAreNoSkillsNotice();
    void mcpServerNotices_data();
    void mcpServerNotices();
};

void TestSetupNotices::skillsNoticesRoundTrip_data() {
    QTest::addColumn<QString>("message");
    QTest::newRow("offered") << "skills offered: pdf, run-tests";
    QTest::newRow("offered, one") << "skills offered: pdf";
    QTest::newRow("added") << "skills changed: added new-one";
    QTest::newRow("all three") << "skills changed: added a, b; changed c; removed d2";
    QTest::newRow("removed only") << "skills changed: removed pdf";
}

void TestSetupNotices::skillsNoticesRoundTrip() {
    QFETCH(QString, message);
    const auto notice = readSkillsNotice(message.toStdString());
    QVERIFY(notice);
    QCOMPARE(QString::fromStdString(skillsNoticeMessage(*notice)), message);
}

void TestSetupNotices::otherLinesAreNoSkillsNotice_data() {
    QTest::addColumn<QString>("message");
    QTest::newRow("no names") << "skills offered: ";
    QTest::newRow("a name a skill cannot have") << "skills offered: PDF files";
    QTest::newRow("a change of no kind") << "skills changed: renamed a";
    QTest::newRow("a kind twice") << "skills changed: added a; added b";
    QTest::newRow("nothing changed") << "skills changed: ";
    QTest::newRow("another line") << "skill pdf skipped: no front matter";
}

void TestSetupNotices::otherLinesAreNoSkillsNotice() {
    QFETCH(QString, message);
    QVERIFY(!readSkillsNotice(message.toStdString()));
}

void TestSetupNotices::mcpServerNotices_data() {
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("server");
    QTest::addColumn<QString>("said");
    QTest::newRow("started") << R"(MCP server "fs" (fs 1.0) started with 3 tools)"
                             << "fs"
                             << "(fs 1.0) started with 3 tools";
    QTest::newRow("after a colon") << R"(MCP server "gh": its tools could not be listed)"
                                   << "gh"
                                   << "its tools could not be listed";
    QTest::newRow("no server") << R"(MCP servers: /workspace/.mcp.json: not JSON)"
                               << ""
                               << "";
    QTest::newRow("an empty name") << R"(MCP server "" x)"
                                   << ""
                                   << "";
}

void TestSetupNotices::mcpServerNotices() {
    QFETCH(QString, message);
    QFETCH(QString, server);
    QFETCH(QString, said);
    const auto notice = readMcpServerNotice(message.toStdString());
    QCOMPARE(bool(notice), !server.isEmpty());
    if (notice) {
        QCOMPARE(QString::fromStdString(notice->server), server);
        QCOMPARE(QString::fromStdString(notice->said), said);
        QVERIFY(message.startsWith(QString::fromStdString(mcpServerLabel(notice->server))));
    }
}

QTEST_APPLESS_MAIN(TestSetupNotices)
#include "tst_setup_notices.moc"
