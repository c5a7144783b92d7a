// CheckpointStore and SeqMark: what a killed or starved agent leaves in /state is always readable or
// reported. A save replaces the checkpoint atomically, a failed save (disk full) keeps the previous one,
// a corrupt checkpoint is reported and kept, a killed writer's temp file is ignored, and the seq mark
// survives SIGKILL.

#include "agent_core/state/CheckpointStore.h"
#include "agent_core/state/SeqMark.h"

#include <QtTest>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

namespace {

AgentState sampleState(std::uint64_t step) {
    AgentState state;
    state.taskId = "task-1";
    state.prompt = "do it";
    state.presets = {"local-light"};
    state.step = step;
    state.nextSeq = 10 * step + 1;
    state.messages = {{"user", "do it", {}, std::nullopt}};
    state.counters.steps = step;
    state.counters.toolCalls = {{"shell", step}};
    return state;
}

QStringList entriesOf(const QString& dir) {
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

QByteArray readFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(bytes), bytes.size());
}

// (No raw strings with unbalanced braces in this file: moc 6.4 then finds no class.)

// Runs body in a forked child and returns its wait status; body's text comes back through a pipe.
int inChild(const std::function<std::string()>& body, std::string& text) {
    int fds[2];
    if (::pipe(fds) != 0)
        return -1;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        const std::string out = body();
        [[maybe_unused]] const auto written = ::write(fds[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    char buffer[4096];
    ssize_t got = 0;
    while ((got = ::read(fds[0], buffer, sizeof buffer)) > 0)
        text.append(buffer, static_cast<std::size_t>(got));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
}

bool writeProcFile(const char* path, const std::string& text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return ok;
}

// In a forked child: a user and mount namespace of its own, so that an unprivileged process can mount a
// small tmpfs on dir. Returns "" on success, else why it could not.
std::string mountSmallTmpfs(const std::string& dir, const char* size) {
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return std::string("unshare: ") + std::strerror(errno);
    // Files can only be created by a mapped user and group.
    if (!writeProcFile("/proc/self/setgroups", "deny") ||
        !writeProcFile("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
        !writeProcFile("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
        return std::string("id maps: ") + std::strerror(errno);
    if (::mount("none", dir.c_str(), "tmpfs", 0, (std::string("size=") + size).c_str()) != 0)
        return std::string("mount tmpfs: ") + std::strerror(errno);
    return "";
}

} // namespace

class TestCheckpointStore : public QObject {
    Q_OBJECT

private slots:
    void noCheckpointMeansFreshTask() {
        QTemporaryDir dir;
        CheckpointStore store(dir.path().toStdString());
        const auto loaded = store.load();
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
        QVERIFY(!loaded->has_value());
        QCOMPARE(QString::fromStdString(store.path().string()), dir.filePath("checkpoint.json"));
    }

    void savesAndLoads_data() {
        QTest::addColumn<bool>("durable");
        QTest::newRow("durable") << true;
        QTest::newRow("not durable") << false;
    }

    void savesAndLoads() {
        QFETCH(bool, durable);
        QTemporaryDir dir;
        CheckpointStore store(dir.path().toStdString());
        for (std::uint64_t step = 1; step <= 3; ++step) {
            const auto written = store.save(sampleState(step), durable);
            QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
            QCOMPARE(written.value(), std::uint64_t(QFileInfo(dir.filePath("checkpoint.json")).size()));
            const auto loaded = store.load();
            QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
            QVERIFY(loaded->has_value());
            QVERIFY(**loaded == sampleState(step));
        }
        // No temp file is left behind, and the checkpoint is private to the agent's user.
        QCOMPARE(entriesOf(dir.path()), QStringList{"checkpoint.json"});
        QCOMPARE(QFileInfo(dir.filePath("checkpoint.json")).permissions() &
                     (QFile::ReadOther | QFile::ReadGroup),
                 QFile::Permissions());
    }

    // The store reuses the JSON of messages it wrote before: a conversation that grows, is compacted (an
    // earlier message replaced, others dropped) and grows again must still be written exactly.
    void conversationChangesAreWrittenExactly() {
        QTemporaryDir dir;
        CheckpointStore store(dir.path().toStdString());
        AgentState state = sampleState(1);
        auto check = [&] {
            QVERIFY(store.save(state, false).ok());
            const auto loaded = store.load();
            QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
            QVERIFY(loaded->has_value() && **loaded == state);
        };
        for (int i = 0; i < 4; ++i) {
            state.messages.push_back({"tool", "result " + std::to_string(i), {}, "c" + std::to_string(i)});
            check();
        }
        state.messages.erase(state.messages.begin() + 1, state.messages.begin() + 3);
        state.messages.insert(state.messages.begin() + 1, {"user", "[summary of what was cut]", {}, std::nullopt});
        check();
        state.messages.back().content = "changed in place";
        check();
        state.messages.clear();
        check();
    }

    void killedWritersTempFileIsIgnoredAndRemoved_data() {
        QTest::addColumn<bool>("withCheckpoint");
        QTest::newRow("beside a checkpoint") << true;
        QTest::newRow("before the first checkpoint") << false;
    }

    void killedWritersTempFileIsIgnoredAndRemoved() {
        QFETCH(bool, withCheckpoint);
        QTemporaryDir dir;
        CheckpointStore store(dir.path().toStdString());
        if (withCheckpoint)
            QVERIFY(store.save(sampleState(2), false).ok());
        // What a writer killed mid-write leaves: a half-written temp file.
        writeFile(dir.filePath(".checkpoint.json.tmp-0badf00d"), "{\"format\":1,\"task_id\":\"ta");
        writeFile(dir.filePath("unrelated.json.tmp"), "keep me");

        const auto loaded = store.load();
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
        QCOMPARE(loaded->has_value(), withCheckpoint);
        if (withCheckpoint)
            QVERIFY(**loaded == sampleState(2));
        QStringList expected{"unrelated.json.tmp"};
        if (withCheckpoint)
            expected.prepend("checkpoint.json");
        QCOMPARE(entriesOf(dir.path()), expected);
    }

    void corruptCheckpointIsReportedAndKept_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("why");
        QTest::newRow("truncated JSON")
            << QByteArray("{\"format\":1,\"task_id\":") << "is corrupt: not JSON: ";
        QTest::newRow("empty file") << QByteArray() << "is corrupt: not JSON: ";
        QTest::newRow("newer format")
            << QByteArray(R"({"format":2})")
            << "is corrupt: checkpoint.format: 2 is not supported (this agent reads 1)";
        QTest::newRow("wrong type") << QByteArray(R"({"format":1,"task_id":7})")
                                    << "is corrupt: checkpoint.task_id: must be a string, got the integer 7";
        QTest::newRow("a JSON array")
            << QByteArray("[1,2]") << "is corrupt: checkpoint: must be an object, got an array";
    }

    void corruptCheckpointIsReportedAndKept() {
        QFETCH(QByteArray, content);
        QFETCH(QString, why);
        QTemporaryDir dir;
        const QString file = dir.filePath("checkpoint.json");
        writeFile(file, content);
        CheckpointStore store(dir.path().toStdString());
        const auto loaded = store.load();
        QVERIFY(!loaded.ok());
        const QString message = QString::fromStdString(loaded.error().message);
        QVERIFY2(message.startsWith("checkpoint " + file + " " + why), qPrintable(message));
        QVERIFY2(message.endsWith("; move it away to start the task fresh (it was left in place)"),
                 qPrintable(message));
        QCOMPARE(readFile(file), content);
    }

    void unreadableCheckpointIsReported() {
        if (::geteuid() == 0)
            QSKIP("root reads a file whatever its mode");
        QTemporaryDir dir;
        const QString file = dir.filePath("checkpoint.json");
        writeFile(file, "{}");
        QVERIFY(QFile::setPermissions(file, QFile::Permissions()));
        const auto loaded = CheckpointStore(dir.path().toStdString()).load();
        QVERIFY(!loaded.ok());
        const QString message = QString::fromStdString(loaded.error().message);
        QVERIFY2(message.startsWith("checkpoint " + file + " is unreadable: cannot open " + file +
                                    ": Permission denied"),
                 qPrintable(message));
        QVERIFY2(message.contains("move it away to start the task fresh"), qPrintable(message));
    }

    void missingStateDirIsReported() {
        QTemporaryDir dir;
        const QString stateDir = dir.filePath("absent");
        const auto written = CheckpointStore(stateDir.toStdString()).save(sampleState(1), true);
        QVERIFY(!written.ok());
        const QString message = QString::fromStdString(written.error().message);
        QVERIFY2(
            message.startsWith("checkpoint not saved: cannot create " + stateDir + "/.checkpoint.json.tmp-"),
            qPrintable(message));
        QVERIFY2(message.contains(": No such file or directory; the previous checkpoint " + stateDir +
                                  "/checkpoint.json is intact"),
                 qPrintable(message));
    }

    // A full disk, simulated without privileges: the file size limit makes write(2) fail with EFBIG just as
    // a full disk makes it fail with ENOSPC, through the same path. In a child, so the limit stays there.
    void failedSaveKeepsThePreviousCheckpoint_data() {
        QTest::addColumn<bool>("durable");
        QTest::newRow("durable") << true;
        QTest::newRow("not durable") << false;
    }

    void failedSaveKeepsThePreviousCheckpoint() {
        QFETCH(bool, durable);
        QTemporaryDir dir;
        CheckpointStore store(dir.path().toStdString());
        QVERIFY(store.save(sampleState(1), durable).ok());
        const QByteArray before = readFile(dir.filePath("checkpoint.json"));

        AgentState big = sampleState(2);
        big.extra = {{"blob", std::string(256 * 1024, 'x')}};
        std::string message;
        const int status = inChild(
            [&] {
                std::signal(SIGXFSZ, SIG_IGN);
                const rlimit limit{64 * 1024, 64 * 1024};
                if (::setrlimit(RLIMIT_FSIZE, &limit) != 0)
                    return std::string("setrlimit failed");
                const auto written = store.save(big, durable);
                return written.ok() ? std::string("saved") : written.error().message;
            },
            message);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        const QString text = QString::fromStdString(message);
        QVERIFY2(text.startsWith("checkpoint not saved: writing " + dir.path() + "/.checkpoint.json.tmp-"),
                 qPrintable(text));
        QVERIFY2(text.contains(": File too large (the file size limit is reached: raise it with ulimit -f); "
                               "the previous checkpoint " +
                               dir.filePath("checkpoint.json") + " is intact"),
                 qPrintable(text));

        QCOMPARE(readFile(dir.filePath("checkpoint.json")), before);
        QCOMPARE(entriesOf(dir.path()), QStringList{"checkpoint.json"});
        const auto loaded = store.load();
        QVERIFY(loaded.ok() && loaded->has_value());
        QVERIFY(**loaded == sampleState(1));
    }

    // A real full disk where the kernel allows an unprivileged mount namespace: a 64 KiB tmpfs.
    void fullDiskKeepsThePreviousCheckpoint() {
        QTemporaryDir dir;
        const std::string stateDir = dir.path().toStdString();
        std::string message;
        const int status = inChild(
            [&] {
                if (const auto why = mountSmallTmpfs(stateDir, "64k"); !why.empty())
                    return "skip: " + why;
                CheckpointStore store(stateDir);
                if (!store.save(sampleState(1), true).ok())
                    return std::string("the first save failed");
                AgentState big = sampleState(2);
                big.extra = {{"blob", std::string(256 * 1024, 'x')}};
                const auto written = store.save(big, true);
                if (written.ok())
                    return std::string("saved on a full disk");
                const auto loaded = store.load();
                if (!loaded.ok() || !loaded->has_value() || !(**loaded == sampleState(1)))
                    return "the previous checkpoint was lost; " + written.error().message;
                std::error_code ignored;
                std::string names;
                for (const auto& entry : std::filesystem::directory_iterator(stateDir, ignored))
                    names += entry.path().filename().string() + " ";
                return written.error().message + "|" + names;
            },
            message);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        if (message.rfind("skip: ", 0) == 0)
            QSKIP(("no private tmpfs here (" + message.substr(6) +
                   "); the file size limit test covers the path")
                      .c_str());
        const QString text = QString::fromStdString(message);
        QVERIFY2(text.startsWith("checkpoint not saved: writing " + dir.path() + "/.checkpoint.json.tmp-"),
                 qPrintable(text));
        QVERIFY2(text.contains(": No space left on device (the disk is full: free some space); the previous "
                               "checkpoint " +
                               dir.filePath("checkpoint.json") + " is intact"),
                 qPrintable(text));
        QVERIFY2(text.endsWith("|checkpoint.json "), qPrintable(text));
    }

    void seqMarkStartsAtZeroAndKeepsTheLastRecord() {
        QTemporaryDir dir;
        {
            auto mark = SeqMark::open(dir.path().toStdString());
            QVERIFY2(mark.ok(), mark.ok() ? "" : mark.error().message.c_str());
            QCOMPARE(mark->last(), std::uint64_t(0));
            mark->record(7);
            mark->record(8);
            QCOMPARE(mark->last(), std::uint64_t(0)); // as read at open
        }
        auto reopened = SeqMark::open(dir.path().toStdString());
        QVERIFY(reopened.ok());
        QCOMPARE(reopened->last(), std::uint64_t(8));
        reopened->record(std::numeric_limits<std::uint64_t>::max());
        auto again = SeqMark::open(dir.path().toStdString());
        QVERIFY(again.ok());
        QCOMPARE(again->last(), std::numeric_limits<std::uint64_t>::max());
    }

    void seqMarkSurvivesSigkill() {
        QTemporaryDir dir;
        const std::string stateDir = dir.path().toStdString();
        std::string unused;
        const int status = inChild(
            [&] {
                auto mark = SeqMark::open(stateDir);
                if (!mark)
                    return mark.error().message;
                mark->record(41);
                mark->record(42);
                ::raise(SIGKILL);
                return std::string("not killed");
            },
            unused);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        auto mark = SeqMark::open(stateDir);
        QVERIFY2(mark.ok(), mark.ok() ? "" : mark.error().message.c_str());
        QCOMPARE(mark->last(), std::uint64_t(42));
    }

    void corruptSeqMarkIsReported() {
        QTemporaryDir dir;
        writeFile(dir.filePath("seq"), "abc");
        const auto mark = SeqMark::open(dir.path().toStdString());
        QVERIFY(!mark.ok());
        QCOMPARE(QString::fromStdString(mark.error().message),
                 "seq mark " + dir.filePath("seq") +
                     " is corrupt (3 bytes, expected 8); move it away together with checkpoint.json to start "
                     "fresh");
    }

    void missingStateDirForSeqMarkIsReported() {
        QTemporaryDir dir;
        const auto mark = SeqMark::open(dir.filePath("absent").toStdString());
        QVERIFY(!mark.ok());
        QCOMPARE(QString::fromStdString(mark.error().message),
                 "seq mark " + dir.filePath("absent/seq") + ": cannot open: No such file or directory");
    }
};

QTEST_GUILESS_MAIN(TestCheckpointStore)
#include "tst_checkpoint_store.moc"
