// Filesystem isolation, attacked for real: reading the host's secrets, writing outside the workspace,
// and escaping through links planted in the workspace, by the host or from inside.

#include "tests/support/SandboxRun.h"

#include <QtTest>

#include <unistd.h>

using namespace warren::test;

namespace {

const QByteArray kSecret = "warren-itest-secret-" + QByteArray::number(QRandomGenerator::global()->generate64());

// A directory outside the workspace holding a secret file.
class Outside {
public:
    Outside()
        : m_dir(QDir::tempPath() + QStringLiteral("/warren-itest-outside-XXXXXX"))
    {
        QFile file(secretPath());
        m_ok = m_dir.isValid() && file.open(QIODevice::WriteOnly) && file.write(kSecret) == kSecret.size();
    }
    bool isValid() const { return m_ok; }
    QString path() const { return m_dir.path(); }
    QString secretPath() const { return m_dir.filePath(QStringLiteral("secret")); }

private:
    QTemporaryDir m_dir;
    bool m_ok = false;
};

// A secret file in the invoking user's home directory, removed afterwards.
class HomeSecret {
public:
    HomeSecret()
        : m_file(QDir::homePath() + QStringLiteral("/.warren-itest-secret-XXXXXX"))
    {
        m_ok = m_file.open() && m_file.write(kSecret) == kSecret.size() && m_file.flush();
    }
    bool isValid() const { return m_ok; }
    QString path() const { return m_file.fileName(); }

private:
    QTemporaryFile m_file;
    bool m_ok = false;
};

} // namespace

class TestSandboxFilesystem : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void hostSecretUnreadable_data();
    void hostSecretUnreadable();
    void hostDirectoryUnlisted_data();
    void hostDirectoryUnlisted();
    void kernelInterfacesClosed_data();
    void kernelInterfacesClosed();
    void hostSharedMemoryInvisible();
    void writeOutsideWorkspaceFails_data();
    void writeOutsideWorkspaceFails();
    void plantedSymlinkDoesNotEscape_data();
    void plantedSymlinkDoesNotEscape();
    void symlinkMadeInsideDoesNotEscape();
    void hardLinkToOutsideFileFails_data();
    void hardLinkToOutsideFileFails();
    void workspaceIsWritableAndShared();
    void readOnlyAndReadWriteMounts();
    void runLeavesWorkspaceUnchanged();

private:
    std::unique_ptr<Workspace> m_workspace;
};

void TestSandboxFilesystem::initTestCase()
{
    const QString problem = sandboxUnusable();
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestSandboxFilesystem::init()
{
    m_workspace = std::make_unique<Workspace>();
    QVERIFY(m_workspace->isValid());
    QVERIFY(m_workspace->installProbe());
}

void TestSandboxFilesystem::hostSecretUnreadable_data()
{
    QTest::addColumn<QString>("where");

    QTest::newRow("file in the invoking user's home") << QStringLiteral("home");
    QTest::newRow("file in a host temp directory") << QStringLiteral("outside");
    QTest::newRow("/etc/shadow") << QStringLiteral("/etc/shadow");
}

void TestSandboxFilesystem::hostSecretUnreadable()
{
    QFETCH(QString, where);

    HomeSecret home;
    Outside outside;
    QString path = where;
    if (where == QLatin1String("home")) {
        QVERIFY2(home.isValid(), qPrintable(QStringLiteral("cannot write a secret into %1").arg(QDir::homePath())));
        path = home.path();
    } else if (where == QLatin1String("outside")) {
        QVERIFY(outside.isValid());
        path = outside.secretPath();
    }

    const RunOutcome outcome = m_workspace->probe({QStringLiteral("read-file"), path});
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY(!outcome.out.contains(kSecret));
}

void TestSandboxFilesystem::hostDirectoryUnlisted_data()
{
    QTest::addColumn<QString>("directory");

    QTest::newRow("invoking user's home") << QDir::homePath();
    QTest::newRow("/root") << QStringLiteral("/root");
    QTest::newRow("/run") << QStringLiteral("/run");
    QTest::newRow("/var") << QStringLiteral("/var");
}

// Nothing of these exists in the sandbox: listing them shows no entry (or fails).
void TestSandboxFilesystem::hostDirectoryUnlisted()
{
    QFETCH(QString, directory);

    HomeSecret home; // makes sure the home directory is not empty on the host
    QVERIFY(home.isValid());
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("ls -A \"$1\""),
                                                 QStringLiteral("sh"), directory});
    QVERIFY2(outcome.exited(), qPrintable(outcome.describe()));
    QVERIFY2(outcome.exitCode != 0 || outcome.out.trimmed().isEmpty(), qPrintable(outcome.describe()));
}

