// Cgroup: the pure parsers of /proc files, then real cgroups (as root) holding real processes: the
// limits are enforced by the kernel, killAll() ends a whole tree, the destructor leaves nothing behind.
// Where this host does not let us create cgroups (an unprivileged user), those tests skip and say why,
// and the failure path is tested instead.

#include "sandbox/bwrap/Cgroup.h"

#include <QtTest>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace warren::sandbox;

namespace {

std::string uniqueName() {
    static int counter = 0;
    return "tst-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

std::string readText(const std::string& path) {
    std::ifstream file(path);
    std::stringstream content;
    content << file.rdbuf();
    return content.str();
}

std::vector<pid_t> procsOf(const std::string& dir) {
    std::istringstream stream(readText(dir + "/cgroup.procs"));
    std::vector<pid_t> pids;
    pid_t pid = 0;
    while (stream >> pid)
        pids.push_back(pid);
    return pids;
}

bool pathExists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

QString describeError(const warren::Error& error) {
    return QString::fromStdString(error.message);
}

// A pipe whose ends close with it. The children use the raw fds; they run only async-signal-safe code.
struct Pipe {
    int fds[2] = {-1, -1};
    Pipe() { QVERIFY(::pipe2(fds, O_CLOEXEC) == 0); }
    ~Pipe() { closeRead(), closeWrite(); }
    int readEnd() const { return fds[0]; }
    int writeEnd() const { return fds[1]; }
    void closeRead() { close(0); }
    void closeWrite() { close(1); }

private:
    void close(int i) {
        if (fds[i] >= 0)
            ::close(fds[i]);
        fds[i] = -1;
    }
};

void signalReady(int fd) {
    const char byte = 'r';
    [[maybe_unused]] const auto written = ::write(fd, &byte, 1);
}

void blockUntilClosed(int fd) {
    char byte;
    while (::read(fd, &byte, 1) > 0) {
    }
}

// Reads n bytes (one per process that reports ready); false if the pipe closed first.
bool awaitReady(int fd, int n) {
    for (int i = 0; i < n;) {
        char buffer[64];
        const ssize_t got =
            ::read(fd, buffer, std::min<std::size_t>(sizeof buffer, static_cast<std::size_t>(n - i)));
        if (got <= 0)
            return false;
        i += static_cast<int>(got);
    }
    return true;
}

// /proc/<pid>/stat's starttime, as the owner tag of cgroup directory names holds it.
std::string startTimeOf(pid_t pid) {
    const std::string stat = readText("/proc/" + std::to_string(pid) + "/stat");
    std::istringstream fields(stat.substr(stat.rfind(')') + 1));
    std::string field;
    for (int index = 3; index <= 22 && fields >> field; ++index)
        if (index == 22)
            return field;
    return {};
}

int waitStatus(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

} // namespace

class TestCgroup : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void parseProcCgroup_data();
    void parseProcCgroup();
    void parseMountInfoLine_data();
    void parseMountInfoLine();
    void cgroupDirectory_data();
    void cgroupDirectory();
    void flatKeyedValue_data();
    void flatKeyedValue();

    void rejectsInvalidName_data();
    void rejectsInvalidName();
    void probeAgreesWithCreate();
    void zeroLimitsSucceedWithOrWithoutCgroup();
    void unenforceableLimitFailsWithFix();

    void childJoinsEveryHierarchy();
    void limitFilesHoldTheValues();
    void forkBeyondPidsLimitFailsWithEagain();
    void allocationBeyondMemoryLimitIsOomKilled();
    void killAllEndsTreeThatLeftItsSession();
    void killAllStopsForkBomb();
    void killMembersStopsForkBomb();
    void destructorRemovesDirectories();
    void leftoverCgroupIsReplaced();
    void leftoverOfDeadCreatorIsRemoved();
    void liveCgroupOfSameNameIsRefused();

private:
    // Forks a child that joins the cgroup, reports ready on `ready`, runs body() (async-signal-safe
    // code only) and exits with its result.
    template <typename Body> pid_t forkJoined(const Cgroup& group, Pipe& ready, Body body);
    // A child in the cgroup that forks three grandchildren into new sessions, each of which forks a
    // great-grandchild into a new process group; all seven block until killed. Returns once all report.
    pid_t forkDetachingTree(const Cgroup& group);

    CgroupSupport m_support;
    QString m_skipReason;
};

void TestCgroup::initTestCase() {
    m_support = Cgroup::probe();
    m_skipReason = QStringLiteral("this host does not let us create the cgroup: ") +
                   QString::fromStdString(m_support.detail);
    qInfo("cgroup support: %s", m_support.detail.c_str());
}

#define REQUIRE_SUPPORT(what)                                                                                \
    do {                                                                                                     \
        if (!m_support.what)                                                                                 \
            QSKIP(qPrintable(m_skipReason));                                                                 \
    } while (false)

template <typename Body> pid_t TestCgroup::forkJoined(const Cgroup& group, Pipe& ready, Body body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        ready.closeRead();
        if (!Cgroup::joinFromChild(group.procsFds()))
            ::_exit(100);
        ::_exit(body());
    }
    return pid;
}

