// LimitPlan: how each limit of a profile is enforced on a host with a given set of cgroup controllers, as
// root or as a normal user; a limit that nothing here can enforce is an error, never silently dropped.

#include "sandbox/bwrap/LimitPlan.h"

#include <QtTest>

using namespace warren;
using namespace warren::sandbox;

Q_DECLARE_METATYPE(warren::sandbox::SandboxLimits)
Q_DECLARE_METATYPE(warren::sandbox::HostLimitFacts)

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
const std::string kNoCgroupDetail = "cgroup v2 at /sys/fs/cgroup has no memory or pids controller";

enum class Who { User, Root };

// controllers: "memory+pids", "memory", "pids" or "none".
HostLimitFacts host(const QString& controllers, Who who = Who::User, std::uint64_t userTasks = 0) {
    HostLimitFacts facts;
    facts.cgroups.memory = controllers.contains("memory");
    facts.cgroups.pids = controllers.contains("pids");
    facts.cgroups.version = controllers == "none" ? CgroupVersion::V2 : CgroupVersion::V1;
    facts.cgroups.kill = true;
    facts.cgroups.detail = controllers == "none" ? kNoCgroupDetail : "cgroup v1 memory and pids hierarchies";
    facts.runningAsRoot = who == Who::Root;
    facts.userTasks = userTasks;
    return facts;
}

QString rlimitName(int resource) {
    switch (resource) {
    case RLIMIT_CORE:
        return "CORE";
    case RLIMIT_AS:
        return "AS";
    case RLIMIT_NPROC:
        return "NPROC";
    case RLIMIT_CPU:
        return "CPU";
    case RLIMIT_FSIZE:
        return "FSIZE";
    case RLIMIT_NOFILE:
        return "NOFILE";
    default:
        return "resource " + QString::number(resource);
    }
}

// "AS 536870912 536870912": resource, soft, hard; sorted, since the order of setrlimit calls does not matter.
QStringList describe(const std::vector<RlimitSetting>& rlimits) {
    QStringList lines;
    for (const auto& r : rlimits)
        lines << QString("%1 %2 %3").arg(rlimitName(r.resource)).arg(r.soft).arg(r.hard);
    lines.sort();
    return lines;
}

QString mib(std::uint64_t megabytes) {
    return QString::number(megabytes * kMiB);
}

qulonglong bytesOf(std::uint64_t megabytes) {
    return megabytes * kMiB;
}

} // namespace

class TestLimitPlan : public QObject {
    Q_OBJECT

private slots:
    void plan_data();
    void plan();
    void rootWithoutPidsCgroupIsRefused_data();
    void rootWithoutPidsCgroupIsRefused();
    void hugeLimitsDoNotWrap_data();
    void hugeLimitsDoNotWrap();
};

