// The API server double's wire, checked with the real kubectl: kubectl reads its discovery documents,
// creates, gets, lists (by label too), watches (with --output-watch-events), reads a pod's log and deletes
// through it, and reports its AlreadyExists, Invalid, NotFound and Unauthorized answers as it would a
// cluster's. What kubectl accepts
// here is what the cluster client's tests (tst_kube_cluster) rely on the double to get right. Skips, saying
// so, where kubectl is not installed (Debian 12 does not package it).
#include "tests/kube/KubeTestFiles.h"
#include "tests/support/KubeApiDouble.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestKubeApiDouble : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void kubectlReadsDiscoveryAndVersion();
    void kubectlCreatesGetsAndDeletes();
    void kubectlReportsTheDoublesErrors();
    void kubectlWatchesEvents();
    void kubectlListsSandboxes();
    void kubectlReadsAPodsLog();
    void kubectlSelectsByLabel();
    void kubectlIsRefusedWithoutTheToken();

private:
    QString writeKubeconfig(const QString& name, const QString& token);
    Run kubectl(const QStringList& arguments, const QString& kubeconfig = {});
    QString writeJson(const QString& name, const json& object);

    QString m_kubectl;
    QTemporaryDir m_dir;
    QString m_kubeconfig;
    std::unique_ptr<KubeApiDouble> m_api;
};

void TestKubeApiDouble::initTestCase() {
    m_kubectl = QStandardPaths::findExecutable("kubectl");
    if (m_kubectl.isEmpty())
        QSKIP("kubectl is not installed (not packaged in Debian 12): the double's wire is not checked against it");
    if (QStandardPaths::findExecutable("openssl").isEmpty())
        QSKIP("needs openssl to make the double's certificate (packaging/install-deps.sh)");
    QVERIFY(m_dir.isValid());
    QVERIFY(makeCertificate(m_dir.filePath("cert.pem"), m_dir.filePath("key.pem")));
    QString error;
    m_api = KubeApiDouble::start({m_dir.filePath("cert.pem"), m_dir.filePath("key.pem"), "double-token", true}, &error);
    QVERIFY2(m_api, qPrintable(error));
    m_kubeconfig = writeKubeconfig("kubeconfig", "double-token");
}

QString TestKubeApiDouble::writeKubeconfig(const QString& name, const QString& token) {
    return warren::test::writeKubeconfig(m_dir.filePath(name), m_api->url(), m_dir.filePath("cert.pem"), token, "wire");
}

QString TestKubeApiDouble::writeJson(const QString& name, const json& object) {
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QByteArray::fromStdString(object.dump(2)));
    return path;
}

Run TestKubeApiDouble::kubectl(const QStringList& arguments, const QString& kubeconfig) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("HOME", m_dir.path()); // its discovery cache goes here, not into the user's
    environment.remove("KUBECONFIG");
    process.setProcessEnvironment(environment);
    process.start(m_kubectl, QStringList{"--kubeconfig", kubeconfig.isEmpty() ? m_kubeconfig : kubeconfig,
                                         "--cache-dir", m_dir.filePath("cache")} +
                                 arguments);
    Run run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = "kubectl did not finish";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

void TestKubeApiDouble::kubectlReadsDiscoveryAndVersion() {
    const Run version = kubectl({"version", "-o", "json"});
    QVERIFY2(version.exitCode == 0, qPrintable(version.err));
    const json document = json::parse(version.out.toStdString(), nullptr, false);
    QCOMPARE(document["serverVersion"]["gitVersion"], json("v1.32.0"));
    const Run resources = kubectl({"api-resources", "--no-headers", "-o", "name"});
    QVERIFY2(resources.exitCode == 0, qPrintable(resources.err));
    for (const char* name : {"pods", "secrets", "networkpolicies.networking.k8s.io", "sandboxes.agents.x-k8s.io"})
        QVERIFY2(resources.out.split('\n').contains(name), qPrintable(resources.out));
}

void TestKubeApiDouble::kubectlCreatesGetsAndDeletes() {
    const QString pod = writeJson("pod.json", podObject("wire-a"));
    const Run created = kubectl({"create", "-f", pod, "--validate=false"});
    QVERIFY2(created.exitCode == 0, qPrintable(created.err));
    QCOMPARE(created.out.trimmed(), QString("pod/wire-a created"));
    QVERIFY(m_api->object("pods", "wire", "wire-a"));

    const Run got = kubectl({"get", "pod", "wire-a", "-o", "json"});
    QVERIFY2(got.exitCode == 0, qPrintable(got.err));
    const json object = json::parse(got.out.toStdString(), nullptr, false);
    QCOMPARE(object["metadata"]["name"], json("wire-a"));
    QCOMPARE(object["metadata"]["namespace"], json("wire"));
    QCOMPARE(object["status"]["phase"], json("Pending"));

    const Run listed = kubectl({"get", "pods", "-o", "json"});
    QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
    const json list = json::parse(listed.out.toStdString(), nullptr, false);
    QCOMPARE(list["items"].size(), std::size_t(1));

    const Run deleted = kubectl({"delete", "pod", "wire-a"});
    QVERIFY2(deleted.exitCode == 0, qPrintable(deleted.err));
    QCOMPARE(deleted.out.trimmed(), QString("pod \"wire-a\" deleted"));
    QVERIFY(!m_api->object("pods", "wire", "wire-a"));
    const QStringList requests = m_api->requests();
    QVERIFY(std::any_of(requests.begin(), requests.end(),
                        [](const QString& r) { return r.startsWith("DELETE /api/v1/namespaces/wire/pods/wire-a"); }));
}