void TestSandboxFilesystem::kernelInterfacesClosed_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("path");

    // Opened for writing with nothing written: a sandbox that let the open through has already failed,
    // and the host is left as it was. Sysctls check no capability, only the file mode against the
    // caller's uid as the host sees it; a core_pattern of "|program" runs that program as host root.
    QTest::newRow("write /proc/sys/kernel/core_pattern") << QStringLiteral("write-file") << QStringLiteral("/proc/sys/kernel/core_pattern");
    QTest::newRow("write /proc/sys/kernel/modprobe") << QStringLiteral("write-file") << QStringLiteral("/proc/sys/kernel/modprobe");
    QTest::newRow("write /proc/sysrq-trigger") << QStringLiteral("write-file") << QStringLiteral("/proc/sysrq-trigger");
    QTest::newRow("write /proc/sys/kernel/hostname") << QStringLiteral("write-file") << QStringLiteral("/proc/sys/kernel/hostname");
    QTest::newRow("write /proc/sys/vm/drop_caches") << QStringLiteral("write-file") << QStringLiteral("/proc/sys/vm/drop_caches");
    // Host devices and the kernel log are not in the sandbox's /dev, nor /sys at all.
    QTest::newRow("read /dev/kmsg") << QStringLiteral("read-file") << QStringLiteral("/dev/kmsg");
    QTest::newRow("read /dev/mem") << QStringLiteral("read-file") << QStringLiteral("/dev/mem");
    QTest::newRow("read /dev/port") << QStringLiteral("read-file") << QStringLiteral("/dev/port");
    QTest::newRow("read /dev/vda") << QStringLiteral("read-file") << QStringLiteral("/dev/vda");
    QTest::newRow("read /dev/sda") << QStringLiteral("read-file") << QStringLiteral("/dev/sda");
    QTest::newRow("read /sys/kernel/notes") << QStringLiteral("read-file") << QStringLiteral("/sys/kernel/notes");
    QTest::newRow("read /proc/kcore") << QStringLiteral("read-file") << QStringLiteral("/proc/kcore");
}

void TestSandboxFilesystem::kernelInterfacesClosed()
{
    QFETCH(QString, action);
    QFETCH(QString, path);

    const RunOutcome outcome = m_workspace->probe({action, path});
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
}

// POSIX shared memory of host programs lives in the host's /dev/shm.
void TestSandboxFilesystem::hostSharedMemoryInvisible()
{
    if (!QFileInfo(QStringLiteral("/dev/shm")).isWritable())
        QSKIP("this host has no writable /dev/shm");
    QTemporaryFile shared(QStringLiteral("/dev/shm/warren-itest-XXXXXX"));
    QVERIFY(shared.open() && shared.write(kSecret) == kSecret.size() && shared.flush());
    const RunOutcome outcome = m_workspace->probe({QStringLiteral("read-file"), shared.fileName()});
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY(!outcome.out.contains(kSecret));
}

void TestSandboxFilesystem::writeOutsideWorkspaceFails_data()
{
    QTest::addColumn<QString>("where");

    // Each a new name, so that a sandbox that let the write through changes nothing that existed.
    QTest::newRow("host /usr (mounted read-only)") << QStringLiteral("/usr/lib/warren-itest-%1");
    QTest::newRow("host /etc/ssl/certs (mounted read-only)") << QStringLiteral("/etc/ssl/certs/warren-itest-%1");
    QTest::newRow("invoking user's home") << QStringLiteral("home:.warren-itest-%1");
    QTest::newRow("host temp directory") << QStringLiteral("outside:warren-itest-%1");
}

