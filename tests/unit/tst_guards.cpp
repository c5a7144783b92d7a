// The guard policies: LoopDetector (warn at loop_threshold identical calls in a row, stop at one more,
// reset by any other call, state kept across a checkpoint), VmRSS parsing and the memory verdict (shed
// above the threshold, stop above the maximum after shedding), and the step and token budgets.

#include "agent_core/context/Budget.h"
#include "agent_core/context/LoopDetector.h"
#include "agent_core/context/MemoryGuard.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;
using warren::protocol::ToolCall;

Q_DECLARE_METATYPE(warren::agent::MemoryVerdict)
Q_DECLARE_METATYPE(warren::agent::BudgetVerdict)
Q_DECLARE_METATYPE(std::optional<std::uint64_t>)

namespace {

// "name {json args}" per call, e.g. "shell {\"command\":\"ls\"}"; ids differ on every call.
std::vector<ToolCall> calls(const QStringList& specs) {
    std::vector<ToolCall> out;
    int id = 0;
    for (const auto& spec : specs) {
        const auto space = spec.indexOf(' ');
        out.push_back({"call_" + std::to_string(id++), spec.left(space).toStdString(),
                       json::parse(spec.mid(space + 1).toStdString())});
    }
    return out;
}

QString verdictName(LoopVerdict verdict) {
    switch (verdict) {
    case LoopVerdict::None:
        return "-";
    case LoopVerdict::Warn:
        return "warn";
    case LoopVerdict::Stop:
        return "stop";
    }
    return "?";
}

QStringList observeAll(LoopDetector& detector, const std::vector<ToolCall>& sequence) {
    QStringList out;
    for (const auto& call : sequence)
        out << verdictName(detector.observe(call));
    return out;
}

const char* kStatus =
    "Name:\tagent\nUmask:\t0022\nState:\tR (running)\nVmPeak:\t  20000 kB\n"
    "VmSize:\t   18000 kB\nVmHWM:\t    9000 kB\nVmRSS:\t    8192 kB\nRssAnon:\t    4000 kB\n";

} // namespace

class TestGuards : public QObject {
    Q_OBJECT

private slots:
    void loopDetector_data() {
        QTest::addColumn<int>("threshold");
        QTest::addColumn<QStringList>("calls");
        QTest::addColumn<QStringList>("verdicts");
        const QString ls = "shell {\"command\":\"ls\"}";
        const QString pwd = "shell {\"command\":\"pwd\"}";
        const QString read = "read_file {\"path\":\"a\"}";
        QTest::newRow("warn at the threshold, stop at one more")
            << 3 << QStringList{ls, ls, ls, ls} << QStringList{"-", "-", "warn", "stop"};
        QTest::newRow("keeps stopping")
            << 3 << QStringList{ls, ls, ls, ls, ls} << QStringList{"-", "-", "warn", "stop", "stop"};
        QTest::newRow("threshold 2") << 2 << QStringList{ls, ls, ls} << QStringList{"-", "warn", "stop"};
        QTest::newRow("threshold below 2 counts as 2")
            << 1 << QStringList{ls, ls, ls} << QStringList{"-", "warn", "stop"};
        QTest::newRow("different arguments reset")
            << 3 << QStringList{ls, ls, pwd, ls, ls, ls} << QStringList{"-", "-", "-", "-", "-", "warn"};
        QTest::newRow("different tool resets")
            << 2 << QStringList{read, ls, read, ls} << QStringList{"-", "-", "-", "-"};
        QTest::newRow("a different call clears the warning")
            << 2 << QStringList{ls, ls, pwd, ls, ls, ls}
            << QStringList{"-", "warn", "-", "-", "warn", "stop"};
        QTest::newRow("argument order does not matter")
            << 2
            << QStringList{"edit_file {\"path\":\"a\",\"old\":\"x\"}",
                           "edit_file {\"old\":\"x\",\"path\":\"a\"}"}
            << QStringList{"-", "warn"};
        QTest::newRow("argument types matter")
            << 2 << QStringList{"shell {\"timeout_sec\":1}", "shell {\"timeout_sec\":\"1\"}"}
            << QStringList{"-", "-"};
        QTest::newRow("same name, empty and absent arguments")
            << 2 << QStringList{"finish {}", "finish {}"} << QStringList{"-", "warn"};
    }

    void loopDetector() {
        QFETCH(int, threshold);
        QFETCH(QStringList, calls);
        QFETCH(QStringList, verdicts);
        LoopDetector detector{static_cast<std::uint64_t>(threshold)};
        QCOMPARE(observeAll(detector, ::calls(calls)), verdicts);
    }

    void callKeyIgnoresTheId() {
        const ToolCall a{"call_1", "shell", json{{"command", "ls"}, {"cwd", "src"}}};
        ToolCall b{"call_2", "shell", json::parse(R"({"cwd":"src","command":"ls"})")};
        QCOMPARE(LoopDetector::callKey(a), LoopDetector::callKey(b));
        b.name = "search";
        QVERIFY(LoopDetector::callKey(a) != LoopDetector::callKey(b));
    }

