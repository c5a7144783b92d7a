// KubeRequests and ApiStatus: the REST calls of the cluster client, and what a failed one tells the user.
#include "sandbox/cluster/client/ApiStatus.h"
#include "sandbox/cluster/client/KubeRequests.h"

#include <QtTest>

using namespace warren;
using namespace warren::kube;
using nlohmann::json;

Q_DECLARE_METATYPE(warren::kube::ResourceKind)

class TestKubeRequests : public QObject {
    Q_OBJECT
private slots:
    void pathsPerKind_data();
    void pathsPerKind();
    void watchAsksFromAVersionWithBookmarks();
    void deleteSendsDeleteOptions();
    void labelledListEscapesTheSelector();
    void podLogAsksForTheContainersTail();
    void kindOfRefusesOthers();
    void failuresAreReadable_data();
    void failuresAreReadable();
};

void TestKubeRequests::pathsPerKind_data() {
    QTest::addColumn<ResourceKind>("kind");
    QTest::addColumn<QString>("object");
    QTest::addColumn<QString>("collection");
    QTest::newRow("Pod") << ResourceKind::Pod << R"({"apiVersion":"v1","kind":"Pod"})" << "/api/v1/namespaces/ns/pods";
    QTest::newRow("Secret") << ResourceKind::Secret << R"({"apiVersion":"v1","kind":"Secret"})"
                            << "/api/v1/namespaces/ns/secrets";
    QTest::newRow("NetworkPolicy") << ResourceKind::NetworkPolicy
                                   << R"({"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy"})"
                                   << "/apis/networking.k8s.io/v1/namespaces/ns/networkpolicies";
    QTest::newRow("Sandbox") << ResourceKind::Sandbox << R"({"apiVersion":"agents.x-k8s.io/v1beta1","kind":"Sandbox"})"
                             << "/apis/agents.x-k8s.io/v1beta1/namespaces/ns/sandboxes";
}

void TestKubeRequests::pathsPerKind() {
    QFETCH(ResourceKind, kind);
    QFETCH(QString, object);
    QFETCH(QString, collection);
    const json document = json::parse(object.toStdString());
    auto found = kindOf(document);
    QVERIFY(found.ok());
    QCOMPARE(*found, kind);
    const std::string path = collection.toStdString();
    const ApiRequest create = createRequest(kind, "ns", document);
    QCOMPARE(create.method, std::string("POST"));
    QCOMPARE(create.path, path);
    QCOMPARE(json::parse(create.body), document);
    QCOMPARE(getRequest(kind, "ns", "w-1").path, path + "/w-1");
    QCOMPARE(getRequest(kind, "ns", "w-1").method, std::string("GET"));
    QCOMPARE(listRequest(kind, "ns", "w-1").path, path + "?fieldSelector=metadata.name%3Dw-1");
    QCOMPARE(deleteRequest(kind, "ns", "w-1", Propagation::Background).path, path + "/w-1");
    QCOMPARE(discoveryRequest(kind).path + "/namespaces/ns/" + resourceName(kind), path);
}

void TestKubeRequests::watchAsksFromAVersionWithBookmarks() {
    const ApiRequest watch = watchRequest(ResourceKind::Pod, "agents", "warren-7", "4242", 300);
    QCOMPARE(watch.method, std::string("GET"));
    QCOMPARE(watch.path, std::string("/api/v1/namespaces/agents/pods?watch=1&resourceVersion=4242&allowWatchBookmarks="
                                     "true&fieldSelector=metadata.name%3Dwarren-7&timeoutSeconds=300"));
    QVERIFY(watch.body.empty());
}

void TestKubeRequests::deleteSendsDeleteOptions() {
    const json background = json::parse(deleteRequest(ResourceKind::Pod, "n", "p", Propagation::Background).body);
    QCOMPARE(background, json::parse(R"({"apiVersion":"v1","kind":"DeleteOptions","propagationPolicy":"Background"})"));
    const json now = json::parse(deleteRequest(ResourceKind::Sandbox, "n", "p", Propagation::Foreground, 0).body);
    QCOMPARE(now["propagationPolicy"], json("Foreground"));
    QCOMPARE(now["gracePeriodSeconds"], json(0));
    QCOMPARE(deleteRequest(ResourceKind::Pod, "n", "p", Propagation::Background).method, std::string("DELETE"));
}

