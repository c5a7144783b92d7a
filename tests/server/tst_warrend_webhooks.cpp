// A user's webhooks against a real warrend on its own PostgreSQL, with a receiver on this machine's loopback:
// registered (the secret shown once, never listed; another user sees and removes none of them), then a real
// task's lifecycle delivered (created, started, finished; an attended one's waiting) signed with the hook's
// secret, an attempt the receiver answers 500 retried with the same delivery id and body, nothing of the
// operator's sent; what a server killed with kill -9 kept undelivered sent by the next one. And the attacks:
// the receiver is inside the server's host, so without the operator's --allow-internal a loopback URL is
// refused at registration (every way of writing it), a hook registered while it was allowed is refused at
// delivery, and a name that resolves to loopback (this machine's host name) passes registration and is
// refused when it is resolved at delivery, the receiver reached by neither.
#include "app/store/postgres/PgConnection.h"
#include "app/wire/WebhookBody.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QHostInfo>
#include <QMessageAuthenticationCode>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <deque>

using namespace warren;
using namespace warren::test;
using nlohmann::json;

namespace {

struct Received {
    QByteArray requestLine;
    QHash<QByteArray, QByteArray> headers; // names lowercase
    QByteArray body;
    int answered = 0;
};

// An HTTP receiver on 127.0.0.1: answers each request with the next status of `statuses` (204 when none is
// left) and keeps what it received.
class Receiver : public QObject {
public:
    Receiver() {
        m_server.listen(QHostAddress::LocalHost);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { read(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, [this, socket] {
                    m_pending.remove(socket);
                    socket->deleteLater();
                });
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    std::deque<int> statuses;
    std::vector<Received> received;

private:
    void read(QTcpSocket* socket) {
        QByteArray& bytes = m_pending[socket];
        bytes += socket->readAll();
        const qsizetype end = bytes.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        Received request;
        const QList<QByteArray> lines = bytes.left(end).split('\n');
        request.requestLine = lines.value(0).trimmed();
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                request.headers.insert(lines[i].left(colon).trimmed().toLower(),
                                       lines[i].mid(colon + 1).trimmed());
        }
        const qsizetype length = request.headers.value("content-length").toLongLong();
        if (bytes.size() < end + 4 + length)
            return;
        request.body = bytes.mid(end + 4, length);
        request.answered = statuses.empty() ? 204 : statuses.front();
        if (!statuses.empty())
            statuses.pop_front();
        received.push_back(request);
        socket->write("HTTP/1.1 " + QByteArray::number(request.answered) +
                      " X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    QHash<QTcpSocket*, QByteArray> m_pending;
};

QByteArray finishScript() {
    const json finish{{"name", "finish"}, {"arguments", {{"summary", "done"}}}};
    return QByteArray::fromStdString(
        json{{"turns", json::array({{{"tool_calls", json::array({finish})}}})}}.dump());
}

QByteArray hookBody(const QString& url) {
    return QByteArray::fromStdString(json{{"url", url.toStdString()}}.dump());
}

} // namespace

class TestWarrendWebhooks : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QString error;
        m_server = WarrendServer::create(&error);
        QVERIFY2(m_server, qPrintable(error));
        m_alice = m_server->addUser("alice");
        m_bob = m_server->addUser("bob");
        QVERIFY(QDir().mkpath(m_scratch.filePath("ws")));
        m_hookUrl = "http://127.0.0.1:" + QString::number(m_receiver.port()) + "/hook?from=warren";
    }

    void cleanupTestCase() {
        if (m_server)
            m_server->stop();
    }