void TestCgroup::parseProcCgroup_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expected"); // "id|controllers|path" per entry, joined by ';'

    QTest::newRow("v2 only") << "0::/user.slice/user-1000.slice/session-2.scope\n"
                             << "0||/user.slice/user-1000.slice/session-2.scope";
    QTest::newRow("hybrid") << "12:pids:/\n4:memory:/process_api/x\n1:name=systemd:/init.scope\n0::/\n"
                            << "12|pids|/;4|memory|/process_api/x;1|name=systemd|/init.scope;0||/";
    QTest::newRow("co-mounted controllers") << "2:cpu,cpuacct:/system.slice\n"
                                            << "2|cpu,cpuacct|/system.slice";
    QTest::newRow("colon in path") << "0::/a:b\n"
                                   << "0||/a:b";
    QTest::newRow("no trailing newline") << "0::/x"
                                         << "0||/x";
    QTest::newRow("malformed lines skipped")
        << "garbage\n:memory:/x\nx:memory:/y\n3:pids:relative\n-1::/n\n5:memory:/ok\n"
        << "5|memory|/ok";
    QTest::newRow("empty") << ""
                           << "";
}

void TestCgroup::parseProcCgroup() {
    QFETCH(QString, content);
    QFETCH(QString, expected);
    QStringList entries;
    for (const auto& entry : warren::sandbox::parseProcCgroup(content.toStdString())) {
        QStringList controllers;
        for (const auto& controller : entry.controllers)
            controllers << QString::fromStdString(controller);
        entries << QStringLiteral("%1|%2|%3")
                       .arg(entry.hierarchyId)
                       .arg(controllers.join(','), QString::fromStdString(entry.path));
    }
    QCOMPARE(entries.join(';'), expected);
}

void TestCgroup::parseMountInfoLine_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("root");
    QTest::addColumn<QString>("mountPoint");
    QTest::addColumn<QString>("fsType");
    QTest::addColumn<QString>("superOptions");

    QTest::newRow("cgroup2 on hybrid host")
        << "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw" << true << "/"
        << "/sys/fs/cgroup/unified"
        << "cgroup2"
        << "rw";
    QTest::newRow("cgroup2 unified with optional field")
        << "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
           "rw,nsdelegate,memory_recursiveprot"
        << true << "/"
        << "/sys/fs/cgroup"
        << "cgroup2"
        << "rw,nsdelegate,memory_recursiveprot";
    QTest::newRow("cgroup v1 memory")
        << "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory" << true << "/"
        << "/sys/fs/cgroup/memory"
        << "cgroup"
        << "rw,memory";
    QTest::newRow("container sees its own subtree")
        << "1234 1200 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid master:12 - cgroup cgroup rw,memory"
        << true << "/docker/abc"
        << "/sys/fs/cgroup/memory"
        << "cgroup"
        << "rw,memory";
    QTest::newRow("escaped space in mount point")
        << "50 23 0:40 / /mnt/my\\040dir rw - tmpfs tmpfs rw" << true << "/"
        << "/mnt/my dir"
        << "tmpfs"
        << "rw";
    QTest::newRow("several optional fields")
        << "60 23 8:1 / /data rw shared:5 master:1 propagate_from:2 - ext4 /dev/sda1 rw,errors=remount-ro"
        << true << "/"
        << "/data"
        << "ext4"
        << "rw,errors=remount-ro";
    QTest::newRow("no separator") << "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime cgroup2 cgroup2 rw"
                                  << false << ""
                                  << ""
                                  << ""
                                  << "";
    QTest::newRow("truncated after separator")
        << "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2" << false << ""
        << ""
        << ""
        << "";
    QTest::newRow("empty") << "" << false << ""
                           << ""
                           << ""
                           << "";
}