void TestSandboxFilesystem::writeOutsideWorkspaceFails()
{
    QFETCH(QString, where);

    Outside outside;
    QVERIFY(outside.isValid());
    QString path = where.arg(QRandomGenerator::global()->generate());
    if (path.startsWith(QLatin1String("home:")))
        path = QDir::homePath() + QLatin1Char('/') + path.mid(5);
    else if (path.startsWith(QLatin1String("outside:")))
        path = outside.path() + QLatin1Char('/') + path.mid(8);
    if (!QFileInfo(QFileInfo(path).absolutePath()).isDir())
        QSKIP(qPrintable(QStringLiteral("%1 does not exist on this host").arg(QFileInfo(path).absolutePath())));

    const RunOutcome outcome = m_workspace->probe({QStringLiteral("write-file"), path});
    const bool leaked = QFileInfo::exists(path);
    if (leaked)
        QFile::remove(path);
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY2(!leaked, qPrintable(QStringLiteral("the sandbox created %1 on the host").arg(path)));
}

void TestSandboxFilesystem::plantedSymlinkDoesNotEscape_data()
{
    QTest::addColumn<QString>("target");

    // The workspace is often a cloned repository, and a repository can carry any symlink.
    QTest::newRow("absolute, to a host temp file") << QStringLiteral("outside-absolute");
    QTest::newRow("relative, to a host temp file") << QStringLiteral("outside-relative");
    QTest::newRow("absolute, to a file in the user's home") << QStringLiteral("home");
    QTest::newRow("relative, climbing past the root") << QStringLiteral("../../../../../../../../etc/shadow");
    QTest::newRow("absolute, /etc/shadow") << QStringLiteral("/etc/shadow");
}

void TestSandboxFilesystem::plantedSymlinkDoesNotEscape()
{
    QFETCH(QString, target);

    Outside outside;
    QVERIFY(outside.isValid());
    HomeSecret home;
    QVERIFY(home.isValid());
    if (target == QLatin1String("outside-absolute"))
        target = outside.secretPath();
    else if (target == QLatin1String("outside-relative"))
        target = QDir(m_workspace->path()).relativeFilePath(outside.secretPath());
    else if (target == QLatin1String("home"))
        target = home.path();
    QVERIFY(QFile::link(target, m_workspace->hostPath(QStringLiteral("link"))));

    const RunOutcome read = m_workspace->probe({QStringLiteral("read-file"), QStringLiteral("/workspace/link")});
    QVERIFY2(read.probeFailed(), qPrintable(read.describe()));
    QVERIFY(!read.out.contains(kSecret));

    // Writing through the link must not reach the target either.
    const RunOutcome write = m_workspace->probe({QStringLiteral("write-file"), QStringLiteral("/workspace/link")});
    QFile secret(outside.secretPath());
    QVERIFY(secret.open(QIODevice::ReadOnly));
    QCOMPARE(secret.readAll(), kSecret);
    QFile homeFile(home.path());
    QVERIFY(homeFile.open(QIODevice::ReadOnly));
    QCOMPARE(homeFile.readAll(), kSecret);
    QVERIFY2(write.exited(), qPrintable(write.describe()));
}

// A symlink the sandbox makes itself is resolved inside the sandbox, where the host's paths do not exist.
void TestSandboxFilesystem::symlinkMadeInsideDoesNotEscape()
{
    Outside outside;
    QVERIFY(outside.isValid());
    const QString script = QStringLiteral("ln -s \"$1\" /workspace/link && cat /workspace/link");
    const RunOutcome outcome = m_workspace->run({QStringLiteral("sh"), QStringLiteral("-c"), script, QStringLiteral("sh"),
                                                 outside.secretPath()});
    QVERIFY2(outcome.exited() && outcome.exitCode != 0, qPrintable(outcome.describe()));
    QVERIFY(!outcome.out.contains(kSecret));
    // On the host the link now exists and points at the secret, which is the host's own business: the
    // sandbox could not follow it.
    QVERIFY(QFileInfo(m_workspace->hostPath(QStringLiteral("link"))).isSymLink());
}

