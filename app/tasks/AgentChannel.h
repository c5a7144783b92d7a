#pragma once
// The control plane's end of one agent's stdio: three pipes, ours non-blocking and watched by
// QSocketNotifiers. Stdout is cut into lines (LineReader) and handed on one by one, a bad line as an
// Error in its place; stderr is kept only as its last bytes, for the message when the agent fails; what
// is sent is buffered and written as the pipe takes it, so the event loop never blocks on a slow agent.
// An agent that is gone is not an error here: stdin then drops what is sent, and the sandbox's exit says
// how it ended.
//
// Over a socket (Transport::Socket: `warren-agent serve --connect`, for a sandbox that has no stdin to give):
// the sandbox's stdout and stderr both go to the stderr pipe, what is sent waits until adopt() hands over the
// agent's connection (AgentListener), and from then on the connection is both stdin and stdout.

#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/LineReader.h"
#include "common/Result.h"
#include "common/UniqueFd.h"
#include "sandbox/bwrap/Launcher.h"

#include <QObject>
#include <memory>
#include <string>

class QSocketNotifier;

namespace warren::control {

class AgentChannel : public QObject {
    Q_OBJECT
public:
    enum class Transport { Stdio, Socket };
    // The pipes (stdin, stdout and stderr; over a socket, stdin and stderr), not yet watched.
    static Result<std::unique_ptr<AgentChannel>> open(Transport transport = Transport::Stdio);
    ~AgentChannel() override;

    // The ends the sandbox gets as the agent's stdin, stdout and stderr; valid until watch().
    sandbox::LaunchOptions childStdio() const;
    // The sandbox holds the child's ends now: closes ours of them and starts reading.
    void watch();
    // Transport::Socket: the agent's connection, and what it sent after its hello, as its stdin and stdout.
    void adopt(UniqueFd connection, const std::string& afterHello);
    void send(const protocol::Message& message); // one line on the agent's stdin
    // Backpressure: while not reading, the agent's stdout is left in the pipe, which fills, so that the
    // agent waits in its write (a line already read is still handed on). Reading by default.
    void setReading(bool reading);
    // Every process of the sandbox is gone, so the pipes' far ends are closed: reads what is left of
    // stdout (lineRead for each line) and stderr, to their end, reading or not.
    void drain();
    // Stops reading and writing and closes the pipes; no signal follows. Safe inside lineRead's handler.
    void close();
    // The last bytes the agent wrote to stderr ("…" in front when cut), without trailing newlines or spaces.
    std::string stderrTail(std::size_t bytes) const;

signals:
    void lineRead(const warren::Result<std::string>& line); // direct connections: valid during the call
    // Transport::Socket: the agent's connection ended, its last line read; what was sent and not yet written
    // is dropped. The sandbox may still run: its agent connects again, to the task's next launch.
    void connectionLost();

private:
    explicit AgentChannel(Transport transport) : m_transport(transport) {}
    void watchProtocol();
    void onStdoutReadable();
    void onStderrReadable();
    void flushStdin();

    UniqueFd m_stdin, m_stdout, m_stderr;
    UniqueFd m_childStdin, m_childStdout, m_childStderr;
    QSocketNotifier* m_stdinNotifier = nullptr;
    QSocketNotifier* m_stdoutNotifier = nullptr;
    QSocketNotifier* m_stderrNotifier = nullptr;
    protocol::LineReader m_lines;
    std::string m_stdinBuffer;
    std::string m_stderrTail;
    bool m_reading = true;
    Transport m_transport;
    bool m_awaitingConnection = false; // over a socket, until adopt()
};

} // namespace warren::control
