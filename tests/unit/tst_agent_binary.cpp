// findAgentBinary: the agent found from where each program lies, in the build tree (warren from build/warren/,
// warrend from build/server/warrend/) and installed (bin/ beside lib/warren/), without WARREN_AGENT.
#include "app/engine/AgentBinary.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using warren::control::findAgentBinary;

class TestAgentBinary : public QObject {
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void foundFromTheProgramsDirectory_data();
    void foundFromTheProgramsDirectory();
    void foundFromThisBuildsWarrend();
    void notFoundSaysWhereItLooked();

private:
    QByteArray m_named; // WARREN_AGENT as CTest set it
};

namespace {

void makeExecutable(const QString& path) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner));
}

} // namespace

void TestAgentBinary::init() {
    m_named = qgetenv("WARREN_AGENT");
    qunsetenv("WARREN_AGENT");
}

void TestAgentBinary::cleanup() { qputenv("WARREN_AGENT", m_named); }

void TestAgentBinary::foundFromTheProgramsDirectory_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("agent");
    QTest::newRow("warren in the build tree") << "build/warren" << "build/agent_core/tool/warren-agent";
    QTest::newRow("warrend in the build tree") << "build/server/warrend" << "build/agent_core/tool/warren-agent";
    QTest::newRow("installed") << "usr/bin" << "usr/lib/warren/warren-agent";
    QTest::newRow("beside the program") << "opt/warren" << "opt/warren/warren-agent";
}

void TestAgentBinary::foundFromTheProgramsDirectory() {
    QFETCH(QString, program);
    QFETCH(QString, agent);
    QTemporaryDir root;
    QVERIFY(QDir().mkpath(root.filePath(program)));
    makeExecutable(root.filePath(agent));
    const auto found = findAgentBinary(root.filePath(program).toStdString());
    QVERIFY2(found, found ? "" : found.error().message.c_str());
    QCOMPARE(QString::fromStdString(*found), QFileInfo(root.filePath(agent)).canonicalFilePath());
}

// This build's own layout: the agent CTest names lies at BUILD/agent_core/tool/, warrend at BUILD/server/warrend/.
void TestAgentBinary::foundFromThisBuildsWarrend() {
    const QFileInfo agent(QString::fromLocal8Bit(m_named));
    QVERIFY2(agent.isExecutable(), "WARREN_AGENT names this build's agent");
    QDir build = agent.dir();
    QVERIFY(build.cd("../.."));
    const auto found = findAgentBinary(build.filePath("server/warrend").toStdString());
    QVERIFY2(found, found ? "" : found.error().message.c_str());
    QCOMPARE(QString::fromStdString(*found), agent.canonicalFilePath());
}

void TestAgentBinary::notFoundSaysWhereItLooked() {
    QTemporaryDir root;
    QVERIFY(QDir().mkpath(root.filePath("usr/bin")));
    const auto found = findAgentBinary(root.filePath("usr/bin").toStdString());
    QVERIFY(!found);
    QVERIFY2(found.error().message.find("/usr/bin/../lib/warren/warren-agent") != std::string::npos,
             found.error().message.c_str());
    QVERIFY2(found.error().message.find("WARREN_AGENT") != std::string::npos, found.error().message.c_str());
}

QTEST_GUILESS_MAIN(TestAgentBinary)
#include "tst_agent_binary.moc"