void TestSandboxFilesystem::hardLinkToOutsideFileFails_data()
{
    QTest::addColumn<QString>("source");
    QTest::addColumn<bool>("mountOutsideReadOnly");

    // A hard link would make a file outside writable (or keep it reachable) through the workspace.
    // Across mounts link() fails with EXDEV, even when both mounts show the same host filesystem.
    QTest::newRow("a host /usr binary") << QStringLiteral("/usr/bin/env") << false;
    QTest::newRow("a file in a --ro mount") << QStringLiteral("outside") << true;
}

void TestSandboxFilesystem::hardLinkToOutsideFileFails()
{
    QFETCH(QString, source);
    QFETCH(bool, mountOutsideReadOnly);

    Outside outside;
    QVERIFY(outside.isValid());
    if (source == QLatin1String("outside"))
        source = outside.secretPath();
    QStringList options;
    if (mountOutsideReadOnly)
        options << QStringLiteral("--ro") << outside.path();

    const RunOutcome outcome = m_workspace->probe({QStringLiteral("hardlink"), source, QStringLiteral("/workspace/alias")}, options);
    const bool leaked = m_workspace->exists(QStringLiteral("alias"));
    QVERIFY2(outcome.probeFailed(), qPrintable(outcome.describe()));
    QVERIFY(!leaked);
}

void TestSandboxFilesystem::workspaceIsWritableAndShared()
{
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("pwd && mkdir -p out/sub && echo made-inside > out/sub/file")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(outcome.verdict(), QStringLiteral("/workspace"));
    QCOMPARE(m_workspace->readFile(QStringLiteral("out/sub/file")), QByteArray("made-inside\n"));
}

void TestSandboxFilesystem::readOnlyAndReadWriteMounts()
{
    Outside readOnly;
    Outside readWrite;
    QVERIFY(readOnly.isValid() && readWrite.isValid());
    const QString script = QStringLiteral(
        "cat \"$1/secret\" && echo; "
        "if echo tampered > \"$1/secret\"; then echo ro-writable; fi; "
        "echo from-inside > \"$2/new\" && echo rw-ok");
    const RunOutcome outcome = m_workspace->run(
        {QStringLiteral("sh"), QStringLiteral("-c"), script, QStringLiteral("sh"), readOnly.path(), readWrite.path()},
        {QStringLiteral("--ro"), readOnly.path(), QStringLiteral("--rw"), readWrite.path()});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QVERIFY2(outcome.out.contains(kSecret), qPrintable(outcome.describe()));
    QVERIFY2(!outcome.out.contains("ro-writable"), qPrintable(outcome.describe()));
    QVERIFY2(outcome.out.contains("rw-ok"), qPrintable(outcome.describe()));
    QFile secret(readOnly.secretPath());
    QVERIFY(secret.open(QIODevice::ReadOnly));
    QCOMPARE(secret.readAll(), kSecret);
    QFile created(readWrite.path() + QStringLiteral("/new"));
    QVERIFY(created.open(QIODevice::ReadOnly));
    QCOMPARE(created.readAll(), QByteArray("from-inside\n"));
}

// Mount points bwrap needs (placeholders over protected paths that do not exist yet) are created in the
// host workspace; none may remain once the sandbox has exited.
void TestSandboxFilesystem::runLeavesWorkspaceUnchanged()
{
    const QStringList before = m_workspace->entries();
    const RunOutcome outcome = m_workspace->run({QStringLiteral("true")});
    QVERIFY2(outcome.exited() && outcome.exitCode == 0, qPrintable(outcome.describe()));
    QCOMPARE(m_workspace->entries(), before);
}

QTEST_GUILESS_MAIN(TestSandboxFilesystem)
#include "tst_sandbox_filesystem.moc"