    void deliversSignedLifecycleEvents() {
        QString error;
        QVERIFY2(
            m_server->start(&error, {"--allow-internal", "127.0.0.1:" + QString::number(m_receiver.port())}),
            qPrintable(error));
        const HttpAnswer added = m_server->request("POST", "/v1/me/webhooks", m_alice, hookBody(m_hookUrl));
        QCOMPARE(added.status, 201);
        const json hook = added.json();
        m_hookId = QString::fromStdString(hook.value("id", ""));
        const std::string secret = hook.value("secret", "");
        QVERIFY2(secret.starts_with("whsec_") && secret.size() == 70, added.body.constData());
        QCOMPARE(hook["events"].size(), std::size_t(4)); // every event when none is named
        QVERIFY(hook.value("created_at", "").ends_with("Z"));

        // Listed without its secret; another user neither sees nor removes it.
        const HttpAnswer listed = m_server->request("GET", "/v1/me/webhooks", m_alice);
        QCOMPARE(listed.status, 200);
        QCOMPARE(listed.json()["webhooks"].size(), std::size_t(1));
        QVERIFY(!listed.body.contains(QByteArray::fromStdString(secret)));
        QVERIFY(!listed.json()["webhooks"][0].contains("secret"));
        QCOMPARE(m_server->request("GET", "/v1/me/webhooks", m_bob).json()["webhooks"].size(),
                 std::size_t(0));
        QCOMPARE(m_server->request("DELETE", "/v1/me/webhooks/" + m_hookId, m_bob).status, 404);

        // A real task; the receiver refuses the first delivery (500), which comes again.
        m_receiver.statuses = {500};
        const std::string taskId = runFinishingTask();
        QVERIFY(!taskId.empty());
        const auto deliveredTypes = [this] {
            QStringList types;
            for (const Received& request : m_receiver.received)
                if (request.answered < 300)
                    types << QString::fromUtf8(request.headers.value("warren-event"));
            return types;
        };
        QTRY_VERIFY_WITH_TIMEOUT(deliveredTypes().contains("task.finished"), 120000);
        QCOMPARE(deliveredTypes(), QStringList({"task.created", "task.started", "task.finished"}));

        for (const Received& request : m_receiver.received) {
            QVERIFY2(request.requestLine.startsWith("POST /hook?from=warren HTTP/1.1"),
                     request.requestLine.constData());
            const QByteArray expected =
                "sha256=" + QMessageAuthenticationCode::hash(request.body, QByteArray::fromStdString(secret),
                                                             QCryptographicHash::Sha256)
                                .toHex();
            QCOMPARE(request.headers.value("warren-signature"), expected);
            const auto delivery = wire::WebhookDelivery::fromJson(request.body.toStdString());
            QVERIFY2(delivery, request.body.constData());
            QCOMPARE(request.headers.value("warren-delivery"), QByteArray::fromStdString(delivery->id));
            QCOMPARE(request.headers.value("warren-timestamp"),
                     QByteArray::fromStdString(delivery->createdAt));
            QCOMPARE(delivery->taskId, taskId);
            QCOMPARE(request.headers.value("content-type"), QByteArray("application/json"));
            // Nothing of the operator's or the user's key, no cookie.
            QVERIFY(!request.headers.contains("authorization") && !request.headers.contains("cookie"));
            QVERIFY(!request.body.contains(m_alice.toUtf8()));
        }
        // The refused attempt and its retry: the same delivery, byte for byte.
        QVERIFY(m_receiver.received.size() >= 4);
        QCOMPARE(m_receiver.received[0].answered, 500);
        QCOMPARE(m_receiver.received[1].body, m_receiver.received[0].body);
        QCOMPARE(m_receiver.received[1].headers.value("warren-delivery"),
                 m_receiver.received[0].headers.value("warren-delivery"));
        const auto finished = wire::WebhookDelivery::fromJson(m_receiver.received.back().body.toStdString());
        QVERIFY(finished);
        QCOMPARE(finished->status, std::string("succeeded"));

        const json counts =
            m_server->request("GET", "/v1/me/webhooks", m_alice).json()["webhooks"][0]["deliveries"];
        QCOMPARE(counts.value("delivered", 0), 3);
        QCOMPARE(counts.value("failed", 0), 0);

        // An attended task whose model answers without a tool call waits for its user: task.waiting.
        const json waiting{{"prompt", "ask me"},
                           {"workspace", m_server->upload(m_alice, m_scratch.filePath("ws")).toStdString()},
                           {"attended", true},
                           {"script", {{"turns", json::array({{{"content", "Which file?"}}})}}}};
        const HttpAnswer asked =
            m_server->request("POST", "/v1/tasks", m_alice, QByteArray::fromStdString(waiting.dump()));
        QCOMPARE(asked.status, 201);
        QTRY_VERIFY_WITH_TIMEOUT(deliveredTypes().contains("task.waiting"), 120000);
        const auto waited = wire::WebhookDelivery::fromJson(m_receiver.received.back().body.toStdString());
        QVERIFY(waited);
        QCOMPARE(waited->taskId, asked.json().value("id", ""));
        QCOMPARE(waited->status, std::string("waiting"));
        m_server->stop();
    }

