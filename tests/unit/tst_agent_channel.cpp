// AgentChannel's backpressure on real pipes: while it is not reading, what the agent writes stays in the
// pipe, which fills until the agent's write would block, and no line is handed on; reading again hands on
// every line, in order, none twice.
#include "app/tasks/AgentChannel.h"

#include <QtTest>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace warren;
using namespace warren::control;

class TestAgentChannel : public QObject {
    Q_OBJECT

private slots:
    void aPausedChannelLeavesTheAgentsOutputInThePipe() {
        auto channel = AgentChannel::open();
        QVERIFY(channel);
        // The agent's end of stdout, kept past watch() (which closes the channel's copy of it).
        const int agentStdout = ::dup((*channel)->childStdio().stdoutFd);
        QVERIFY(agentStdout >= 0);
        ::fcntl(agentStdout, F_SETFL, ::fcntl(agentStdout, F_GETFL) | O_NONBLOCK);
        std::vector<std::string> lines;
        connect(channel->get(), &AgentChannel::lineRead, this, [&](const Result<std::string>& line) {
            QVERIFY(line);
            lines.push_back(*line);
        });
        (*channel)->watch();
        (*channel)->setReading(false);

        // Write numbered lines until the pipe is full (far less than 16 MiB: 64 KiB here): nobody reads it.
        int written = 0;
        bool full = false;
        for (std::size_t bytes = 0; bytes < (16u << 20);) {
            const std::string line = "line " + std::to_string(written + 1) + "\n";
            const ssize_t n = ::write(agentStdout, line.data(), line.size());
            if (n < 0 && errno == EAGAIN) {
                full = true;
                break;
            }
            bytes += line.size();
            QCOMPARE(n, static_cast<ssize_t>(line.size())); // a line this short is written whole
            ++written;
            if (written % 256 == 0)
                QCoreApplication::processEvents(); // the channel's notifier would read here if it read
        }
        QVERIFY2(full, "the channel read what it was told to leave in the pipe");
        QVERIFY(written > 100);
        QCoreApplication::processEvents();
        QVERIFY(lines.empty());

        (*channel)->setReading(true);
        QTRY_COMPARE(lines.size(), static_cast<std::size_t>(written));
        for (int i = 0; i < written; ++i)
            QCOMPARE(lines[static_cast<std::size_t>(i)], "line " + std::to_string(i + 1));
        ::close(agentStdout);
    }

    // The sandbox is gone: drain() reads to the end, paused or not.
    void drainReadsEverythingWhilePaused() {
        auto channel = AgentChannel::open();
        QVERIFY(channel);
        const int agentStdout = ::dup((*channel)->childStdio().stdoutFd);
        std::vector<std::string> lines;
        connect(channel->get(), &AgentChannel::lineRead, this,
                [&](const Result<std::string>& line) { lines.push_back(line ? *line : "error"); });
        (*channel)->watch();
        (*channel)->setReading(false);
        const std::string text = "one\ntwo\nthree\n";
        QCOMPARE(::write(agentStdout, text.data(), text.size()), static_cast<ssize_t>(text.size()));
        ::close(agentStdout);
        (*channel)->drain();
        QCOMPARE(lines, (std::vector<std::string>{"one", "two", "three"}));
    }
};

QTEST_GUILESS_MAIN(TestAgentChannel)
#include "tst_agent_channel.moc"
