// One request must not stall every user: the attacks of issue 30 §4 performed for real against a real
// warrend. While one user's uploads of 50,000 small files (or of deep paths) are extracted, and while
// tasks' workspaces are made from such an upload, another user's request that needs the disk too is
// answered first: the order in which answers complete is what is checked, never a time. Artifacts a task
// replaced with a FIFO, a device, a socket or a symbolic link (to /etc/passwd, to another user's file) are
// refused with a 4xx and the server keeps answering. A client that leaves mid-way loses nothing. A pax
// name longer than a file system holds is the client's fault: 400.
#include "tests/support/WarrendServer.h"
#include "tests/server/uploads/TarBuilder.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QNetworkReply>
#include <QtTest>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

using namespace warren::test;
using warren::tar::test::TarBuilder;
using nlohmann::json;

namespace {

const QByteArray kScriptFinishing = R"({"turns": [
  {"tool_calls": [{"name": "finish", "arguments": {"summary": "nothing to do"}}]}]})";

QByteArray taskBody(const QString& upload) {
    return R"({"prompt": "do it", "workspace": ")" + upload.toUtf8() + R"(", "script": )" + kScriptFinishing + "}";
}

// 50,000 one-byte files, 500 to a directory: an archive of about 50 MB that is mostly metadata.
QByteArray manySmallFiles() {
    return QByteArray::fromStdString(warren::tar::test::smallFilesArchive(100, 500));
}

// 10 chains of 2,000 nested directories ("d/d/d/..."), a file at every level: paths of up to 4,000 bytes,
// 40,000 entries.
QByteArray deepPaths() {
    TarBuilder tar;
    for (int chain = 0; chain < 10; ++chain) {
        std::string path = "c" + std::to_string(chain) + "/";
        for (int level = 0; level < 1999; ++level) {
            tar.pax({{"path", path + "f"}}).file("f", "x");
            path += "d/";
        }
    }
    return QByteArray::fromStdString(tar.finish());
}

// How many of the data directory's uploads (or workspaces) exist: the server has started their disk work.
int countUnder(const QString& dataDir, const QString& part, const QString& child = {}) {
    int count = 0;
    for (const QString& name : QDir(dataDir + "/" + part).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (child.isEmpty() || QFileInfo::exists(dataDir + "/" + part + "/" + name + "/" + child))
            ++count;
    return count;
}

} // namespace

class TestWarrendStalls : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void anotherUserIsAnsweredWhileUploadsAreExtracted_data();
    void anotherUserIsAnsweredWhileUploadsAreExtracted();
    void anotherUserIsAnsweredWhileWorkspacesAreMade();
    void aClientThatLeavesLosesNothing();
    void aCreationKilledMidCopyIsMadeByItsRetry();
    void artifactsThatAreNotFilesAreRefused_data();
    void artifactsThatAreNotFilesAreRefused();
    void aNameLongerThanAFileSystemHoldsAnswers400_data();
    void aNameLongerThanAFileSystemHoldsAnswers400();

private:
    QNetworkReply* send(const QByteArray& method, const QString& path, const QString& key, const QByteArray& body = {});
    QString smallUpload(const QString& key);
    QString bigUpload(); // alice's 50,000 files, uploaded once
    QString finishedTask(); // alice's task that ran to its end, with its resource report
    QString dataDir() const { return m_server->dataDir() + "/data"; } // warrend's --data-dir

    std::unique_ptr<WarrendServer> m_server;
    QNetworkAccessManager m_network;
    QString m_alice, m_bob;
    QString m_bigUpload, m_finishedTask;
};

void TestWarrendStalls::initTestCase() {
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    m_alice = m_server->addUser("alice");
    m_bob = m_server->addUser("bob");
    QVERIFY(m_alice.startsWith("wrn_") && m_bob.startsWith("wrn_"));
    QCOMPARE(m_server->admin({"set-quota", "--user", "alice", "--max-concurrent", "10"}).exitCode, 0);
    QVERIFY2(m_server->start(&error), qPrintable(error));
}

QNetworkReply* TestWarrendStalls::send(const QByteArray& method, const QString& path, const QString& key,
                                       const QByteArray& body) {
    QNetworkRequest request(QUrl(m_server->url() + path));
    request.setRawHeader("Authorization", "Bearer " + key.toUtf8());
    request.setHeader(QNetworkRequest::ContentTypeHeader,
                      path == "/v1/uploads" ? "application/x-tar" : "application/json");
    return m_network.sendCustomRequest(request, method, body);
}

