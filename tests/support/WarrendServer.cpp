#include "tests/support/WarrendServer.h"

#include "common/RemoveTree.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QNetworkReply>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTimer>
#include <csignal>
#include <sys/prctl.h>

namespace warren::test {

namespace {

constexpr int kAnswerTimeoutMs = 60000;

} // namespace

QString warrendBinary() {
    return QProcessEnvironment::systemEnvironment().value("WARREN_WARREND");
}

nlohmann::json HttpAnswer::json() const {
    return nlohmann::json::parse(body.toStdString(), nullptr, false);
}

QByteArray HttpAnswer::header(const QByteArray& name) const {
    for (const auto& [key, value] : headers)
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    return {};
}

QString HttpAnswer::errorCode() const {
    const nlohmann::json parsed = json();
    return parsed.is_object() && parsed.contains("error") && parsed["error"].is_object()
               ? QString::fromStdString(parsed["error"].value("code", ""))
               : QString();
}

std::unique_ptr<WarrendServer> WarrendServer::create(QString* error) {
    std::unique_ptr<WarrendServer> server(new WarrendServer());
    server->m_postgres = PostgresServer::start(error);
    if (!server->m_postgres)
        return nullptr;
    return server;
}

std::unique_ptr<WarrendServer> WarrendServer::replicaOf(WarrendServer& first) {
    std::unique_ptr<WarrendServer> server(new WarrendServer());
    server->m_first = &first;
    return server;
}

WarrendServer::~WarrendServer() {
    stop();
    if (m_first)
        return; // the data directory is the first's
    // What the test's uploads and workspaces left (hundreds of thousands of files, paths past PATH_MAX) goes
    // a directory descriptor at a time, as warrend removes them: QTemporaryDir hands the kernel whole paths,
    // which is quadratic in the depth (minutes on a loaded machine) and fails past PATH_MAX.
    (void)files::removeTree(m_data.path().toStdString() + "/data");
}

AdminResult WarrendServer::admin(const QStringList& args, const QByteArray& input) {
    QProcess process;
    if (input.isEmpty())
        process.setStandardInputFile(QProcess::nullDevice());
    process.start(warrendBinary(), QStringList{"admin", "--database", databaseUrl()} + args);
    if (!input.isEmpty()) {
        process.write(input);
        process.closeWriteChannel();
    }
    AdminResult result;
    if (!process.waitForFinished(kAnswerTimeoutMs))
        return result;
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

QString WarrendServer::addUser(const QString& name, const QString& tenant) {
    const AdminResult added = admin({"add-user", name, "--tenant", tenant});
    return added.exitCode == 0 ? QString::fromUtf8(added.out).trimmed() : QString();
}

void WarrendServer::useTls(const QString& certificate, const QString& key) {
    m_tlsCertificate = certificate;
    m_tlsKey = key;
}

bool WarrendServer::start(QString* error, const QStringList& extra, bool samePort) {
    m_output.clear();
    QStringList tls;
    if (!m_tlsCertificate.isEmpty())
        tls = {"--tls-cert", m_tlsCertificate, "--tls-key", m_tlsKey};
    QProcessEnvironment environment = warrenEnvironment(m_data.path()); // the agent a sanitizer build needs
    environment.insert(m_environment);
    m_process.setProcessEnvironment(environment);
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    m_process.setStandardInputFile(QProcess::nullDevice());
    // A test killed without its destructors (QtTest's watchdog) takes its warrend with it.
    m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    if (!samePort)
        m_port = "0";
    m_process.start(warrendBinary(), QStringList{"serve", "--listen", "127.0.0.1:" + m_port, "--database",
                                                 databaseUrl(), "--data-dir", dataDir() + "/data"} +
                                         tls + extra);
    static const QRegularExpression listening("listening on ([0-9.]+):([0-9]+)");
    while (m_process.waitForReadyRead(kAnswerTimeoutMs)) {
        m_output += m_process.readAll();
        const auto match = listening.match(QString::fromUtf8(m_output));
        if (match.hasMatch()) {
            m_port = match.captured(2);
            m_url = (tls.isEmpty() ? "http://" : "https://") + match.captured(1) + ":" + m_port;
            return true;
        }
    }
    m_process.waitForFinished(1000);
    m_output += m_process.readAll();
    *error = "warrend serve did not say it listens: " + QString::fromUtf8(m_output);
    return false;
}

int WarrendServer::exitCode() {
    if (m_process.state() != QProcess::NotRunning || m_process.exitStatus() != QProcess::NormalExit)
        return -1;
    return m_process.exitCode();
}

void WarrendServer::kill() {
    if (m_process.state() == QProcess::NotRunning)
        return;
    ::kill(static_cast<pid_t>(m_process.processId()), SIGKILL);
    m_process.waitForFinished(kAnswerTimeoutMs);
    m_output += m_process.readAll();
}

void WarrendServer::stop() {
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(kAnswerTimeoutMs))
        kill();
    m_output += m_process.readAll();
}

QByteArray WarrendServer::serverOutput() {
    m_output += m_process.readAll();
    return m_output;
}

void WarrendServer::setEnvironment(const QString& name, const QString& value) {
    m_environment.insert(name, value);
}

bool WarrendServer::waitForOutput(const QByteArray& text, int timeoutMs) {
    while (!serverOutput().contains(text)) {
        if (!m_process.waitForReadyRead(timeoutMs))
            return false;
    }
    return true;
}

QNetworkRequest WarrendServer::networkRequest(const QString& path, const QString& key) const {
    QNetworkRequest request(QUrl(m_url + path));
    if (!key.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + key.toUtf8());
    if (!m_tlsCertificate.isEmpty()) {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates(QSslCertificate::fromPath(m_tlsCertificate));
        request.setSslConfiguration(tls);
    }
    return request;
}

QString WarrendServer::upload(const QString& key, const QString& directory) {
    const HttpAnswer answer =
        request("POST", "/v1/uploads", key, tarOf(directory), {{"Content-Type", "application/x-tar"}});
    if (answer.status != 201)
        qWarning() << "upload:" << answer.status << answer.error << answer.body;
    return QString::fromStdString(answer.json().value("id", ""));
}

QString WarrendServer::uploadProject(const QString& key, const QString& scratch) {
    static int made = 0;
    const QString directory = scratch + "/project" + QString::number(++made);
    QDir().mkpath(directory);
    QFile readme(directory + "/README.md");
    if (!readme.open(QIODevice::WriteOnly) || readme.write("# project\n") < 0)
        qWarning() << "cannot write" << readme.fileName();
    readme.close();
    return upload(key, directory);
}

QString WarrendServer::createTask(const QString& key, const QByteArray& body) {
    const HttpAnswer created = request("POST", "/v1/tasks", key, body);
    if (created.status != 201)
        qWarning() << "POST /v1/tasks:" << created.status << created.body;
    return QString::fromStdString(created.json().value("id", ""));
}

HttpAnswer WarrendServer::request(const QByteArray& method, const QString& path, const QString& key,
                                  const QByteArray& body,
                                  const QList<std::pair<QByteArray, QByteArray>>& headers) {
    QNetworkRequest request = networkRequest(path, key);
    for (const auto& [name, value] : headers)
        request.setRawHeader(name, value);
    if (!body.isEmpty() && !request.hasRawHeader("Content-Type"))
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    QNetworkReply* reply = m_network.sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(kAnswerTimeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    HttpAnswer answer;
    answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (answer.status == 0)
        answer.error = reply->errorString();
    answer.body = reply->readAll();
    for (const auto& pair : reply->rawHeaderPairs())
        answer.headers.append(pair);
    reply->abort();
    reply->deleteLater();
    return answer;
}

std::vector<nlohmann::json> WarrendServer::streamEvents(const QString& taskId, const QString& key,
                                                        const QString& untilType,
                                                        const QByteArray& lastEventId, int timeoutMs) {
    QNetworkRequest request = networkRequest("/v1/tasks/" + taskId + "/events/stream", key);
    if (!lastEventId.isEmpty())
        request.setRawHeader("Last-Event-ID", lastEventId);
    QNetworkReply* reply = m_network.get(request);
    std::vector<nlohmann::json> events;
    QByteArray buffer;
    QEventLoop loop;
    bool arrived = false; // the event asked for: what came after it in the same read is not returned
    const auto take = [&] {
        buffer += reply->readAll();
        qsizetype end = 0;
        while (!arrived && (end = buffer.indexOf("\n\n")) >= 0) {
            const QByteArray frame = buffer.left(end);
            buffer.remove(0, end + 2);
            for (const QByteArray& line : frame.split('\n')) {
                if (!line.startsWith("data: "))
                    continue;
                events.push_back(nlohmann::json::parse(line.mid(6).toStdString(), nullptr, false));
                if (!untilType.isEmpty() &&
                    events.back().value("type", std::string()) == untilType.toStdString()) {
                    arrived = true;
                    loop.quit();
                }
            }
        }
    };
    QObject::connect(reply, &QNetworkReply::readyRead, &loop, take);
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    reply->abort();
    reply->deleteLater();
    return events;
}

QByteArray tarOf(const QString& directory) {
    QProcess tar;
    tar.start("tar", {"-C", directory, "-cf", "-", "."});
    tar.waitForFinished(kAnswerTimeoutMs);
    return tar.readAllStandardOutput();
}

std::vector<std::uint64_t> seqsOf(const std::vector<nlohmann::json>& events) {
    std::vector<std::uint64_t> seqs;
    for (const auto& event : events)
        seqs.push_back(event.value("seq", std::uint64_t{0}));
    return seqs;
}

bool dense(const std::vector<std::uint64_t>& seqs) {
    for (std::size_t i = 0; i < seqs.size(); ++i)
        if (seqs[i] != i + 1)
            return false;
    return true;
}

} // namespace warren::test