    void stateSurvivesACheckpoint_data() {
        QTest::addColumn<QStringList>("before");
        QTest::addColumn<QStringList>("after");
        QTest::addColumn<QStringList>("verdicts");
        const QString ls = "shell {\"command\":\"ls\"}";
        const QString pwd = "shell {\"command\":\"pwd\"}";
        QTest::newRow("run continues")
            << QStringList{ls, ls} << QStringList{ls, ls} << QStringList{"warn", "stop"};
        QTest::newRow("warning kept") << QStringList{ls, ls, ls} << QStringList{ls} << QStringList{"stop"};
        QTest::newRow("different call after resume resets")
            << QStringList{ls, ls, ls} << QStringList{pwd, ls} << QStringList{"-", "-"};
        QTest::newRow("fresh") << QStringList{} << QStringList{ls, ls, ls} << QStringList{"-", "-", "warn"};
    }

    void stateSurvivesACheckpoint() {
        QFETCH(QStringList, before);
        QFETCH(QStringList, after);
        QFETCH(QStringList, verdicts);
        LoopDetector first(3);
        observeAll(first, calls(before));
        const LoopDetectorState saved = first.state();
        QVERIFY(saved.recentKeys.size() <= 3);

        LoopDetector resumed(3);
        resumed.restore(saved);
        QVERIFY(resumed.state() == saved);
        QCOMPARE(observeAll(resumed, calls(after)), verdicts);
    }

    void restoreKeepsTheLatestRun() {
        LoopDetector detector(3);
        detector.restore({{"a {}", "b {}", "b {}"}, true});
        // Not one run: only the trailing "b" run is kept, and the warning was not about it.
        QVERIFY(detector.state() == (LoopDetectorState{{"b {}", "b {}"}, false}));
        detector.restore({{"x", "x", "x", "x", "x"}, true});
        QVERIFY(detector.state() == (LoopDetectorState{{"x", "x", "x"}, true}));
        detector.restore({{}, true});
        QVERIFY(detector.state() == LoopDetectorState{});
    }

    void parsesRss_data() {
        QTest::addColumn<QByteArray>("status");
        QTest::addColumn<std::optional<std::uint64_t>>("bytes");
        QTest::newRow("status file") << QByteArray(kStatus) << std::optional<std::uint64_t>(8192ull * 1024);
        QTest::newRow("first line, spaces")
            << QByteArray("VmRSS: 12 kB") << std::optional<std::uint64_t>(12ull * 1024);
        QTest::newRow("zero") << QByteArray("VmRSS:\t0 kB\n") << std::optional<std::uint64_t>(0);
        QTest::newRow("missing") << QByteArray("Name:\tagent\nVmHWM:\t 9000 kB\n")
                                 << std::optional<std::uint64_t>();
        QTest::newRow("empty") << QByteArray() << std::optional<std::uint64_t>();
        QTest::newRow("not a number") << QByteArray("VmRSS:\t abc kB\n") << std::optional<std::uint64_t>();
        QTest::newRow("no unit") << QByteArray("VmRSS:\t 12\n") << std::optional<std::uint64_t>();
        QTest::newRow("other unit") << QByteArray("VmRSS:\t 12 MB\n") << std::optional<std::uint64_t>();
        QTest::newRow("trailing garbage")
            << QByteArray("VmRSS:\t 12 kB x\n") << std::optional<std::uint64_t>();
        QTest::newRow("no value") << QByteArray("VmRSS:\n") << std::optional<std::uint64_t>();
        QTest::newRow("field name must match")
            << QByteArray("XVmRSS:\t 1 kB\nVmRSSx:\t 2 kB\nVmRSS:\t 3 kB\n")
            << std::optional<std::uint64_t>(3ull * 1024);
        QTest::newRow("overflowing number")
            << QByteArray("VmRSS:\t 99999999999999999999999 kB\n") << std::optional<std::uint64_t>();
        QTest::newRow("overflowing bytes")
            << QByteArray("VmRSS:\t 18014398509481984 kB\n") << std::optional<std::uint64_t>();
    }

    void parsesRss() {
        QFETCH(QByteArray, status);
        QFETCH(std::optional<std::uint64_t>, bytes);
        QCOMPARE(parseRssBytes(status.toStdString()), bytes);
    }

    void readsOwnRss() {
        if (!QFile::exists("/proc/self/status"))
            QSKIP("no /proc/self/status here");
        const auto rss = currentRssBytes();
        QVERIFY(rss.has_value());
        QVERIFY(*rss > 0);
    }

