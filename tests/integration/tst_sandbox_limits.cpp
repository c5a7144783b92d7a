// Resource limits, attacked for real: a fork bomb, a memory hog, a file that grows without end, a
// descriptor leak and a busy loop, each inside warren-sandbox with a limit set by flag or by profile.
// A limit may be enforced by a cgroup (the process is killed) or by an rlimit (the call fails); either
// is accepted, as long as the process did not get what it asked for.

#include "tests/support/SandboxRun.h"

#include <QtTest>

#include <csignal>
#include <unistd.h>

using namespace warren::test;

namespace {

// A profile file with the given "limits" object, outside the workspace.
class LimitsProfile {
public:
    explicit LimitsProfile(const QByteArray& limitsJson)
    {
        QFile file(m_dir.filePath(QStringLiteral("profile.json")));
        m_ok = m_dir.isValid() && file.open(QIODevice::WriteOnly)
            && file.write("{ \"limits\": " + limitsJson + " }\n") > 0;
    }
    bool isValid() const { return m_ok; }
    QStringList options() const { return {QStringLiteral("--profile"), m_dir.filePath(QStringLiteral("profile.json"))}; }

private:
    QTemporaryDir m_dir;
    bool m_ok = false;
};

// "errno EAGAIN created 31" -> 31; -1 when the verdict has no such count.
long countIn(const QString& verdict, const QString& word)
{
    const QStringList words = verdict.split(QLatin1Char(' '));
    const auto at = words.indexOf(word);
    bool ok = false;
    const long value = at >= 0 && at + 1 < words.size() ? words.at(at + 1).toLong(&ok) : -1;
    return ok ? value : -1;
}

} // namespace

class TestSandboxLimits : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void forkBombStopped_data();
    void forkBombStopped();
    void memoryHogStopped_data();
    void memoryHogStopped();
    void fileSizeLimited_data();
    void fileSizeLimited();
    void openFilesLimited();
    void cpuTimeLimited_data();
    void cpuTimeLimited();

private:
    std::unique_ptr<Workspace> m_workspace;
};

void TestSandboxLimits::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSandboxLimits::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(m_workspace->installProbe());
}

void TestSandboxLimits::forkBombStopped_data()
{
    QTest::addColumn<QByteArray>("profileLimits"); // empty: use the flag
    QTest::addColumn<QStringList>("flags");

    QTest::newRow("--pids 32") << QByteArray() << QStringList{QStringLiteral("--pids"), QStringLiteral("32")};
    QTest::newRow("profile limits.pids 32") << QByteArray(R"({ "pids": 32 })") << QStringList();
}

void TestSandboxLimits::forkBombStopped()
{
    QFETCH(QByteArray, profileLimits);
    QFETCH(QStringList, flags);

    LimitsProfile profile(profileLimits);
    QVERIFY(profile.isValid());
    const QStringList options = profileLimits.isEmpty() ? flags : profile.options();
    // Without a working limit the probe stops itself at 4096 children and reports success.
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("forkbomb"), QStringLiteral("4096")}, options);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.verdict().startsWith(QLatin1String("errno EAGAIN")), qPrintable(outcome.describe()));
    const long created = countIn(outcome.verdict(), QStringLiteral("created"));
    // As root the limit is the sandbox's pids cgroup: exact. As a user without a writable pids cgroup it is
    // RLIMIT_NPROC, which counts every task of the user: it is set to the limit plus what the user ran at the
    // launch, so the user's processes that end meanwhile (other tests of the same user, run side by side) leave
    // the bomb that much more room, and only "stopped" holds (LimitPlan's test checks the rlimit it sets).
    const long bound = ::geteuid() == 0 ? 32 : 4096;
    QVERIFY2(created >= 0 && created < bound, qPrintable(outcome.describe()));
}