void TestCgroup::parseMountInfoLine() {
    QFETCH(QString, line);
    QFETCH(bool, valid);
    const auto entry = warren::sandbox::parseMountInfoLine(line.toStdString());
    QCOMPARE(entry.has_value(), valid);
    if (!valid)
        return;
    QTEST(QString::fromStdString(entry->root), "root");
    QTEST(QString::fromStdString(entry->mountPoint), "mountPoint");
    QTEST(QString::fromStdString(entry->fsType), "fsType");
    QStringList options;
    for (const auto& option : entry->superOptions)
        options << QString::fromStdString(option);
    QTEST(options.join(','), "superOptions");
}

void TestCgroup::cgroupDirectory_data() {
    QTest::addColumn<QString>("root");
    QTest::addColumn<QString>("mountPoint");
    QTest::addColumn<QString>("ownPath");
    QTest::addColumn<QString>("expected"); // empty: not visible through this mount

    QTest::newRow("host mount") << "/"
                                << "/sys/fs/cgroup"
                                << "/user.slice/a.scope"
                                << "/sys/fs/cgroup/user.slice/a.scope";
    QTest::newRow("own cgroup is the root") << "/"
                                            << "/sys/fs/cgroup/unified"
                                            << "/"
                                            << "/sys/fs/cgroup/unified";
    QTest::newRow("container mount of own cgroup") << "/docker/abc"
                                                   << "/sys/fs/cgroup/memory"
                                                   << "/docker/abc"
                                                   << "/sys/fs/cgroup/memory";
    QTest::newRow("below container root") << "/docker/abc"
                                          << "/sys/fs/cgroup/memory"
                                          << "/docker/abc/sub"
                                          << "/sys/fs/cgroup/memory/sub";
    QTest::newRow("sibling sharing a prefix") << "/docker/abc"
                                              << "/sys/fs/cgroup/memory"
                                              << "/docker/abcdef"
                                              << "";
    QTest::newRow("outside the mount") << "/docker/abc"
                                       << "/sys/fs/cgroup/memory"
                                       << "/other"
                                       << "";
    QTest::newRow("relative own path") << "/"
                                       << "/sys/fs/cgroup"
                                       << "user.slice"
                                       << "";
    QTest::newRow("trailing slash on mount point") << "/"
                                                   << "/sys/fs/cgroup/"
                                                   << "/a"
                                                   << "/sys/fs/cgroup/a";
}

void TestCgroup::cgroupDirectory() {
    QFETCH(QString, root);
    QFETCH(QString, mountPoint);
    QFETCH(QString, ownPath);
    QFETCH(QString, expected);
    MountInfoEntry mount;
    mount.root = root.toStdString();
    mount.mountPoint = mountPoint.toStdString();
    mount.fsType = "cgroup2";
    const auto dir = warren::sandbox::cgroupDirectory(mount, ownPath.toStdString());
    QCOMPARE(dir ? QString::fromStdString(*dir) : QString(), expected);
}

void TestCgroup::flatKeyedValue_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("key");
    QTest::addColumn<qint64>("expected"); // -1: absent

    const QString memoryEvents = "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n";
    QTest::newRow("v2 memory.events oom_kill") << memoryEvents << "oom_kill" << qint64(2);
    QTest::newRow("key that prefixes others") << memoryEvents << "oom" << qint64(3);
    QTest::newRow("pids.events max") << "max 5\n"
                                     << "max" << qint64(5);
    QTest::newRow("v1 memory.oom_control") << "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"
                                           << "oom_kill" << qint64(1);
    QTest::newRow("cgroup.events unpopulated") << "populated 0\nfrozen 0\n"
                                               << "populated" << qint64(0);
    QTest::newRow("absent key") << "populated 1\nfrozen 0\n"
                                << "oom_kill" << qint64(-1);
    QTest::newRow("not a number") << "max many\n"
                                  << "max" << qint64(-1);
    QTest::newRow("empty") << ""
                           << "max" << qint64(-1);
}