void TestKubeRequests::labelledListEscapesTheSelector() {
    const ApiRequest one = labelledListRequest(ResourceKind::Secret, "ns", {{"warren.task", "t-0001"}});
    QCOMPARE(one.method, std::string("GET"));
    QCOMPARE(one.path, std::string("/api/v1/namespaces/ns/secrets?labelSelector=warren.task%3Dt-0001"));
    const ApiRequest two = labelledListRequest(ResourceKind::NetworkPolicy, "ns",
                                               {{"warren.task", "t-2"}, {"app.kubernetes.io/managed-by", "warren"}});
    QCOMPARE(two.path, std::string("/apis/networking.k8s.io/v1/namespaces/ns/networkpolicies?labelSelector="
                                   "app.kubernetes.io%2Fmanaged-by%3Dwarren%2Cwarren.task%3Dt-2"));
}

void TestKubeRequests::podLogAsksForTheContainersTail() {
    const ApiRequest log = podLogRequest("agents", "warren-7", "sandbox", 500, 65536);
    QCOMPARE(log.method, std::string("GET"));
    QCOMPARE(log.path, std::string("/api/v1/namespaces/agents/pods/warren-7/log?container=sandbox&tailLines=500"
                                   "&limitBytes=65536"));
    QVERIFY(log.body.empty());
}

void TestKubeRequests::kindOfRefusesOthers() {
    auto deployment = kindOf(json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment"})"));
    QVERIFY(!deployment.ok());
    QVERIFY(QString::fromStdString(deployment.error().message).contains("apps/v1 Deployment"));
    QVERIFY(!kindOf(json::parse(R"({"apiVersion":"v1","kind":"Sandbox"})")).ok());
}

void TestKubeRequests::failuresAreReadable_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QStringList>("says");
    QTest::newRow("401") << 401 << R"({"kind":"Status","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"
                         << "Unauthorized"
                         << QStringList{"did not accept our credentials", "https://k:6443", "token or client certificate"};
    QTest::newRow("403") << 403
                         << R"({"kind":"Status","message":"pods is forbidden: User \"x\" cannot create resource \"pods\"","reason":"Forbidden","code":403})"
                         << "Forbidden" << QStringList{"forbidden", "cannot create resource", "rbac.yaml"};
    QTest::newRow("404") << 404 << R"({"kind":"Status","message":"pods \"p\" not found","reason":"NotFound","code":404})"
                         << "NotFound" << QStringList{"not found", "pods \"p\" not found"};
    QTest::newRow("409 AlreadyExists")
        << 409 << R"({"kind":"Status","message":"pods \"p\" already exists","reason":"AlreadyExists","code":409})"
        << "AlreadyExists" << QStringList{"it already exists", "choose another name"};
    QTest::newRow("422 Invalid with causes")
        << 422
        << R"({"kind":"Status","message":"Pod \"p\" is invalid","reason":"Invalid","details":{"causes":[{"field":"spec.containers","message":"Required value"},{"field":"metadata.name","message":"Required value"}]},"code":422})"
        << "Invalid" << QStringList{"refused as invalid", "spec.containers: Required value", "metadata.name: Required value"};
    QTest::newRow("503 without a Status") << 503 << "<html>busy</html>" << ""
                                          << QStringList{"answered 503", "try again"};
    // Found by fuzz_kube_answers: a member of another type than the Status's threw out of the reader.
    QTest::newRow("a Status whose kind is a number") << 500 << R"({"kind":210,"message":"x"})" << ""
                                                     << QStringList{"answered 500"};
    QTest::newRow("a Status with mistyped members")
        << 422
        << R"({"kind":"Status","reason":7,"message":["m"],"details":{"causes":[{"field":1,"message":"Required value"},3]}})"
        << "" << QStringList{"refused as invalid", "\n  Required value"};
}

void TestKubeRequests::failuresAreReadable() {
    QFETCH(int, status);
    QFETCH(QString, body);
    QFETCH(QString, reason);
    QFETCH(QStringList, says);
    const ApiFailure failure = describeApiFailure(status, body.toStdString(), "creating Pod ns/p", "https://k:6443");
    QCOMPARE(failure.status, status);
    QCOMPARE(QString::fromStdString(failure.reason), reason);
    const QString message = QString::fromStdString(failure.error.message);
    QVERIFY2(message.startsWith("creating Pod ns/p"), qPrintable(message));
    for (const QString& part : says)
        QVERIFY2(message.contains(part), qPrintable(message + " lacks " + part));
}

QTEST_APPLESS_MAIN(TestKubeRequests)
#include "tst_kube_requests.moc"