    void memoryVerdict_data() {
        QTest::addColumn<quint64>("rssMb");
        QTest::addColumn<quint64>("thresholdMb");
        QTest::addColumn<quint64>("maxMb");
        QTest::addColumn<bool>("alreadyShed");
        QTest::addColumn<MemoryVerdict>("verdict");
        QTest::newRow("both off") << quint64(5000) << quint64(0) << quint64(0) << false << MemoryVerdict::Ok;
        QTest::newRow("below threshold")
            << quint64(200) << quint64(300) << quint64(400) << false << MemoryVerdict::Ok;
        QTest::newRow("at threshold")
            << quint64(300) << quint64(300) << quint64(400) << false << MemoryVerdict::Ok;
        QTest::newRow("above threshold sheds")
            << quint64(301) << quint64(300) << quint64(400) << false << MemoryVerdict::Shed;
        QTest::newRow("above threshold after shedding is tolerated")
            << quint64(350) << quint64(300) << quint64(400) << true << MemoryVerdict::Ok;
        QTest::newRow("above max sheds first")
            << quint64(500) << quint64(300) << quint64(400) << false << MemoryVerdict::Shed;
        QTest::newRow("above max after shedding stops")
            << quint64(401) << quint64(300) << quint64(400) << true << MemoryVerdict::Stop;
        QTest::newRow("at max after shedding")
            << quint64(400) << quint64(300) << quint64(400) << true << MemoryVerdict::Ok;
        QTest::newRow("threshold only")
            << quint64(600) << quint64(512) << quint64(0) << false << MemoryVerdict::Shed;
        QTest::newRow("threshold only never stops")
            << quint64(9000) << quint64(512) << quint64(0) << true << MemoryVerdict::Ok;
        QTest::newRow("max only sheds then stops: shed")
            << quint64(500) << quint64(0) << quint64(400) << false << MemoryVerdict::Shed;
        QTest::newRow("max only sheds then stops: stop")
            << quint64(500) << quint64(0) << quint64(400) << true << MemoryVerdict::Stop;
        QTest::newRow("threshold above max")
            << quint64(450) << quint64(512) << quint64(400) << false << MemoryVerdict::Shed;
        QTest::newRow("huge limit does not overflow")
            << quint64(1) << quint64(0) << std::numeric_limits<quint64>::max() << true << MemoryVerdict::Ok;
    }

    void memoryVerdict() {
        QFETCH(quint64, rssMb);
        QFETCH(quint64, thresholdMb);
        QFETCH(quint64, maxMb);
        QFETCH(bool, alreadyShed);
        QFETCH(MemoryVerdict, verdict);
        QVERIFY(warren::agent::memoryVerdict(rssMb * 1024 * 1024, thresholdMb, maxMb, alreadyShed) ==
                verdict);
    }

    void memoryVerdictCountsBytes() {
        constexpr std::uint64_t mb = 1024 * 1024;
        QVERIFY(warren::agent::memoryVerdict(300 * mb, 300, 0, false) == MemoryVerdict::Ok);
        QVERIFY(warren::agent::memoryVerdict(300 * mb + 1, 300, 0, false) == MemoryVerdict::Shed);
    }

    void tokenBudget_data() {
        QTest::addColumn<quint64>("used");
        QTest::addColumn<quint64>("budget");
        QTest::addColumn<BudgetVerdict>("verdict");
        QTest::newRow("no budget") << quint64(1'000'000) << quint64(0) << BudgetVerdict::Ok;
        QTest::newRow("nothing used") << quint64(0) << quint64(1000) << BudgetVerdict::Ok;
        QTest::newRow("below") << quint64(999) << quint64(1000) << BudgetVerdict::Ok;
        QTest::newRow("reached") << quint64(1000) << quint64(1000) << BudgetVerdict::Exhausted;
        QTest::newRow("over") << quint64(1500) << quint64(1000) << BudgetVerdict::Exhausted;
    }

    void tokenBudget() {
        QFETCH(quint64, used);
        QFETCH(quint64, budget);
        QFETCH(BudgetVerdict, verdict);
        QVERIFY(tokenBudgetVerdict(used, budget) == verdict);
    }

    void steps_data() {
        QTest::addColumn<quint64>("step");
        QTest::addColumn<quint64>("maxSteps");
        QTest::addColumn<BudgetVerdict>("verdict");
        QTest::newRow("first step") << quint64(1) << quint64(50) << BudgetVerdict::Ok;
        QTest::newRow("last step") << quint64(50) << quint64(50) << BudgetVerdict::Ok;
        QTest::newRow("one past") << quint64(51) << quint64(50) << BudgetVerdict::Exhausted;
        QTest::newRow("max 1: second step") << quint64(2) << quint64(1) << BudgetVerdict::Exhausted;
    }

    void steps() {
        QFETCH(quint64, step);
        QFETCH(quint64, maxSteps);
        QFETCH(BudgetVerdict, verdict);
        QVERIFY(stepsVerdict(step, maxSteps) == verdict);
    }
};

QTEST_APPLESS_MAIN(TestGuards)
#include "tst_guards.moc"