QString TestWarrendStalls::smallUpload(const QString& key) {
    const HttpAnswer answer = m_server->request("POST", "/v1/uploads", key,
                                                QByteArray::fromStdString(TarBuilder().file("README", "hi\n").finish()),
                                                {{"Content-Type", "application/x-tar"}});
    return answer.status == 201 ? QString::fromStdString(answer.json().value("id", "")) : QString();
}

QString TestWarrendStalls::bigUpload() {
    if (m_bigUpload.isEmpty()) {
        const HttpAnswer answer =
            m_server->request("POST", "/v1/uploads", m_alice, manySmallFiles(), {{"Content-Type", "application/x-tar"}});
        if (answer.status == 201 && answer.json().value("files", 0) == 50000)
            m_bigUpload = QString::fromStdString(answer.json().value("id", ""));
    }
    return m_bigUpload;
}

QString TestWarrendStalls::finishedTask() {
    if (m_finishedTask.isEmpty()) {
        const HttpAnswer created = m_server->request("POST", "/v1/tasks", m_alice, taskBody(smallUpload(m_alice)));
        const QString id = QString::fromStdString(created.json().value("id", ""));
        const auto events = m_server->streamEvents(id, m_alice, "task_finished");
        // The artifacts are recorded as the run ends, just after its last event.
        const auto listed = [&] {
            const HttpAnswer answer = m_server->request("GET", "/v1/tasks/" + id + "/artifacts", m_alice);
            for (const auto& artifact : answer.json().value("artifacts", json::array()))
                if (artifact.value("path", "") == "resource_report.json")
                    return true;
            return false;
        };
        if (!events.empty() && events.back().value("type", "") == "task_finished" && QTest::qWaitFor(listed, 60000))
            m_finishedTask = id;
    }
    return m_finishedTask;
}

void TestWarrendStalls::anotherUserIsAnsweredWhileUploadsAreExtracted_data() {
    QTest::addColumn<QByteArray>("archive");
    QTest::newRow("50000_small_files") << manySmallFiles();
    QTest::newRow("deep_paths") << deepPaths();
}

// Alice sends three big uploads at once: two hold her share of the workers, the third waits behind them.
// Once the server extracts two, Bob's small upload (disk work too) is sent, and is answered before any of
// hers. Then hers all succeed: nothing of them was lost for being made to wait.
void TestWarrendStalls::anotherUserIsAnsweredWhileUploadsAreExtracted() {
    QFETCH(QByteArray, archive);
    const int treesBefore = countUnder(dataDir(), "uploads", "tree");
    std::vector<QNetworkReply*> hers;
    for (int i = 0; i < 3; ++i)
        hers.push_back(send("POST", "/v1/uploads", m_alice, archive));
    QVERIFY(QTest::qWaitFor([&] { return countUnder(dataDir(), "uploads", "tree") >= treesBefore + 2; },
                            120000));
    const QString bobs = smallUpload(m_bob);
    QVERIFY(!bobs.isEmpty());
    int answeredBefore = 0;
    for (QNetworkReply* reply : hers)
        answeredBefore += reply->isFinished() ? 1 : 0;
    QCOMPARE(answeredBefore, 0);
    for (QNetworkReply* reply : hers) {
        QVERIFY(QTest::qWaitFor([reply] { return reply->isFinished(); }, 300000));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 201);
        reply->deleteLater();
    }
}

// Alice creates three tasks from her 50,000-file upload at once: each workspace is a copy of its tree,
// made on a worker. Bob's small upload is answered before any of her tasks is created, and each of her
// workspaces holds the upload's every file.
void TestWarrendStalls::anotherUserIsAnsweredWhileWorkspacesAreMade() {
    const QString upload = bigUpload();
    QVERIFY(!upload.isEmpty());
    const int before = countUnder(dataDir(), "workspaces");
    std::vector<QNetworkReply*> hers;
    for (int i = 0; i < 3; ++i)
        hers.push_back(send("POST", "/v1/tasks", m_alice, taskBody(upload)));
    QVERIFY(QTest::qWaitFor([&] { return countUnder(dataDir(), "workspaces") >= before + 2; }, 120000));
    QVERIFY(!smallUpload(m_bob).isEmpty());
    int answeredBefore = 0;
    for (QNetworkReply* reply : hers)
        answeredBefore += reply->isFinished() ? 1 : 0;
    QCOMPARE(answeredBefore, 0);
    for (QNetworkReply* reply : hers) {
        QVERIFY(QTest::qWaitFor([reply] { return reply->isFinished(); }, 300000));
        const QByteArray body = reply->readAll();
        QVERIFY2(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 201, body.constData());
        const QString id = QString::fromStdString(json::parse(body.toStdString()).value("id", ""));
        const QString workspace = dataDir() + "/workspaces/" + id;
        QFile sample(workspace + "/d99/f499");
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QCOMPARE(sample.readAll(), QByteArray("x"));
        int files = 0;
        for (QDirIterator it(workspace, QDir::Files, QDirIterator::Subdirectories); it.hasNext(); it.next())
            ++files;
        QVERIFY2(files >= 50000, qPrintable(QString::number(files)));
        reply->deleteLater();
    }
}