void TestCgroup::flatKeyedValue() {
    QFETCH(QString, content);
    QFETCH(QString, key);
    QFETCH(qint64, expected);
    const auto value = warren::sandbox::flatKeyedValue(content.toStdString(), key.toStdString());
    QCOMPARE(value ? qint64(*value) : qint64(-1), expected);
}

void TestCgroup::rejectsInvalidName_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("empty") << "";
    QTest::newRow("dot") << ".";
    QTest::newRow("dot dot") << "..";
    QTest::newRow("parent traversal") << "../escape";
    QTest::newRow("slash") << "a/b";
    QTest::newRow("space") << "has space";
    QTest::newRow("hidden") << ".hidden";
    QTest::newRow("too long") << QString(201, 'x');
}

void TestCgroup::rejectsInvalidName() {
    QFETCH(QString, name);
    const auto group = Cgroup::create(name.toStdString(), {64ull << 20, 16});
    QVERIFY(!group);
    QCOMPARE(group.error().code, warren::ErrorCode::InvalidArgument);
}

void TestCgroup::probeAgreesWithCreate() {
    QCOMPARE(Cgroup::create(uniqueName(), {32ull << 20, 0}).ok(), m_support.memory);
    QCOMPARE(Cgroup::create(uniqueName(), {0, 32}).ok(), m_support.pids);
    auto plain = Cgroup::create(uniqueName(), {});
    QVERIFY(plain);
    QCOMPARE(!plain->paths().empty(), m_support.kill);
    QCOMPARE(m_support.version == CgroupVersion::None,
             !m_support.memory && !m_support.pids && !m_support.kill);
    QVERIFY(!m_support.detail.empty());
}

void TestCgroup::zeroLimitsSucceedWithOrWithoutCgroup() {
    auto group = Cgroup::create(uniqueName(), {});
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    QCOMPARE(group->paths().size(), group->procsFds().size());
    if (m_support.kill)
        QVERIFY(!group->paths().empty());
    else
        QVERIFY(group->paths().empty());
    QVERIFY(group->killAll()); // nothing inside: returns at once
}

void TestCgroup::unenforceableLimitFailsWithFix() {
    if (m_support.memory && m_support.pids)
        QSKIP("this host can enforce both limits, so the failure is tested where it cannot (the unprivileged "
              "run)");
    const CgroupLimits limits = !m_support.memory ? CgroupLimits{64ull << 20, 0} : CgroupLimits{0, 64};
    const auto group = Cgroup::create(uniqueName(), limits);
    QVERIFY(!group);
    QCOMPARE(group.error().code, warren::ErrorCode::Unsupported);
    const QString message = describeError(group.error());
    QVERIFY2(message.contains(!m_support.memory ? "memory limit" : "process limit"), qPrintable(message));
    QVERIFY2(message.contains("To fix"), qPrintable(message));
}