// clang-format off
void TestLimitPlan::plan_data() {
    QTest::addColumn<SandboxLimits>("limits");
    QTest::addColumn<HostLimitFacts>("host");
    QTest::addColumn<qulonglong>("cgroupMemoryBytes");
    QTest::addColumn<qulonglong>("cgroupPids");
    QTest::addColumn<QStringList>("rlimits");
    QTest::addColumn<QStringList>("notes"); // one entry per note, in order; "a|b": the note contains a and b

    const SandboxLimits everything{.memoryMb = 512, .pids = 64, .cpuSeconds = 30, .fileSizeMb = 10,
                                   .openFiles = 256, .addressSpaceMb = 0, .timeoutSec = 600};

    QTest::newRow("zero means no limit")
        << SandboxLimits{} << host("memory+pids") << 0ull << 0ull << QStringList{"CORE 0 0"} << QStringList{};
    QTest::newRow("zero means no limit, even as root without cgroups")
        << SandboxLimits{} << host("none", Who::Root) << 0ull << 0ull << QStringList{"CORE 0 0"}
        << QStringList{};

    QTest::newRow("memory by the cgroup")
        << SandboxLimits{.memoryMb = 512} << host("memory") << bytesOf(512) << 0ull << QStringList{"CORE 0 0"}
        << QStringList{"memory: 512 MiB for the whole sandbox (cgroup)"};
    QTest::newRow("memory by RLIMIT_AS without a memory cgroup")
        << SandboxLimits{.memoryMb = 512} << host("none") << 0ull << 0ull
        << QStringList{"AS " + mib(512) + " " + mib(512), "CORE 0 0"}
        << QStringList{"memory: 512 MiB of address space per process|" +
                       QString::fromStdString(kNoCgroupDetail)};
    QTest::newRow("smaller address space wins over the memory fallback")
        << SandboxLimits{.memoryMb = 512, .addressSpaceMb = 256} << host("none") << 0ull << 0ull
        << QStringList{"AS " + mib(256) + " " + mib(256), "CORE 0 0"}
        << QStringList{"memory: 512 MiB of address space", "address space: 256 MiB per process (rlimit)"};
    QTest::newRow("memory fallback caps a larger address space")
        << SandboxLimits{.memoryMb = 512, .addressSpaceMb = 1024} << host("pids") << 0ull << 0ull
        << QStringList{"AS " + mib(512) + " " + mib(512), "CORE 0 0"}
        << QStringList{"memory: 512 MiB of address space", "address space: 512 MiB per process (rlimit)"};
    QTest::newRow("address space beside a memory cgroup")
        << SandboxLimits{.memoryMb = 512, .addressSpaceMb = 1024} << host("memory") << bytesOf(512) << 0ull
        << QStringList{"AS " + mib(1024) + " " + mib(1024), "CORE 0 0"}
        << QStringList{"memory: 512 MiB for the whole sandbox (cgroup)",
                       "address space: 1024 MiB per process"};
    // A CLI agent's runtime reserves more address space than it uses: the fallback never goes below the floor,
    // and says so; with a memory cgroup the floor changes nothing.
    QTest::newRow("the memory fallback raised to the floor")
        << SandboxLimits{.memoryMb = 1024, .addressSpaceFloorMb = 8192} << host("none") << 0ull << 0ull
        << QStringList{"AS " + mib(8192) + " " + mib(8192), "CORE 0 0"}
        << QStringList{"memory: 8192 MiB of address space per process|memory_mb is 1024|address_space_floor_mb"};
    QTest::newRow("a memory fallback above the floor")
        << SandboxLimits{.memoryMb = 16384, .addressSpaceFloorMb = 8192} << host("none") << 0ull << 0ull
        << QStringList{"AS " + mib(16384) + " " + mib(16384), "CORE 0 0"}
        << QStringList{"memory: 16384 MiB of address space per process"};
    QTest::newRow("the floor beside a memory cgroup")
        << SandboxLimits{.memoryMb = 1024, .addressSpaceFloorMb = 8192} << host("memory") << bytesOf(1024) << 0ull
        << QStringList{"CORE 0 0"} << QStringList{"memory: 1024 MiB for the whole sandbox (cgroup)"};
    QTest::newRow("address space alone")
        << SandboxLimits{.addressSpaceMb = 300} << host("memory+pids") << 0ull << 0ull
        << QStringList{"AS " + mib(300) + " " + mib(300), "CORE 0 0"}
        << QStringList{"address space: 300 MiB per process (rlimit)"};

    QTest::newRow("pids by the cgroup")
        << SandboxLimits{.pids = 64} << host("pids") << 0ull << 64ull << QStringList{"CORE 0 0"}
        << QStringList{"processes: 64 for the whole sandbox (cgroup)"};
    QTest::newRow("pids by the cgroup as root")
        << SandboxLimits{.pids = 64} << host("memory+pids", Who::Root) << 0ull << 64ull
        << QStringList{"CORE 0 0"} << QStringList{"processes: 64 for the whole sandbox (cgroup)"};
    QTest::newRow("pids by RLIMIT_NPROC on top of the user's processes")
        << SandboxLimits{.pids = 64} << host("none", Who::User, 40) << 0ull << 0ull
        << QStringList{"CORE 0 0", "NPROC 104 104"}
        << QStringList{"processes: 64 beyond the 40 tasks the user already runs|RLIMIT_NPROC"};
    QTest::newRow("pids by RLIMIT_NPROC for a user with no processes")
        << SandboxLimits{.pids = 64} << host("memory", Who::User, 0) << 0ull << 0ull
        << QStringList{"CORE 0 0", "NPROC 64 64"} << QStringList{"processes: 64 beyond the 0 tasks the user already runs"};

    QTest::newRow("cpu: SIGXCPU at the limit, SIGKILL a second later")
        << SandboxLimits{.cpuSeconds = 30} << host("memory+pids") << 0ull << 0ull
        << QStringList{"CORE 0 0", "CPU 30 31"} << QStringList{"CPU: 30 s per process (rlimit)"};
    QTest::newRow("file size")
        << SandboxLimits{.fileSizeMb = 10} << host("memory+pids") << 0ull << 0ull
        << QStringList{"CORE 0 0", "FSIZE " + mib(10) + " " + mib(10)}
        << QStringList{"file size: 10 MiB per file (rlimit)"};
    QTest::newRow("open files")
        << SandboxLimits{.openFiles = 256} << host("memory+pids") << 0ull << 0ull
        << QStringList{"CORE 0 0", "NOFILE 256 256"} << QStringList{"open files: 256 per process (rlimit)"};
    QTest::newRow("timeout is only noted: the launcher enforces it")
        << SandboxLimits{.timeoutSec = 600} << host("memory+pids") << 0ull << 0ull << QStringList{"CORE 0 0"}
        << QStringList{"wall clock: 600 s, then the whole sandbox is killed"};

    QTest::newRow("everything with cgroups")
        << everything << host("memory+pids") << bytesOf(512) << 64ull
        << QStringList{"CORE 0 0", "CPU 30 31", "FSIZE " + mib(10) + " " + mib(10), "NOFILE 256 256"}
        << QStringList{"memory: 512 MiB|(cgroup)", "processes: 64|(cgroup)", "CPU: 30 s", "file size: 10 MiB",
                       "open files: 256", "wall clock: 600 s"};
    QTest::newRow("everything without cgroups, as a user")
        << everything << host("none", Who::User, 5) << 0ull << 0ull
        << QStringList{"AS " + mib(512) + " " + mib(512), "CORE 0 0", "CPU 30 31",
                       "FSIZE " + mib(10) + " " + mib(10), "NOFILE 256 256", "NPROC 69 69"}
        << QStringList{"memory: 512 MiB of address space", "processes: 64 beyond the 5 tasks the user already runs",
                       "CPU: 30 s", "file size: 10 MiB", "open files: 256", "wall clock: 600 s"};
}
// clang-format on

