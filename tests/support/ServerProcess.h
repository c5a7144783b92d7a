#pragma once
// A server program a test starts (an MCP server over HTTP, a fake): started, waited for until it prints
// that it listens (no sleeps), killed when destroyed. freePort: a loopback port nobody listens on now, for a
// server that must be told its port; acceptsOn then waits until the server takes connections there (what it
// printed is its word, not the socket's). describe() says, for a failure's message, how the server is doing.

#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <chrono>

namespace warren::test {

// A server process that prints where it listens; stopped when destroyed.
class ServerProcess {
public:
    ~ServerProcess() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }
    // Starts program and waits for a line of channel matching pattern (its first group: the port, if any).
    bool start(const QString& program, const QStringList& arguments, const QProcessEnvironment& environment,
               QProcess::ProcessChannel channel, const QRegularExpression& pattern) {
        m_process.setProcessEnvironment(environment);
        m_process.setReadChannel(channel);
        m_process.start(program, arguments);
        if (!m_process.waitForStarted(10000))
            return false;
        QByteArray seen;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (std::chrono::steady_clock::now() < deadline) {
            if (!m_process.waitForReadyRead(30000))
                break;
            seen += m_process.readAll();
            const auto match = pattern.match(QString::fromUtf8(seen));
            if (match.hasMatch()) {
                if (!match.captured(1).isEmpty())
                    port = match.captured(1).toUShort();
                return true;
            }
        }
        qWarning("the server did not say it listens: %s%s", seen.constData(),
                 m_process.readAllStandardError().constData());
        return false;
    }
    quint16 port = 0;

    // Connects to 127.0.0.1:port until a connection is accepted (true), the server exits, or 10 s pass.
    bool acceptsOn(quint16 onPort) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < deadline && m_process.state() == QProcess::Running) {
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, onPort);
            if (probe.waitForConnected(1000))
                return true;
            m_process.waitForFinished(100); // a refused probe is retried after a tenth of a second
        }
        qWarning("the server does not take connections on port %u: %s", onPort, describe().constData());
        return false;
    }

    // For a failure's message: whether the server still runs, and what it printed since it said it listens.
    QByteArray describe() {
        m_process.waitForReadyRead(200); // what it printed and whether it exited, read now
        const QByteArray state = m_process.state() == QProcess::NotRunning
                                     ? "the server exited (status " + QByteArray::number(m_process.exitCode()) + ")"
                                     : QByteArray("the server runs");
        return state + "; it printed since: " + m_process.readAllStandardOutput() + m_process.readAllStandardError();
    }

private:
    QProcess m_process;
};

inline quint16 freePort() {
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost);
    return probe.serverPort();
}

} // namespace warren::test
