#pragma once
// A real warrend for a test: a PostgreSQL of its own (PostgresServer), users made with `warrend admin`,
// and `warrend serve` as a process on a loopback port, which the test may kill -9 and start again. Requests
// go over real HTTP (QNetworkAccessManager), or HTTPS after useTls; the event loop runs while a test waits
// for an answer.

#include "tests/support/PostgresServer.h"

#include <QByteArray>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

namespace warren::test {

QString warrendBinary(); // $WARREN_WARREND

struct HttpAnswer {
    int status = 0; // 0: no HTTP answer (the connection failed)
    QString error;  // with status 0: why (e.g. the TLS handshake failed)
    QByteArray body;
    QList<std::pair<QByteArray, QByteArray>> headers;
    nlohmann::json json() const; // the body as JSON; discarded when it is not
    QByteArray header(const QByteArray& name) const;
    QString errorCode() const; // the JSON error's code ({"error": {"code"}}), empty when there is none
};

struct AdminResult {
    int exitCode = -1;
    QByteArray out, err;
};

class WarrendServer {
public:
    // Starts PostgreSQL; error says why it could not.
    static std::unique_ptr<WarrendServer> create(QString* error);
    // Another warrend serve over first's database and data directory, as replicas run (docs/SERVER.md,
    // "Replicas"); start() starts it. first keeps both, and must outlive it.
    static std::unique_ptr<WarrendServer> replicaOf(WarrendServer& first);
    ~WarrendServer();

    // warrend admin --database URL ARGS, with input on its stdin
    AdminResult admin(const QStringList& args, const QByteArray& input = {});
    QString addUser(const QString& name, const QString& tenant = "default"); // its key; empty on failure

    // The next start serves HTTPS with these PEM files, and requests trust that certificate alone (as their
    // one CA: a self-signed certificate is verified, not its errors ignored).
    void useTls(const QString& certificate, const QString& key);

    // warrend serve; false with error when it did not say it listens. samePort: on the port the last start
    // bound (a restart its clients reconnect to), else on a free one.
    bool start(QString* error, const QStringList& extra = {}, bool samePort = false);
    void setEnvironment(const QString& name, const QString& value); // of the next start()
    int exitCode(); // how the last warrend serve ended: its exit code, -1 while it runs or when it crashed
    qint64 processId() const { return m_process.processId(); } // 0 when it does not run
    void kill();                                               // SIGKILL, then waits for it
    void stop();                                               // SIGTERM, then waits for it
    QString url() const { return m_url; }
    QString dataDir() const { return m_first ? m_first->dataDir() : m_data.path(); }
    QString databaseUrl() const { return m_first ? m_first->databaseUrl() : m_postgres->url(); }
    PostgresServer& postgres() { return m_first ? m_first->postgres() : *m_postgres; }
    QByteArray serverOutput(); // what warrend wrote so far
    // Reads warrend's output until it holds text (true) or it stays silent for timeoutMs.
    bool waitForOutput(const QByteArray& text, int timeoutMs = 60000);

    QString upload(const QString& key,
                   const QString& directory); // a tar of directory; its id, empty on failure
    // A small project (a README.md) made in a new directory under scratch and uploaded: its id.
    QString uploadProject(const QString& key, const QString& scratch);
    // POST /v1/tasks with body: the new task's id, empty (and said) when it was not created.
    QString createTask(const QString& key, const QByteArray& body);
    HttpAnswer request(const QByteArray& method, const QString& path, const QString& key,
                       const QByteArray& body = {},
                       const QList<std::pair<QByteArray, QByteArray>>& headers = {});
    // Reads the event stream until an event of type untilType arrives, or, with untilType empty, until the
    // server ends the stream (the task is over and every event was sent), or timeoutMs; the events in order.
    std::vector<nlohmann::json> streamEvents(const QString& taskId, const QString& key,
                                             const QString& untilType, const QByteArray& lastEventId = {},
                                             int timeoutMs = 120000);

private:
    WarrendServer() = default;
    QNetworkRequest networkRequest(const QString& path, const QString& key) const;

    std::unique_ptr<PostgresServer> m_postgres; // none in a replica: it uses its first's
    QTemporaryDir m_data; // a replica's holds only what its process needs beside (warrenEnvironment)
    WarrendServer* m_first = nullptr; // of a replica
    QProcess m_process;
    QProcessEnvironment m_environment;
    QByteArray m_output;
    QString m_url;
    QString m_port = "0";
    QString m_tlsCertificate, m_tlsKey;
    QNetworkAccessManager m_network;
};

// A tar of directory's contents (the real tar, as a user would make it).
QByteArray tarOf(const QString& directory);

// The events' seqs, in order; and whether they are 1, 2, 3, ... (every event once, in order, from the first).
std::vector<std::uint64_t> seqsOf(const std::vector<nlohmann::json>& events);
bool dense(const std::vector<std::uint64_t>& seqs);

} // namespace warren::test