// A task request whose client goes away while its workspace is copied: the server goes on answering, and
// the task is created all the same: the same Idempotency-Key then finds it.
void TestWarrendStalls::aClientThatLeavesLosesNothing() {
    const QString upload = bigUpload();
    QVERIFY(!upload.isEmpty());
    const int before = countUnder(dataDir(), "workspaces");
    QNetworkRequest request(QUrl(m_server->url() + "/v1/tasks"));
    request.setRawHeader("Authorization", "Bearer " + m_alice.toUtf8());
    request.setRawHeader("Idempotency-Key", "leaves-mid-copy");
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    QNetworkReply* leaving = m_network.post(request, taskBody(upload));
    QVERIFY(QTest::qWaitFor([&] { return countUnder(dataDir(), "workspaces") > before; }, 120000));
    leaving->abort();
    leaving->deleteLater();
    QCOMPARE(m_server->request("GET", "/v1/server", {}).status, 200);
    HttpAnswer again;
    QVERIFY(QTest::qWaitFor(
        [&] {
            again = m_server->request("POST", "/v1/tasks", m_alice, taskBody(upload), {{"Idempotency-Key", "leaves-mid-copy"}});
            return again.status != 409; // 409: the first request is still being handled
        },
        120000));
    QVERIFY2(again.status == 200, again.body.constData()); // the task the first request created
    const QString id = QString::fromStdString(again.json().value("id", ""));
    QCOMPARE(m_server->request("GET", "/v1/tasks/" + id, m_alice).status, 200);
}

// warrend killed with kill -9 while it copies a task's workspace, after it claimed the request's
// Idempotency-Key and before it recorded the task: the key stood for a task that would never exist, and every
// retry was answered 409 "still being handled" for a day. The restarted warrend sees that the claim's replica
// is gone: the retry takes the key over and creates the task, and what the dead creation left is removed.
void TestWarrendStalls::aCreationKilledMidCopyIsMadeByItsRetry() {
    const QString upload = bigUpload();
    QVERIFY(!upload.isEmpty());
    const auto workspaces = [this] {
        return QDir(dataDir() + "/workspaces").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    };
    const QStringList before = workspaces();
    const QList<std::pair<QByteArray, QByteArray>> key{{"Idempotency-Key", "killed-mid-copy"}};
    QNetworkRequest request(QUrl(m_server->url() + "/v1/tasks"));
    request.setRawHeader("Authorization", "Bearer " + m_alice.toUtf8());
    request.setRawHeader("Idempotency-Key", "killed-mid-copy");
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    QNetworkReply* killed = m_network.post(request, taskBody(upload));
    QVERIFY(QTest::qWaitFor([&] { return workspaces().size() > before.size(); }, 120000)); // copying
    m_server->kill();
    killed->abort();
    killed->deleteLater();
    QString error;
    QVERIFY2(m_server->start(&error, {}, true), qPrintable(error));

    const HttpAnswer again = m_server->request("POST", "/v1/tasks", m_alice, taskBody(upload), key);
    QVERIFY2(again.status == 201, again.body.constData()); // made now: not "still being handled"
    const QString id = QString::fromStdString(again.json().value("id", ""));
    const HttpAnswer replay = m_server->request("POST", "/v1/tasks", m_alice, taskBody(upload), key);
    QCOMPARE(replay.status, 200);
    QCOMPARE(QString::fromStdString(replay.json().value("id", "")), id);
    QCOMPARE(m_server->request("GET", "/v1/tasks/" + id, m_alice).status, 200);
    // The half-copied workspace of the task that never was goes; the new task's stays.
    QVERIFY(QTest::qWaitFor(
        [&] {
            QStringList made = workspaces();
            for (const QString& name : before)
                made.removeAll(name);
            return made == QStringList{id};
        },
        120000));
}

