// runProcess: a tool's process runs in its own process group with stdin from /dev/null and nothing else of
// the agent's; output streams while it runs, in arrival order, and comes back capped; a deadline or a
// stop ends the whole group; and when runProcess returns, nothing the process started is still running,
// not even what escaped the group, but for the groups spared (an MCP server's). Synchronisation with the
// child goes through fifos the test writes to only after it received output, never through sleeps.

#include "agent_core/process/ChildReaper.h"
#include "agent_core/process/OutputCap.h"
#include "agent_core/process/ProcessRunner.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren::agent;
using namespace std::chrono_literals;

extern char** environ;

namespace {

// A deadline no passing test comes near: a hang fails as timedOut instead of blocking the suite.
ProcessSpec shell(const QString& script) {
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", script.toStdString()};
    spec.deadline = std::chrono::steady_clock::now() + 60s;
    return spec;
}

QByteArray bytes(std::string_view text) {
    return QByteArray(text.data(), qsizetype(text.size()));
}

// A fifo the child reads acknowledgements from ("read x < fifo"): the test writes a line for each chunk
// it receives, so the child goes on only after its output has arrived. Opened read-write, which on Linux
// does not block and keeps unread lines for the child's next open.
class AckFifo {
public:
    explicit AckFifo(const QTemporaryDir& dir) : m_path(dir.filePath("ack")) {
        if (::mkfifo(qPrintable(m_path), 0600) == 0)
            m_fd = ::open(qPrintable(m_path), O_RDWR | O_CLOEXEC);
    }
    ~AckFifo() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool valid() const { return m_fd >= 0; }
    void ack() const { (void)!::write(m_fd, "\n", 1); }
    const QString& path() const { return m_path; }

private:
    QString m_path;
    int m_fd = -1;
};

bool isGone(pid_t pid) {
    return ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Processes whose parent is this test process, found the way ChildReaper finds them.
int childrenOfThisProcess() {
    int count = 0;
    const QString self = QString::number(::getpid());
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool numeric = false;
        entry.toInt(&numeric);
        if (!numeric)
            continue;
        QFile stat("/proc/" + entry + "/stat");
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields[1] == self.toLatin1())
            ++count;
    }
    return count;
}

} // namespace

