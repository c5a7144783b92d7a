// ConcurrentCalls, the runner of a reply's read-only calls at the same time: that they do run at the same
// time (calls that each wait for the others to start, which could never all end one after another), at
// most kMaxAtOnce at once, that what each reported comes back in its turn, that one failing call does not
// touch the others, and that a stop leaves nothing running. The tools here are the test's own: they wait
// on each other, which no real tool does. Every wait is bounded, so a broken runner fails the test.

#include "agent_core/loop/ConcurrentCalls.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <poll.h>

using namespace warren;
using namespace warren::agent;
using nlohmann::json;

namespace {

constexpr auto kSafetyNet = std::chrono::seconds(30); // only a broken runner waits this long

// Calls that start, count themselves, and wait until `needed` of them have started.
struct Meeting {
    std::mutex mutex;
    std::condition_variable changed;
    int started = 0;
    int running = 0;
    int mostAtOnce = 0;
};

class MeetingTool : public Tool {
public:
    MeetingTool(Meeting& meeting, int needed) : m_meeting(meeting), m_needed(needed) {}
    ToolOutcome run(const json& arguments, const ToolEnv& env) override {
        std::unique_lock lock(m_meeting.mutex);
        ++m_meeting.started;
        ++m_meeting.running;
        m_meeting.mostAtOnce = std::max(m_meeting.mostAtOnce, m_meeting.running);
        m_meeting.changed.notify_all();
        const bool met =
            m_meeting.changed.wait_for(lock, kSafetyNet, [&] { return m_meeting.started >= m_needed; });
        --m_meeting.running;
        if (!met)
            return failure("alone: the others never started");
        env.onOutput("stdout", arguments.value("say", std::string()) + " 1");
        env.onOutput("stderr", arguments.value("say", std::string()) + " 2");
        return {true, "met " + arguments.value("say", std::string())};
    }
    bool readOnly() const override { return true; }
    bool concurrencySafe() const override { return true; }

private:
    Meeting& m_meeting;
    int m_needed;
};

class FailingTool : public Tool {
public:
    ToolOutcome run(const json&, const ToolEnv&) override {
        return failure("read_file: no such file: gone.txt");
    }
};

// Waits for the stop, as a long read does, and says it was stopped.
class WaitsForStopTool : public Tool {
public:
    explicit WaitsForStopTool(std::atomic<int>& running) : m_running(running) {}
    ToolOutcome run(const json&, const ToolEnv& env) override {
        ++m_running;
        pollfd stop{env.cancellation->fd(), POLLIN, 0};
        ::poll(&stop, 1, static_cast<int>(std::chrono::milliseconds(kSafetyNet).count()));
        ToolOutcome outcome{false, "stopped"};
        outcome.cancelled = env.cancellation->stopRequested();
        --m_running;
        return outcome;
    }

private:
    std::atomic<int>& m_running;
};

ConcurrentCalls::Call callOf(const std::string& id, Tool& tool, const Cancellation& cancellation,
                             json arguments = json::object()) {
    ToolEnv env;
    env.cancellation = &cancellation;
    env.callId = id;
    return {id, &tool, std::move(arguments), env};
}

struct Heard {
    std::vector<std::string> lines;
    ToolEnv env() {
        ToolEnv live;
        live.onOutput = [this](std::string_view stream, std::string_view text) {
            lines.push_back(std::string(stream) + ": " + std::string(text));
        };
        return live;
    }
};

} // namespace

class TestConcurrentCalls : public QObject {
    Q_OBJECT

private slots:
    void callsThatNeedEachOtherAllEnd() {
        // Sequentially the first could never end: it waits for the second to start.
        Cancellation cancellation;
        Meeting meeting;
        MeetingTool tool(meeting, 2);
        ConcurrentCalls calls({callOf("a", tool, cancellation, {{"say", "a"}}),
                               callOf("b", tool, cancellation, {{"say", "b"}})});
        Heard heard;
        const auto a = calls.take("a", heard.env()).outcome;
        const auto b = calls.take("b", heard.env()).outcome;
        QVERIFY2(a.ok, a.output.c_str());
        QVERIFY2(b.ok, b.output.c_str());
        QCOMPARE(a.output, std::string("met a"));
        QCOMPARE(b.output, std::string("met b"));
        // Each call's reports come back whole, in its turn, whatever order the calls ran in.
        QCOMPARE(heard.lines,
                 (std::vector<std::string>{"stdout: a 1", "stderr: a 2", "stdout: b 1", "stderr: b 2"}));
    }

    void noMoreThanTheLimitRunAtOnce() {
        // Eight calls in two meetings of four: the first four meet, then the next four.
        Cancellation cancellation;
        Meeting meeting;
        MeetingTool firstFour(meeting, 4);
        MeetingTool nextFour(meeting, 8);
        std::vector<ConcurrentCalls::Call> list;
        for (int i = 0; i < 8; ++i)
            list.push_back(callOf("c" + std::to_string(i), i < 4 ? firstFour : nextFour, cancellation));
        ConcurrentCalls calls(std::move(list));
        Heard heard;
        for (int i = 0; i < 8; ++i) {
            const auto outcome = calls.take("c" + std::to_string(i), heard.env()).outcome;
            QVERIFY2(outcome.ok, outcome.output.c_str());
        }
        QCOMPARE(meeting.mostAtOnce, int(ConcurrentCalls::kMaxAtOnce));
    }

    void aFailingCallKeepsItsOwnError() {
        Cancellation cancellation;
        Meeting meeting;
        MeetingTool tool(meeting, 2);
        FailingTool failing;
        ConcurrentCalls calls({callOf("a", tool, cancellation, {{"say", "a"}}),
                               callOf("gone", failing, cancellation),
                               callOf("b", tool, cancellation, {{"say", "b"}})});
        Heard heard;
        QVERIFY(calls.has("gone") && !calls.has("c"));
        QCOMPARE(calls.take("a", heard.env()).outcome.output, std::string("met a"));
        const auto gone = calls.take("gone", heard.env()).outcome;
        QVERIFY(!gone.ok);
        QCOMPARE(gone.output, std::string("read_file: no such file: gone.txt"));
        QCOMPARE(calls.take("b", heard.env()).outcome.output, std::string("met b"));
    }

    void aStopLeavesNothingRunning() {
        // One at a time: the first waits for the stop; the loop takes no more after it, and the destructor
        // waits for whatever runs (each sees the stop) before it returns.
        Cancellation cancellation;
        std::atomic<int> running{0};
        WaitsForStopTool tool(running);
        {
            ConcurrentCalls calls({callOf("a", tool, cancellation), callOf("b", tool, cancellation),
                                   callOf("c", tool, cancellation)},
                                  1);
            cancellation.request(StopRequest::Cancel);
            Heard heard;
            const auto a = calls.take("a", heard.env()).outcome;
            QVERIFY(a.cancelled);
        }
        QCOMPARE(running.load(), 0);
    }

    void callsNeverTakenAreWaitedFor() {
        Cancellation cancellation;
        std::atomic<int> running{0};
        WaitsForStopTool tool(running);
        {
            ConcurrentCalls calls({callOf("a", tool, cancellation), callOf("b", tool, cancellation)});
            cancellation.request(StopRequest::Pause);
        }
        QCOMPARE(running.load(), 0);
    }
};

QTEST_GUILESS_MAIN(TestConcurrentCalls)
#include "tst_concurrent_calls.moc"