void TestLimitPlan::plan() {
    QFETCH(SandboxLimits, limits);
    QFETCH(HostLimitFacts, host);
    QFETCH(qulonglong, cgroupMemoryBytes);
    QFETCH(qulonglong, cgroupPids);
    QFETCH(QStringList, rlimits);
    QFETCH(QStringList, notes);

    auto plan = planLimits(limits, host);
    QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().message.c_str());
    QCOMPARE(qulonglong(plan->cgroup.memoryBytes), cgroupMemoryBytes);
    QCOMPARE(qulonglong(plan->cgroup.maxPids), cgroupPids);
    QCOMPARE(describe(plan->rlimits), rlimits);

    QStringList actualNotes;
    for (const auto& note : plan->notes)
        actualNotes << QString::fromStdString(note);
    QCOMPARE(actualNotes.size(), notes.size());
    for (qsizetype i = 0; i < notes.size(); ++i)
        for (const QString& part : notes[i].split('|'))
            QVERIFY2(actualNotes[i].contains(part), qPrintable("\"" + part + "\" not in: " + actualNotes[i]));
}

// The kernel ignores RLIMIT_NPROC for root, so without a pids cgroup nothing would hold a fork bomb.
void TestLimitPlan::rootWithoutPidsCgroupIsRefused_data() {
    QTest::addColumn<HostLimitFacts>("host");

    QTest::newRow("no cgroups at all") << host("none", Who::Root);
    QTest::newRow("memory cgroup only") << host("memory", Who::Root);
}

void TestLimitPlan::rootWithoutPidsCgroupIsRefused() {
    QFETCH(HostLimitFacts, host);

    auto plan = planLimits(SandboxLimits{.memoryMb = 512, .pids = 64}, host);
    QVERIFY(!plan.ok());
    QCOMPARE(plan.error().code, ErrorCode::Unsupported);
    const QString message = QString::fromStdString(plan.error().message);
    for (const QString& part : {QString("process limit (64) cannot be enforced"), QString("RLIMIT_NPROC"),
                                QString::fromStdString(host.cgroups.detail), QString("set limits.pids to 0")})
        QVERIFY2(message.contains(part), qPrintable("\"" + part + "\" not in: " + message));
}

// A limit in MiB multiplied into bytes must not wrap around 2^64 into a small number: a request for
// "practically unlimited" would become a limit of a few MiB (or 0, which means none at all).
void TestLimitPlan::hugeLimitsDoNotWrap_data() {
    QTest::addColumn<SandboxLimits>("limits");
    QTest::addColumn<HostLimitFacts>("host");
    QTest::addColumn<QString>("enforcedBy"); // "cgroup", "AS" or "FSIZE"

    const std::uint64_t wrapsToOneMiB = (std::uint64_t(1) << 44) + 1; // times 2^20 is 2^64 + 2^20
    QTest::newRow("memory by the cgroup")
        << SandboxLimits{.memoryMb = wrapsToOneMiB} << host("memory") << "cgroup";
    QTest::newRow("memory by RLIMIT_AS") << SandboxLimits{.memoryMb = wrapsToOneMiB} << host("none") << "AS";
    QTest::newRow("file size") << SandboxLimits{.fileSizeMb = wrapsToOneMiB} << host("none") << "FSIZE";
}

void TestLimitPlan::hugeLimitsDoNotWrap() {
    QFETCH(SandboxLimits, limits);
    QFETCH(HostLimitFacts, host);
    QFETCH(QString, enforcedBy);

    auto plan = planLimits(limits, host);
    if (!plan.ok()) {
        QCOMPARE(plan.error().code, ErrorCode::InvalidArgument); // refusing the value is a fine answer
        return;
    }
    std::uint64_t enforcedBytes = 0;
    if (enforcedBy == "cgroup")
        enforcedBytes = plan->cgroup.memoryBytes;
    for (const auto& r : plan->rlimits)
        if (rlimitName(r.resource) == enforcedBy)
            enforcedBytes = r.soft;
    const std::uint64_t requestedMb = std::max(limits.memoryMb, limits.fileSizeMb);
    // A limit too large to count in bytes saturates to "unlimited" (RLIM_INFINITY), never wraps to a small one.
    QVERIFY2(enforcedBytes == UINT64_MAX || enforcedBytes / kMiB >= requestedMb,
             qPrintable(QString("%1 bytes enforced").arg(enforcedBytes)));
}

QTEST_GUILESS_MAIN(TestLimitPlan)
#include "tst_limit_plan.moc"