void TestWarrendStalls::artifactsThatAreNotFilesAreRefused_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("fifo") << "fifo";
    QTest::newRow("symlink_to_etc_passwd") << "passwd";
    QTest::newRow("symlink_to_another_users_file") << "bobs";
    QTest::newRow("char_device") << "device";
    QTest::newRow("socket") << "socket";
    QTest::newRow("directory") << "directory";
}

// What a later run of the task could leave under the name its record lists (the test plays that run, as
// root on the server's data directory): never read, a 4xx that says why, and the server answers on.
void TestWarrendStalls::artifactsThatAreNotFilesAreRefused() {
    QFETCH(QString, kind);
    const QString task = finishedTask();
    QVERIFY(!task.isEmpty());
    const QString path = dataDir() + "/tasks/" + task + "/output/resource_report.json";
    if (QFileInfo(path).isFile() && !QFileInfo(path).isSymLink()) // as the run left it: served
        QCOMPARE(m_server->request("GET", "/v1/tasks/" + task + "/artifacts/resource_report.json", m_alice).status, 200);
    QDir().remove(path);
    QDir(path).removeRecursively();
    const std::string at = path.toStdString();
    int socketFd = -1;
    if (kind == "fifo") {
        QVERIFY(::mkfifo(at.c_str(), 0666) == 0);
    } else if (kind == "passwd") {
        QVERIFY(::symlink("/etc/passwd", at.c_str()) == 0);
    } else if (kind == "bobs") {
        const QString bobs = smallUpload(m_bob);
        QVERIFY(!bobs.isEmpty());
        const QString target = dataDir() + "/uploads/" + bobs + "/tree/README";
        QVERIFY(QFileInfo::exists(target));
        QVERIFY(::symlink(target.toStdString().c_str(), at.c_str()) == 0);
    } else if (kind == "device") {
        if (::mknod(at.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP("cannot make a device node here (no CAP_MKNOD)");
    } else if (kind == "socket") {
        socketFd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        QVERIFY(at.size() < sizeof address.sun_path);
        std::strncpy(address.sun_path, at.c_str(), sizeof address.sun_path - 1);
        QVERIFY(::bind(socketFd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    } else if (kind == "directory") {
        QVERIFY(QDir().mkpath(path));
    }
    const HttpAnswer answer =
        m_server->request("GET", "/v1/tasks/" + task + "/artifacts/resource_report.json", m_alice);
    if (socketFd >= 0)
        ::close(socketFd);
    QVERIFY2(answer.status == 422, qPrintable(QString::number(answer.status) + " " + answer.body));
    QCOMPARE(answer.errorCode(), QString("not_a_regular_file"));
    QVERIFY2(!answer.body.contains("root:"), answer.body.constData());
    QCOMPARE(m_server->request("GET", "/v1/server", {}).status, 200);
    QCOMPARE(m_server->request("GET", "/v1/tasks/" + task, m_alice).status, 200);
}

void TestWarrendStalls::aNameLongerThanAFileSystemHoldsAnswers400_data() {
    QTest::addColumn<QByteArray>("archive");
    const auto withPath = [](const std::string& path) {
        return QByteArray::fromStdString(TarBuilder().pax({{"path", path}}).file("harmless", "x").finish());
    };
    QTest::newRow("300_byte_pax_name") << withPath(std::string(300, 'a'));
    QTest::newRow("300_byte_pax_directory_name") << withPath(std::string(300, 'd') + "/file");
    QTest::newRow("256_byte_pax_name_in_a_directory") << withPath("src/" + std::string(256, 'n'));
}

void TestWarrendStalls::aNameLongerThanAFileSystemHoldsAnswers400() {
    QFETCH(QByteArray, archive);
    const HttpAnswer answer =
        m_server->request("POST", "/v1/uploads", m_alice, archive, {{"Content-Type", "application/x-tar"}});
    QVERIFY2(answer.status == 400, qPrintable(QString::number(answer.status) + " " + answer.body));
    QCOMPARE(answer.errorCode(), QString("invalid_upload"));
    QVERIFY2(answer.body.contains("at most 255 bytes"), answer.body.constData());
}

QTEST_GUILESS_MAIN(TestWarrendStalls)
#include "tst_warrend_stalls.moc"