    // At least once across a kill -9: what the server kept and had not delivered (a receiver answering 500)
    // is sent by the next one when it starts, the same deliveries with the same ids and bytes, in order.
    void aKilledServerSendsWhatItKept() {
        QString error;
        const QStringList allow{"--allow-internal", "127.0.0.1:" + QString::number(m_receiver.port())};
        QVERIFY2(m_server->start(&error, allow), qPrintable(error));
        m_receiver.statuses.assign(1000, 500);
        const std::string taskId = runFinishingTask();
        QVERIFY(!taskId.empty());
        const auto ofTask = [this, taskId](bool delivered) {
            std::vector<Received> found;
            for (const Received& request : m_receiver.received) {
                const auto delivery = wire::WebhookDelivery::fromJson(request.body.toStdString());
                if (delivery && delivery->taskId == taskId && (request.answered < 300) == delivered)
                    found.push_back(request);
            }
            return found;
        };
        QTRY_VERIFY_WITH_TIMEOUT(!ofTask(false).empty(), 60000); // task.created refused by the receiver
        const Received refused = ofTask(false).front();
        m_server->kill();

        m_receiver.statuses.clear(); // 204 from now on
        QVERIFY2(m_server->start(&error, allow, true), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(ofTask(true).size(), std::size_t(3), 60000);
        const std::vector<Received> delivered = ofTask(true);
        QCOMPARE(delivered[0].headers.value("warren-delivery"), refused.headers.value("warren-delivery"));
        QCOMPARE(delivered[0].body, refused.body);
        QCOMPARE(delivered[0].headers.value("warren-signature"), refused.headers.value("warren-signature"));
        QStringList types;
        for (const Received& request : delivered)
            types << QString::fromUtf8(request.headers.value("warren-event"));
        QCOMPARE(types, QStringList({"task.created", "task.started", "task.finished"}));
        // Each delivered one is forgotten: nothing is left to send again.
        auto database = control::PgConnection::open(m_server->databaseUrl().toStdString());
        QVERIFY(database);
        const auto waiting = [&database] {
            auto rows = database->exec("count", "SELECT count(*) FROM webhook_deliveries");
            return rows ? rows->rows.at(0).uint(0) : std::uint64_t(99);
        };
        QTRY_COMPARE_WITH_TIMEOUT(waiting(), std::uint64_t(0), 30000);
        m_server->stop();
    }

    void refusesInsideWithoutTheOperatorsWord() {
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error)); // no --allow-internal
        const QString port = QString::number(m_receiver.port());
        for (const QString& url :
             QStringList{"http://127.0.0.1:" + port + "/hook", "http://localhost:" + port + "/hook",
                         "http://[::ffff:127.0.0.1]:" + port + "/hook", "http://[::1]:" + port + "/hook",
                         "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/hook",
                         "ftp://127.0.0.1/hook", "https://user:pass@example.com/hook"}) {
            const HttpAnswer refused = m_server->request("POST", "/v1/me/webhooks", m_alice, hookBody(url));
            QVERIFY2(refused.status == 400, qPrintable(url + ": " + QString::fromUtf8(refused.body)));
        }
        QCOMPARE(m_server
                     ->request("POST", "/v1/me/webhooks", m_alice,
                               "{\"url\": \"https://example.com\", \"extra\": 1}")
                     .status,
                 400);