void TestCgroup::childJoinsEveryHierarchy() {
    REQUIRE_SUPPORT(memory);
    REQUIRE_SUPPORT(pids);
    auto group = Cgroup::create(uniqueName(), {64ull << 20, 64});
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    Pipe ready, hold;
    const pid_t child = forkJoined(*group, ready, [&] {
        hold.closeWrite();
        signalReady(ready.writeEnd());
        blockUntilClosed(hold.readEnd());
        return 0;
    });
    QVERIFY(child > 0);
    ready.closeWrite();
    hold.closeRead();
    QVERIFY(awaitReady(ready.readEnd(), 1));

    const auto memberships =
        warren::sandbox::parseProcCgroup(readText("/proc/" + std::to_string(child) + "/cgroup"));
    for (const auto& dir : group->paths()) {
        const bool listed =
            std::any_of(memberships.begin(), memberships.end(), [&](const ProcCgroupEntry& entry) {
                return entry.path != "/" && dir.size() > entry.path.size() &&
                       dir.compare(dir.size() - entry.path.size(), entry.path.size(), entry.path) == 0;
            });
        QVERIFY2(listed, qPrintable(QString::fromStdString("/proc/<child>/cgroup does not show " + dir)));
        QCOMPARE(procsOf(dir), std::vector<pid_t>{child});
    }
    hold.closeWrite();
    const int status = waitStatus(child);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

void TestCgroup::limitFilesHoldTheValues() {
    REQUIRE_SUPPORT(memory);
    REQUIRE_SUPPORT(pids);
    const std::uint64_t memory = 64ull << 20;
    auto group = Cgroup::create(uniqueName(), {memory, 40});
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    int memoryLimits = 0, pidsLimits = 0;
    for (const auto& dir : group->paths()) {
        for (const char* file : {"/memory.max", "/memory.limit_in_bytes"}) {
            if (pathExists(dir + file)) {
                QCOMPARE(std::stoull(readText(dir + file)), memory);
                ++memoryLimits;
            }
        }
        // Swap must not extend the limit: v2 forbids swap, v1 caps memory+swap at the same value.
        if (pathExists(dir + "/memory.swap.max"))
            QCOMPARE(std::stoull(readText(dir + "/memory.swap.max")), 0ull);
        if (pathExists(dir + "/memory.memsw.limit_in_bytes"))
            QCOMPARE(std::stoull(readText(dir + "/memory.memsw.limit_in_bytes")), memory);
        if (pathExists(dir + "/pids.max")) {
            QCOMPARE(readText(dir + "/pids.max"), std::string("40\n"));
            ++pidsLimits;
        }
    }
    QCOMPARE(memoryLimits, 1);
    QCOMPARE(pidsLimits, 1);
}

void TestCgroup::forkBeyondPidsLimitFailsWithEagain() {
    REQUIRE_SUPPORT(pids);
    auto group = Cgroup::create(uniqueName(), {0, 8});
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    QVERIFY(!group->pidsLimitHit());
    Pipe ready, hold, verdict;
    const pid_t child = forkJoined(*group, ready, [&] {
        hold.closeWrite();
        verdict.closeRead();
        char result = 'n'; // never refused
        for (int i = 0; i < 32 && result == 'n'; ++i) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                blockUntilClosed(hold.readEnd());
                ::_exit(0);
            }
            if (pid < 0)
                result = errno == EAGAIN ? 'e' : 'o';
        }
        [[maybe_unused]] const auto written = ::write(verdict.writeEnd(), &result, 1);
        blockUntilClosed(hold.readEnd());
        return 0;
    });
    QVERIFY(child > 0);
    ready.closeWrite();
    hold.closeRead();
    verdict.closeWrite();
    char result = 0;
    QCOMPARE(::read(verdict.readEnd(), &result, 1), ssize_t(1));
    QCOMPARE(result, 'e'); // 'n': 32 forks went through a limit of 8; 'o': refused with another errno
    QVERIFY(group->pidsLimitHit());
    for (const auto& dir : group->paths())
        if (pathExists(dir + "/pids.max"))
            QVERIFY(procsOf(dir).size() <= 8);
    QVERIFY(group->killAll());
    QCOMPARE(WTERMSIG(waitStatus(child)), SIGKILL);
}

void TestCgroup::allocationBeyondMemoryLimitIsOomKilled() {
    REQUIRE_SUPPORT(memory);
    auto group = Cgroup::create(uniqueName(), {32ull << 20, 0});
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    QVERIFY(!group->oomKilled());
    Pipe ready;
    const pid_t child = forkJoined(*group, ready, [&] {
        const std::size_t size = 256u << 20;
        void* memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED)
            return 2;
        auto* bytes = static_cast<volatile char*>(memory);
        for (std::size_t i = 0; i < size; i += 4096)
            bytes[i] = 1; // touch every page so it is really charged
        return 0;         // the limit did not stop us
    });
    QVERIFY(child > 0);
    ready.closeWrite();
    const int status = waitStatus(child);
    QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
             qPrintable(QStringLiteral("child was not OOM-killed (wait status %1)").arg(status)));
    QVERIFY(group->oomKilled());
}