void TestKubeApiDouble::kubectlReportsTheDoublesErrors() {
    const QString pod = writeJson("pod-b.json", podObject("wire-b"));
    QCOMPARE(kubectl({"create", "-f", pod, "--validate=false"}).exitCode, 0);
    const Run again = kubectl({"create", "-f", pod, "--validate=false"});
    QVERIFY(again.exitCode != 0);
    QVERIFY2(again.err.contains("AlreadyExists") && again.err.contains("pods \"wire-b\" already exists"),
             qPrintable(again.err));

    json invalid = podObject("wire-c");
    invalid["spec"].erase("containers");
    const Run refused = kubectl({"create", "-f", writeJson("pod-c.json", invalid), "--validate=false"});
    QVERIFY(refused.exitCode != 0);
    QVERIFY2(refused.err.contains("is invalid") && refused.err.contains("spec.containers: Required value"),
             qPrintable(refused.err));

    const Run missing = kubectl({"get", "pod", "wire-none", "-o", "json"});
    QVERIFY(missing.exitCode != 0);
    // kubectl says NotFound; for a GET it prints its own sentence, not the Status's message.
    QVERIFY2(missing.err.contains("(NotFound)"), qPrintable(missing.err));
    QCOMPARE(kubectl({"delete", "pod", "wire-b"}).exitCode, 0);
}

void TestKubeApiDouble::kubectlWatchesEvents() {
    QCOMPARE(kubectl({"create", "-f", writeJson("pod-d.json", podObject("wire-d")), "--validate=false"}).exitCode, 0);
    QProcess watch;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("HOME", m_dir.path());
    watch.setProcessEnvironment(environment);
    const int watches = m_api->watchesOpened();
    watch.start(m_kubectl, {"--kubeconfig", m_kubeconfig, "--cache-dir", m_dir.filePath("cache"), "get", "pods",
                            "--watch", "--output-watch-events", "-o", "json"});
    QVERIFY(watch.waitForStarted());
    QByteArray out;
    const auto readUntil = [&](const QByteArray& needle) {
        QDeadlineTimer deadline(60s);
        while (!out.contains(needle) && !deadline.hasExpired() && watch.state() != QProcess::NotRunning) {
            if (watch.waitForReadyRead(static_cast<int>(deadline.remainingTime())))
                out += watch.readAllStandardOutput();
        }
        return out.contains(needle);
    };
    QVERIFY2(readUntil("\"type\":\"ADDED\""), out.constData());
    QVERIFY(m_api->waitForWatches(watches + 1, 60s)); // kubectl listed, then watched from the list's version
    m_api->podRunning("wire", "wire-d", true);
    QVERIFY2(readUntil("\"type\":\"MODIFIED\""), out.constData());
    QVERIFY(out.contains("\"phase\":\"Running\""));
    m_api->bookmark(); // kubectl asks for none: nothing is sent, and the stream stays whole
    QCOMPARE(kubectl({"delete", "pod", "wire-d"}).exitCode, 0);
    QVERIFY2(readUntil("\"type\":\"DELETED\""), out.constData());
    watch.kill();
    watch.waitForFinished();
    QVERIFY(!out.contains("BOOKMARK"));
    const QStringList requests = m_api->requests();
    const auto watchRequest = std::find_if(requests.begin(), requests.end(), [](const QString& r) {
        return r.startsWith("GET /api/v1/namespaces/wire/pods?") && r.contains("watch=true");
    });
    QVERIFY2(watchRequest != requests.end(), qPrintable(requests.join('\n')));
    QVERIFY2(watchRequest->contains("resourceVersion="), qPrintable(*watchRequest));
}