void TestSandboxLimits::memoryHogStopped_data()
{
    QTest::addColumn<QByteArray>("profileLimits");
    QTest::addColumn<QStringList>("flags");

    QTest::newRow("--memory-mb 128") << QByteArray() << QStringList{QStringLiteral("--memory-mb"), QStringLiteral("128")};
    QTest::newRow("profile limits.memory_mb 128") << QByteArray(R"({ "memory_mb": 128 })") << QStringList();
}

void TestSandboxLimits::memoryHogStopped()
{
    QFETCH(QByteArray, profileLimits);
    QFETCH(QStringList, flags);

    LimitsProfile profile(profileLimits);
    QVERIFY(profile.isValid());
    const QStringList options = profileLimits.isEmpty() ? flags : profile.options();
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("memhog"), QStringLiteral("1024")}, options);
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    if (outcome.exitCode == exitForSignal(SIGKILL))
        return; // the memory cgroup's OOM killer stopped it
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.verdict().startsWith(QLatin1String("errno ENOMEM")), qPrintable(outcome.describe()));
    const long got = countIn(outcome.verdict(), QStringLiteral("got"));
    QVERIFY2(got >= 0 && got <= 128, qPrintable(outcome.describe()));
}

void TestSandboxLimits::fileSizeLimited_data()
{
    QTest::addColumn<QString>("path");

    QTest::newRow("in the workspace") << QStringLiteral("/workspace/big");
    QTest::newRow("in the sandbox's /tmp") << QStringLiteral("/tmp/big");
}

void TestSandboxLimits::fileSizeLimited()
{
    QFETCH(QString, path);

    LimitsProfile profile(R"({ "file_size_mb": 2 })");
    QVERIFY(profile.isValid());
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("write-file"), path, QStringLiteral("8")}, profile.options());
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.verdict().startsWith(QLatin1String("errno EFBIG")), qPrintable(outcome.describe()));
    const long written = countIn(outcome.verdict(), QStringLiteral("wrote"));
    QVERIFY2(written >= 0 && written <= 2 * 1024 * 1024, qPrintable(outcome.describe()));
    if (path.startsWith(QLatin1String("/workspace/")))
        QVERIFY(QFileInfo(m_workspace->hostPath(QStringLiteral("big"))).size() <= 2 * 1024 * 1024);
}

void TestSandboxLimits::openFilesLimited()
{
    LimitsProfile profile(R"({ "open_files": 64 })");
    QVERIFY(profile.isValid());
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("openfiles"), QStringLiteral("100000")}, profile.options());
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.verdict().startsWith(QLatin1String("errno EMFILE")), qPrintable(outcome.describe()));
    const long opened = countIn(outcome.verdict(), QStringLiteral("opened"));
    QVERIFY2(opened >= 0 && opened < 64, qPrintable(outcome.describe()));
}

void TestSandboxLimits::cpuTimeLimited_data()
{
    QTest::addColumn<QByteArray>("profileLimits");
    QTest::addColumn<QStringList>("flags");

    QTest::newRow("--cpu-seconds 1") << QByteArray() << QStringList{QStringLiteral("--cpu-seconds"), QStringLiteral("1")};
    QTest::newRow("profile limits.cpu_seconds 1") << QByteArray(R"({ "cpu_seconds": 1 })") << QStringList();
}

// A process that spins forever is killed once it has used its CPU time: SIGXCPU at the soft limit, or
// SIGKILL at the hard one. The wall-clock timeout is only a backstop, and reaching it is a failure.
void TestSandboxLimits::cpuTimeLimited()
{
    QFETCH(QByteArray, profileLimits);
    QFETCH(QStringList, flags);

    LimitsProfile profile(profileLimits);
    QVERIFY(profile.isValid());
    QStringList options = profileLimits.isEmpty() ? flags : profile.options();
    options << QStringLiteral("--timeout") << QStringLiteral("60");
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("cpu-burn")}, options);
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.exitCode == exitForSignal(SIGXCPU) || outcome.exitCode == exitForSignal(SIGKILL),
             qPrintable(outcome.describe()));
}

QTEST_GUILESS_MAIN(TestSandboxLimits)
#include "tst_sandbox_limits.moc"