pid_t TestCgroup::forkDetachingTree(const Cgroup& group) {
    Pipe ready;
    const pid_t child = forkJoined(group, ready, [&] {
        for (int i = 0; i < 3; ++i) {
            if (::fork() == 0) {
                ::setsid(); // leaves the session and process group a group kill would reach
                if (::fork() == 0) {
                    ::setpgid(0, 0);
                    signalReady(ready.writeEnd());
                    for (;;)
                        ::pause();
                }
                signalReady(ready.writeEnd());
                for (;;)
                    ::pause();
            }
        }
        signalReady(ready.writeEnd());
        for (;;)
            ::pause();
        return 0;
    });
    ready.closeWrite();
    if (child > 0 && !awaitReady(ready.readEnd(), 7))
        return -1;
    return child;
}

void TestCgroup::killAllEndsTreeThatLeftItsSession() {
    REQUIRE_SUPPORT(kill);
    // With limits, so that on hybrid hosts the tree spans the v1 hierarchies and the v2 one.
    const CgroupLimits limits{m_support.memory ? 64ull << 20 : 0, m_support.pids ? 64u : 0u};
    auto group = Cgroup::create(uniqueName(), limits);
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    const pid_t child = forkDetachingTree(*group);
    QVERIFY(child > 0);
    for (const auto& dir : group->paths())
        QCOMPARE(procsOf(dir).size(), std::size_t(7));

    QVERIFY(group->killAll());
    for (const auto& dir : group->paths()) {
        QVERIFY2(procsOf(dir).empty(), qPrintable(QString::fromStdString(dir + " still has processes")));
        if (pathExists(dir + "/cgroup.events"))
            QCOMPARE(warren::sandbox::flatKeyedValue(readText(dir + "/cgroup.events"), "populated"),
                     std::optional<std::uint64_t>(0));
    }
    QCOMPARE(WTERMSIG(waitStatus(child)), SIGKILL);
}

void TestCgroup::killAllStopsForkBomb() {
    REQUIRE_SUPPORT(pids);
    REQUIRE_SUPPORT(kill);
    auto group = Cgroup::create(uniqueName(), {0, 32});
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    Pipe ready;
    const pid_t child = forkJoined(*group, ready, [&] {
        signalReady(ready.writeEnd());
        for (;;)
            ::fork(); // every copy keeps forking; the pids limit holds them at 32
        return 0;
    });
    QVERIFY(child > 0);
    ready.closeWrite();
    QVERIFY(awaitReady(ready.readEnd(), 1));
    QVERIFY(group->killAll());
    for (const auto& dir : group->paths())
        QVERIFY(procsOf(dir).empty());
    QCOMPARE(WTERMSIG(waitStatus(child)), SIGKILL);
}

void TestCgroup::killMembersStopsForkBomb() {
    // The signalling loop killAll() falls back on without cgroup.kill, run against a fork bomb. The last
    // directory is the v1 pids cgroup on hybrid hosts, the v2 one on pure v2 hosts.
    REQUIRE_SUPPORT(pids);
    auto group = Cgroup::create(uniqueName(), {0, 32});
    QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
    Pipe ready;
    const pid_t child = forkJoined(*group, ready, [&] {
        signalReady(ready.writeEnd());
        for (;;)
            ::fork();
        return 0;
    });
    QVERIFY(child > 0);
    ready.closeWrite();
    QVERIFY(awaitReady(ready.readEnd(), 1));
    const std::string dir = group->paths().back();
    QVERIFY(Cgroup::killMembers(dir));
    for (const auto& path : group->paths())
        QVERIFY(procsOf(path).empty());
    QCOMPARE(WTERMSIG(waitStatus(child)), SIGKILL);
}

void TestCgroup::destructorRemovesDirectories() {
    REQUIRE_SUPPORT(kill);
    std::vector<std::string> paths;
    pid_t child = -1;
    {
        const CgroupLimits limits{m_support.memory ? 64ull << 20 : 0, m_support.pids ? 64u : 0u};
        auto group = Cgroup::create(uniqueName(), limits);
        QVERIFY2(group, qPrintable(group ? QString() : describeError(group.error())));
        paths = group->paths();
        child = forkDetachingTree(*group);
        QVERIFY(child > 0);
    }
    QVERIFY(!paths.empty());
    for (const auto& dir : paths)
        QVERIFY2(!pathExists(dir), qPrintable(QString::fromStdString(dir + " was left behind")));
    QCOMPARE(WTERMSIG(waitStatus(child)), SIGKILL);
}