        // This machine's host name resolves to loopback here: it passes registration (a name is not resolved
        // then) and is refused where it is resolved, at delivery.
        const QString host = QHostInfo::localHostName();
        const QHostInfo resolved = QHostInfo::fromName(host);
        if (resolved.addresses().isEmpty() || !resolved.addresses().first().isLoopback())
            QSKIP("this machine's host name does not resolve to a loopback address: no name to attack with");
        const HttpAnswer byName = m_server->request("POST", "/v1/me/webhooks", m_alice,
                                                    hookBody("http://" + host + ":" + port + "/hook"));
        QCOMPARE(byName.status, 201);
        const QString byNameId = QString::fromStdString(byName.json().value("id", ""));

        const std::size_t before = m_receiver.received.size();
        QVERIFY(!runFinishingTask().empty());
        const auto deliveriesOf = [this](const QString& id) {
            const json listed = m_server->request("GET", "/v1/me/webhooks", m_alice).json();
            for (const json& hook : listed["webhooks"])
                if (hook.value("id", "") == id.toStdString())
                    return hook["deliveries"];
            return json::object();
        };
        // Every event of the task refused for both: the one registered with the operator's word, and the
        // name.
        QTRY_VERIFY2_WITH_TIMEOUT(
            deliveriesOf(m_hookId).value("failed", 0) >= 3 && deliveriesOf(byNameId).value("failed", 0) >= 3,
            m_server->request("GET", "/v1/me/webhooks", m_alice).body.constData(), 60000);
        QVERIFY2(deliveriesOf(byNameId).value("last_error", "").find("refused") != std::string::npos,
                 deliveriesOf(byNameId).dump().c_str());
        QVERIFY2(deliveriesOf(m_hookId).value("last_error", "").find("--allow-internal") != std::string::npos,
                 deliveriesOf(m_hookId).dump().c_str());
        QCOMPARE(deliveriesOf(byNameId).value("delivered", 0), 0);
        QCOMPARE(m_receiver.received.size(), before); // nothing reached it

        m_server->stop();
    }

    void removedAndBounded() {
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        const json listed = m_server->request("GET", "/v1/me/webhooks", m_alice).json();
        for (const json& hook : listed["webhooks"])
            QCOMPARE(m_server
                         ->request("DELETE",
                                   "/v1/me/webhooks/" + QString::fromStdString(hook.value("id", "")), m_alice)
                         .status,
                     204);
        QCOMPARE(m_server->request("GET", "/v1/me/webhooks", m_alice).json()["webhooks"].size(),
                 std::size_t(0));
        QCOMPARE(m_server->request("DELETE", "/v1/me/webhooks/" + m_hookId, m_alice).status, 404);
        for (int i = 0; i < 10; ++i)
            QCOMPARE(m_server
                         ->request("POST", "/v1/me/webhooks", m_bob,
                                   hookBody("https://hooks.example.com/" + QString::number(i)))
                         .status,
                     201);
        const HttpAnswer eleventh =
            m_server->request("POST", "/v1/me/webhooks", m_bob, hookBody("https://hooks.example.com/x"));
        QCOMPARE(eleventh.status, 409);
        m_server->stop();
    }

private:
    // alice's task of one finish call on the workspace's upload, run to its task_finished: its id, or empty
    // when it was not created (201).
    std::string runFinishingTask() {
        const QString upload = m_server->upload(m_alice, m_scratch.filePath("ws"));
        const json task{{"prompt", "finish"},
                        {"workspace", upload.toStdString()},
                        {"script", json::parse(finishScript().toStdString())}};
        const HttpAnswer created =
            m_server->request("POST", "/v1/tasks", m_alice, QByteArray::fromStdString(task.dump()));
        if (created.status != 201)
            return {};
        const std::string taskId = created.json().value("id", "");
        m_server->streamEvents(QString::fromStdString(taskId), m_alice, "task_finished");
        return taskId;
    }

    QTemporaryDir m_scratch;
    std::unique_ptr<WarrendServer> m_server;
    Receiver m_receiver;
    QString m_alice, m_bob, m_hookUrl, m_hookId;
};

QTEST_GUILESS_MAIN(TestWarrendWebhooks)
#include "tst_warrend_webhooks.moc"