void TestKubeApiDouble::kubectlListsSandboxes() {
    const Run created = kubectl({"create", "-f", writeJson("sandbox.json", sandboxObject("wire-s")), "--validate=false"});
    QVERIFY2(created.exitCode == 0, qPrintable(created.err));
    QCOMPARE(created.out.trimmed(), QString("sandbox.agents.x-k8s.io/wire-s created"));
    const Run listed = kubectl({"get", "sandboxes.agents.x-k8s.io", "-o", "json"});
    QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
    const json list = json::parse(listed.out.toStdString(), nullptr, false);
    QCOMPARE(list["items"].size(), std::size_t(1));
    QCOMPARE(list["items"][0]["metadata"]["name"], json("wire-s"));
    const Run pod = kubectl({"get", "pod", "wire-s", "-o", "json"}); // the double's stand-in controller made it
    QVERIFY2(pod.exitCode == 0, qPrintable(pod.err));
    QCOMPARE(kubectl({"delete", "sandboxes.agents.x-k8s.io", "wire-s"}).exitCode, 0);
    QVERIFY(!m_api->object("pods", "wire", "wire-s"));
}

void TestKubeApiDouble::kubectlReadsAPodsLog() {
    QCOMPARE(kubectl({"create", "-f", writeJson("pod-l.json", podObject("wire-l")), "--validate=false"}).exitCode, 0);
    const Run waiting = kubectl({"logs", "wire-l"}); // no source yet: no container has run
    QVERIFY(waiting.exitCode != 0);
    QVERIFY2(waiting.err.contains("container \"sandbox\" in pod \"wire-l\" is waiting to start"), qPrintable(waiting.err));

    m_api->setPodLogSource([](const std::string& ns, const std::string& name) -> std::optional<std::string> {
        if (ns == "wire" && name == "wire-l")
            return std::string("first\nsecond\nthird\n");
        return std::nullopt;
    });
    const Run all = kubectl({"logs", "wire-l"});
    const Run tail = kubectl({"logs", "wire-l", "-c", "sandbox", "--tail=2"});
    const Run cut = kubectl({"logs", "wire-l", "--limit-bytes=8"});
    const Run missing = kubectl({"logs", "wire-none"});
    m_api->setPodLogSource({});
    QVERIFY2(all.exitCode == 0, qPrintable(all.err));
    QCOMPARE(all.out, QString("first\nsecond\nthird\n"));
    QVERIFY2(tail.exitCode == 0, qPrintable(tail.err));
    QCOMPARE(tail.out, QString("second\nthird\n"));
    QVERIFY2(cut.exitCode == 0, qPrintable(cut.err));
    QCOMPARE(cut.out, QString("first\nse")); // 8 bytes from the first
    QVERIFY(missing.exitCode != 0);
    QVERIFY2(missing.err.contains("(NotFound)"), qPrintable(missing.err)); // kubectl's own sentence, as for a GET
    const QStringList requests = m_api->requests();
    QVERIFY2(requests.contains("GET /api/v1/namespaces/wire/pods/wire-l/log?container=sandbox&tailLines=2"),
             qPrintable(requests.join('\n')));
    QCOMPARE(kubectl({"delete", "pod", "wire-l"}).exitCode, 0);
}

void TestKubeApiDouble::kubectlSelectsByLabel() {
    for (const auto& [name, task] : {std::pair{"wire-t1", "t-1"}, std::pair{"wire-t2", "t-2"}}) {
        json pod = podObject(name);
        pod["metadata"]["labels"]["warren.task"] = task;
        pod["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "warren";
        QCOMPARE(kubectl({"create", "-f", writeJson(QString(name) + ".json", pod), "--validate=false"}).exitCode, 0);
    }
    const auto namesOf = [&](const QString& selector) {
        const Run listed = kubectl({"get", "pods", "-l", selector, "-o", "json"});
        QStringList names;
        if (listed.exitCode != 0)
            return QStringList{"failed: " + listed.err};
        const json list = json::parse(listed.out.toStdString(), nullptr, false);
        for (const json& item : list["items"])
            names << QString::fromStdString(item["metadata"]["name"].get<std::string>());
        return names;
    };
    QCOMPARE(namesOf("warren.task=t-1"), QStringList{"wire-t1"});
    QCOMPARE(namesOf("app.kubernetes.io/managed-by=warren,warren.task==t-2"), QStringList{"wire-t2"});
    QCOMPARE(namesOf("app.kubernetes.io/managed-by=warren"), (QStringList{"wire-t1", "wire-t2"}));
    QCOMPARE(namesOf("warren.task=t-3"), QStringList{});
    QCOMPARE(kubectl({"delete", "pod", "wire-t1", "wire-t2"}).exitCode, 0);
}

void TestKubeApiDouble::kubectlIsRefusedWithoutTheToken() {
    const Run refused = kubectl({"get", "pods", "-o", "json"}, writeKubeconfig("stale", "stale-token"));
    QVERIFY(refused.exitCode != 0);
    QVERIFY2(refused.err.contains("Unauthorized") || refused.err.contains("must be logged in"), qPrintable(refused.err));
}

QTEST_GUILESS_MAIN(TestKubeApiDouble)
#include "tst_kube_api_double.moc"