void TestCgroup::leftoverCgroupIsReplaced() {
    REQUIRE_SUPPORT(kill);
    // An empty cgroup of the same name stands for what a crashed run leaves behind.
    const std::string name = uniqueName();
    auto leftover = Cgroup::create(name, {});
    QVERIFY(leftover);
    auto fresh = Cgroup::create(name, {});
    QVERIFY2(fresh, qPrintable(fresh ? QString() : describeError(fresh.error())));
    QCOMPARE(fresh->paths(), leftover->paths());
    for (const auto& dir : fresh->paths())
        QVERIFY(pathExists(dir));
}

// What SIGKILLing the creator leaves behind: empty directories tagged with an owner that is gone. The
// next create() in the same place removes them, and leaves alone what a live process or nobody owns.
void TestCgroup::leftoverOfDeadCreatorIsRemoved() {
    REQUIRE_SUPPORT(kill);
    Pipe hold;
    const pid_t gone = ::fork();
    if (gone == 0) {
        hold.closeWrite();
        blockUntilClosed(hold.readEnd());
        ::_exit(0);
    }
    QVERIFY(gone > 0);
    hold.closeRead();
    const std::string goneStart = startTimeOf(gone);
    hold.closeWrite();
    waitStatus(gone);
    QVERIFY(!goneStart.empty());

    const CgroupLimits limits{m_support.memory ? 64ull << 20 : 0, m_support.pids ? 64u : 0u};
    std::vector<std::string> leftovers, kept;
    {
        auto first = Cgroup::create(uniqueName(), limits);
        QVERIFY2(first, qPrintable(first ? QString() : describeError(first.error())));
        for (const auto& dir : first->paths()) {
            const std::string parent = dir.substr(0, dir.rfind('/'));
            const std::string prefix =
                parent + (dir.find("/warren-", parent.size()) == parent.size() ? "/warren-" : "/");
            const std::string name = uniqueName();
            leftovers.push_back(prefix + name + "@" + std::to_string(gone) + "." + goneStart);
            kept.push_back(prefix + name + "-live@" + std::to_string(::getpid()) + "." +
                           startTimeOf(::getpid()));
            kept.push_back(prefix + name + "-untagged");
        }
        for (const auto& dir : leftovers)
            QVERIFY(::mkdir(dir.c_str(), 0755) == 0);
        for (const auto& dir : kept)
            QVERIFY(::mkdir(dir.c_str(), 0755) == 0);
        // first's destructor runs here; its v1 grouping directory stays, for the leftovers are in it
    }
    auto second = Cgroup::create(uniqueName(), limits);
    QVERIFY2(second, qPrintable(second ? QString() : describeError(second.error())));
    for (const auto& dir : leftovers)
        QVERIFY2(!pathExists(dir), qPrintable(QString::fromStdString(dir + " was not removed")));
    for (const auto& dir : kept) {
        QVERIFY2(pathExists(dir), qPrintable(QString::fromStdString(dir + " was removed")));
        ::rmdir(dir.c_str());
    }
}

void TestCgroup::liveCgroupOfSameNameIsRefused() {
    REQUIRE_SUPPORT(kill);
    const std::string name = uniqueName();
    auto live = Cgroup::create(name, {});
    QVERIFY(live);
    Pipe ready, hold;
    const pid_t child = forkJoined(*live, ready, [&] {
        hold.closeWrite();
        signalReady(ready.writeEnd());
        blockUntilClosed(hold.readEnd());
        return 0;
    });
    QVERIFY(child > 0);
    ready.closeWrite();
    hold.closeRead();
    QVERIFY(awaitReady(ready.readEnd(), 1));

    const auto second = Cgroup::create(name, {});
    QVERIFY(!second);
    QVERIFY2(describeError(second.error()).contains("has processes in it"),
             qPrintable(describeError(second.error())));
    for (const auto& dir : live->paths())
        QCOMPARE(procsOf(dir), std::vector<pid_t>{child}); // the live cgroup was not touched
    hold.closeWrite();
    QVERIFY(WIFEXITED(waitStatus(child)));
}

QTEST_APPLESS_MAIN(TestCgroup)
#include "tst_cgroup.moc"
