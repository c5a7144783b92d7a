#pragma once
// A server program a test starts (an MCP server over HTTP, a fake): started, waited for until it prints
// that it listens (no sleeps), killed when destroyed. startOnFreePort: for a server that must be told its
// port in an environment variable, a free port below the ephemeral range (where other tests' outgoing
// connections take theirs), tried again elsewhere when the server cannot take it; acceptsOn waits until the
// server takes connections (what it printed is its word, not the socket's). describe() says, for a failure's
// message, how the server is doing.

#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <chrono>
#include <random>

namespace warren::test {

// A server process that prints where it listens; stopped when destroyed.
class ServerProcess {
public:
    ~ServerProcess() { kill(); }
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

    // Starts program with variable (e.g. PORT) set to a free port and waits until it takes connections
    // there; a port taken between the choice and the server's bind is given up for another, five times.
    bool startOnFreePort(const QString& program, const QStringList& arguments, QProcessEnvironment environment,
                         const QString& variable, QProcess::ProcessChannel channel, const QRegularExpression& pattern);

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
    void kill() {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    QProcess m_process;
};

// A loopback port nobody listens on now, below the ephemeral range (32768 and up on Linux), so no outgoing
// connection of another test takes it before the server binds it.
inline quint16 freePort() {
    static std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<int> ports(20000, 32000);
    for (int attempt = 0; attempt < 100; ++attempt) {
        QTcpServer probe;
        if (probe.listen(QHostAddress::Any, static_cast<quint16>(ports(random))))
            return probe.serverPort();
    }
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost);
    return probe.serverPort();
}

inline bool ServerProcess::startOnFreePort(const QString& program, const QStringList& arguments,
                                           QProcessEnvironment environment, const QString& variable,
                                           QProcess::ProcessChannel channel, const QRegularExpression& pattern) {
    for (int attempt = 0; attempt < 5; ++attempt) {
        const quint16 chosen = freePort();
        environment.insert(variable, QString::number(chosen));
        if (start(program, arguments, environment, channel, pattern) && acceptsOn(chosen)) {
            port = chosen;
            return true;
        }
        kill();
    }
    return false;
}

} // namespace warren::test