class TestProcessRunner : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        // As in warren-agent's main(): orphans of the tools re-parent here, where the reaper finds them.
        QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    }

    void cleanup() { QCOMPARE(childrenOfThisProcess(), 0); }

    void reportsExitCodes_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("exitCode");

        QTest::newRow("success") << "true" << 0;
        QTest::newRow("exit status") << "exit 3" << 3;
        QTest::newRow("exec'd program's status") << "exec false" << 1;
        QTest::newRow("killed by SIGTERM is 128+15") << "kill -TERM $$" << 143;
        QTest::newRow("killed by SIGKILL is 128+9") << "kill -KILL $$" << 137;
    }

    void reportsExitCodes() {
        QFETCH(QString, script);
        QFETCH(int, exitCode);

        const auto result = runProcess(shell(script));
        QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
        QCOMPARE(result->exitCode, exitCode);
        QVERIFY(!result->timedOut);
        QVERIFY(!result->stopped);
    }

    void childStartsWithDefaultSignals() {
        // The agent may block or ignore signals for itself; the tool must not inherit that.
        sigset_t term, previousMask;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        QCOMPARE(::pthread_sigmask(SIG_BLOCK, &term, &previousMask), 0);
        struct sigaction ignore {
        }, previousInt{};
        ignore.sa_handler = SIG_IGN;
        QCOMPARE(::sigaction(SIGINT, &ignore, &previousInt), 0);

        const auto blockedTerm = runProcess(shell("kill -TERM $$; echo survived"));
        const auto ignoredInt = runProcess(shell("kill -INT $$; echo survived"));

        ::sigaction(SIGINT, &previousInt, nullptr);
        ::pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
        QVERIFY(blockedTerm.ok() && ignoredInt.ok());
        QCOMPARE(blockedTerm->exitCode, 128 + SIGTERM);
        QCOMPARE(ignoredInt->exitCode, 128 + SIGINT);
        QCOMPARE(bytes(blockedTerm->output), QByteArray());
    }

    void streamsInArrivalOrderWhileRunning() {
        // Each line is written only after the previous one reached onOutput: the chunks arrive while the
        // process runs, and stdout and stderr interleave as they were written.
        QTemporaryDir dir;
        AckFifo fifo(dir);
        QVERIFY(fifo.valid());
        auto spec =
            shell(QString("echo a; read x < '%1'; echo b >&2; read x < '%1'; echo c").arg(fifo.path()));
        QByteArrayList chunks;
        spec.onOutput = [&](std::string_view stream, std::string_view text) {
            chunks << bytes(stream) + ":" + bytes(text);
            fifo.ack();
        };
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QVERIFY(!result->timedOut);
        QCOMPARE(chunks, (QByteArrayList{"stdout:a\n", "stderr:b\n", "stdout:c\n"}));
        QCOMPARE(bytes(result->output), QByteArray("a\nb\nc\n"));
        QCOMPARE(result->totalBytes, std::uint64_t(6));
        QVERIFY(!result->truncated);
    }

    void streamedChunksEndOnCharacterBoundaries() {
        // "é" is written in two halves; the first chunk must stop before it, the second carry it whole.
        QTemporaryDir dir;
        AckFifo fifo(dir);
        QVERIFY(fifo.valid());
        auto spec = shell(QString(R"(printf 'a\303'; read x < '%1'; printf '\251\n')").arg(fifo.path()));
        QByteArrayList chunks;
        spec.onOutput = [&](std::string_view, std::string_view text) {
            chunks << bytes(text);
            fifo.ack();
        };
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QVERIFY(!result->timedOut);
        QCOMPARE(chunks, (QByteArrayList{"a", "\xC3\xA9\n"}));
        QCOMPARE(bytes(result->output), QByteArray("a\xC3\xA9\n"));
    }

    void deadlineEndsTheWholeGroup() {
        // Everything ignores SIGTERM, so this also takes the SIGKILL after the grace.
        auto spec = shell("trap '' TERM; sleep 1000 & echo $!; sleep 1000");
        spec.deadline = std::chrono::steady_clock::now() + 1s;
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QVERIFY(result->timedOut);
        QVERIFY(!result->stopped);
        QCOMPARE(result->exitCode, 124);
        const pid_t background = QByteArray::fromStdString(result->output).trimmed().toInt();
        QVERIFY(background > 0);
        QVERIFY(isGone(background));
    }

    void stopFdEndsItAtOnce() {
        const int stop = ::eventfd(0, EFD_CLOEXEC);
        QVERIFY(stop >= 0);
        auto spec = shell("echo started; sleep 1000");
        spec.stopFd = stop;
        spec.onOutput = [&](std::string_view, std::string_view) {
            const std::uint64_t one = 1;
            (void)!::write(stop, &one, sizeof one);
        };
        const auto result = runProcess(spec);
        ::close(stop);
        QVERIFY(result.ok());
        QVERIFY(result->stopped);
        QVERIFY(!result->timedOut);
        QCOMPARE(result->exitCode, 128 + SIGKILL);
        QCOMPARE(bytes(result->output), QByteArray("started\n"));
    }

    void stopRequestedIsAskedWithoutFd() {
        std::atomic<bool> stop{false};
        auto spec = shell("echo started; sleep 1000");
        spec.stopRequested = [&] {
            return stop.load();
        };
        spec.onOutput = [&](std::string_view, std::string_view) {
            stop = true;
        };
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QVERIFY(result->stopped);
        QVERIFY(!result->timedOut);
        QCOMPARE(result->exitCode, 128 + SIGKILL);
    }

    void nothingItStartedSurvives_data() {
        QTest::addColumn<QString>("script");

        // %1 is a fifo: the main process waits until the escapee wrote its pid there, then prints it and
        // exits, leaving the escapee running (and, but for the last rows, holding the output pipes).
        QTest::newRow("background job") << "sleep 1000 & echo $!";
        QTest::newRow("double fork") << "(sh -c 'echo $$ > %1; exec sleep 1000' &); read pid < %1; echo $pid";
        QTest::newRow("setsid after a double fork")
            << "(setsid sh -c 'echo $$ > %1; exec sleep 1000' &); read pid < %1; echo $pid";
        QTest::newRow("detached daemon with its output closed")
            << "(setsid sh -c 'echo $$ > %1; exec sleep 1000 </dev/null >/dev/null 2>&1' &); read pid < %1; "
               "echo $pid";
        QTest::newRow("child of an escapee")
            << "(setsid sh -c 'sleep 1000 & echo $! > %1; wait' &); read pid < %1; echo $pid";
    }

    void nothingItStartedSurvives() {
        QFETCH(QString, script);
        QTemporaryDir dir;
        const QString fifo = dir.filePath("pid");
        QCOMPARE(::mkfifo(qPrintable(fifo), 0600), 0);

        const auto result = runProcess(shell(QString(script).replace("%1", "'" + fifo + "'")));
        QVERIFY(result.ok());
        QVERIFY(!result->timedOut); // it returned without waiting for the escapee
        QCOMPARE(result->exitCode, 0);
        const pid_t escapee = QByteArray::fromStdString(result->output).trimmed().toInt();
        QVERIFY2(escapee > 0, result->output.c_str());
        QVERIFY(isGone(escapee));
    }

    void reaperSparesTheExceptedChild() {
        pid_t spared = -1, doomed = -1;
        char sleepName[] = "sleep", seconds[] = "1000";
        char* argv[] = {sleepName, seconds, nullptr};
        QCOMPARE(::posix_spawnp(&spared, "sleep", nullptr, nullptr, argv, environ), 0);
        QCOMPARE(::posix_spawnp(&doomed, "sleep", nullptr, nullptr, argv, environ), 0);

        killAndReapDescendants(spared);
        const bool doomedGone = isGone(doomed);
        int status = 0;
        const pid_t stillRunning = ::waitpid(spared, &status, WNOHANG); // 0: not exited, not reaped
        ::kill(spared, SIGKILL);
        ::waitpid(spared, &status, 0);
        QVERIFY(doomedGone);
        QCOMPARE(stillRunning, pid_t(0));
    }

    // A spared group (an MCP server's) outlives the end of a tool call, leader and members, and one that
    // exited keeps its status for whoever started it; what else a tool left is still killed. Then
    // killAndReapGroup ends the group, members included.
    void reaperSparesTheSparedGroups() {
        QTemporaryDir dir;
        const QString fifo = dir.filePath("member");
        QCOMPARE(::mkfifo(qPrintable(fifo), 0600), 0);
        posix_spawnattr_t ownGroup;
        ::posix_spawnattr_init(&ownGroup);
        ::posix_spawnattr_setflags(&ownGroup, POSIX_SPAWN_SETPGROUP);
        ::posix_spawnattr_setpgroup(&ownGroup, 0);
        const auto spawn = [&](std::vector<std::string> words, posix_spawnattr_t* attributes) {
            std::vector<char*> argv;
            for (auto& word : words)
                argv.push_back(word.data());
            argv.push_back(nullptr);
            pid_t pid = -1;
            return ::posix_spawnp(&pid, argv[0], nullptr, attributes, argv.data(), environ) == 0 ? pid : -1;
        };
        const pid_t leader =
            spawn({"sh", "-c", "sleep 1000 & echo $! > '" + fifo.toStdString() + "'; wait"}, &ownGroup);
        const pid_t exited = spawn({"sh", "-c", "exit 5"}, &ownGroup);
        const pid_t doomed = spawn({"sleep", "1000"}, nullptr);
        ::posix_spawnattr_destroy(&ownGroup);
        QVERIFY(leader > 0 && exited > 0 && doomed > 0);
        spareProcessGroup(leader);
        spareProcessGroup(exited);
        QFile memberFile(fifo);
        QVERIFY(memberFile.open(QIODevice::ReadOnly));
        const pid_t member = memberFile.readAll().trimmed().toInt();
        QVERIFY(member > 0);
        siginfo_t info{};
        QCOMPARE(::waitid(P_PID, id_t(exited), &info, WEXITED | WNOWAIT), 0); // a zombie now, not reaped

        killAndReapDescendants();
        const bool doomedGone = isGone(doomed);
        const bool leaderRuns = !isGone(leader) && ::waitpid(leader, nullptr, WNOHANG) == 0;
        const bool memberRuns = !isGone(member);
        int status = 0;
        const pid_t collected = ::waitpid(exited, &status, WNOHANG);
        stopSparingProcessGroup(exited);

        killAndReapGroup(leader);
        stopSparingProcessGroup(leader);
        QVERIFY(doomedGone);
        QVERIFY(leaderRuns);
        QVERIFY(memberRuns);
        QCOMPARE(collected, exited);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 5);
        QVERIFY(isGone(leader));
        QVERIFY(isGone(member));
    }

    void hugeOutputIsCappedButCounted() {
        const std::uint64_t size = 50ull << 20;
        auto spec = shell(QString(R"(head -c %1 /dev/zero | tr '\0' x)").arg(size));
        std::uint64_t streamed = 0;
        spec.onOutput = [&](std::string_view, std::string_view text) {
            streamed += text.size();
        };
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QCOMPARE(result->exitCode, 0);
        QCOMPARE(result->totalBytes, size);
        QCOMPARE(streamed, size);
        QVERIFY(result->truncated);
        QVERIFY(result->output.size() <= spec.capBytes + OutputCap::kMaxMarkerBytes);
        QVERIFY(result->output.find(" bytes cut ...]") != std::string::npos);
        QCOMPARE(result->output.substr(0, 8 * 1024), std::string(8 * 1024, 'x'));
    }

    void streamLimitEndsStreamingWithANote() {
        const std::uint64_t size = 3ull << 20;
        auto spec = shell(QString(R"(head -c %1 /dev/zero | tr '\0' y)").arg(size));
        spec.streamLimitBytes = 1ull << 20;
        QByteArrayList chunks;
        spec.onOutput = [&](std::string_view, std::string_view text) {
            chunks << bytes(text);
        };
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QCOMPARE(result->totalBytes, size);
        QVERIFY(!chunks.isEmpty());
        QVERIFY(chunks.last().contains("not streamed"));
        std::uint64_t streamed = 0;
        for (qsizetype i = 0; i + 1 < chunks.size(); ++i) {
            QVERIFY(!chunks[i].contains("not streamed"));
            streamed += std::uint64_t(chunks[i].size());
        }
        QCOMPARE(streamed, spec.streamLimitBytes);
    }

    void agentDescriptorsAreNotInherited() {
        // Descriptors without close-on-exec, as a careless library would leave them.
        int leaked[2];
        QCOMPARE(::pipe(leaked), 0);
        const int high = ::dup2(leaked[0], 100);
        QCOMPARE(high, 100);
        const auto result = runProcess(shell("ls -l /proc/self/fd/"));
        ::close(leaked[0]);
        ::close(leaked[1]);
        ::close(high);
        QVERIFY(result.ok());
        QCOMPARE(result->exitCode, 0);

        QMap<int, QString> open; // fd -> what it points to, less ls's own directory handle
        for (const QString& line : QString::fromStdString(result->output).split('\n')) {
            const qsizetype arrow = line.indexOf(" -> ");
            if (arrow < 0)
                continue;
            const QString target = line.mid(arrow + 4);
            if (!target.startsWith("/proc/"))
                open.insert(line.left(arrow).section(' ', -1).toInt(), target);
        }
        QCOMPARE(open.keys(), (QList<int>{0, 1, 2}));
        QCOMPARE(open[0], QString("/dev/null"));
        QVERIFY(open[1].startsWith("pipe:"));
        QVERIFY(open[2].startsWith("pipe:"));
        QVERIFY(open[1] != open[2]); // stdout and stderr on pipes of their own
    }

    void startFailuresAreErrors_data() {
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<QString>("workdir");
        QTest::addColumn<QStringList>("mentions");

        QTest::newRow("not in PATH") << QStringList{"warren-no-such-program"} << QString()
                                     << QStringList{"warren-no-such-program", "No such file or directory"};
        QTest::newRow("no such path")
            << QStringList{"/nonexistent/warren-program"} << QString()
            << QStringList{"/nonexistent/warren-program", "No such file or directory"};
        QTest::newRow("not executable")
            << QStringList{"%1/plain-file"} << QString() << QStringList{"plain-file", "Permission denied"};
        QTest::newRow("no such workdir") << QStringList{"/bin/true"} << QString("/nonexistent-warren-dir")
                                         << QStringList{"/bin/true", "working directory", "No such file"};
    }

    void startFailuresAreErrors() {
        QFETCH(QStringList, argv);
        QFETCH(QString, workdir);
        QFETCH(QStringList, mentions);
        QTemporaryDir dir;
        QFile plain(dir.filePath("plain-file"));
        QVERIFY(plain.open(QIODevice::WriteOnly));
        plain.write("echo never\n");
        plain.close();

        ProcessSpec spec;
        for (const QString& word : argv)
            spec.argv.push_back(QString(word).replace("%1", dir.path()).toStdString());
        spec.workdir = workdir.toStdString();
        const auto result = runProcess(spec);
        QVERIFY(!result.ok());
        for (const QString& mention : mentions)
            QVERIFY2(QString::fromStdString(result.error().message).contains(mention),
                     result.error().message.c_str());
    }

    void environmentReplacesTheAgents() {
        ProcessSpec spec;
        spec.argv = {"sh", "-c",
                     R"(echo "$WARREN_TEST_VALUE"; echo "${HOME-unset}")"}; // found via the given PATH
        spec.environment = {"WARREN_TEST_VALUE=hello world", "PATH=/usr/bin:/bin"};
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QCOMPARE(bytes(result->output), QByteArray("hello world\nunset\n"));
    }

    void runsInTheWorkdir() {
        QTemporaryDir dir;
        auto spec = shell("pwd -P");
        spec.workdir = dir.path().toStdString();
        const auto result = runProcess(spec);
        QVERIFY(result.ok());
        QCOMPARE(QString::fromStdString(result->output), QDir(dir.path()).canonicalPath() + "\n");
    }
};

QTEST_GUILESS_MAIN(TestProcessRunner)
#include "tst_process_runner.moc"
