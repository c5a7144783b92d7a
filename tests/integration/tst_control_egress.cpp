// `warren run --network allow:HOSTS` end to end: the real sandbox, the agent's forwarder, the control plane's
// egress proxy, and a real HTTP server on this machine. A listed host is reached (plain HTTP and through a
// CONNECT tunnel); an unlisted one, a listed name that resolves inside this machine, and every way around
// the proxy are not; every request is in the task's events; nothing is left listening when the task ends.

#include "tests/support/AgentRun.h"
#include "tests/support/EventJson.h"
#include "tests/support/HostHttpServer.h"
#include "tests/support/WarrenRun.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace warren::test;
using nlohmann::json;

namespace {

std::vector<json> networkEvents(const std::vector<json>& events) {
    std::vector<json> found;
    for (const auto& event : events)
        if (event.value("type", "") == "network_request")
            found.push_back(event["data"]);
    return found;
}

} // namespace

class TestControlEgress : public QObject {
    Q_OBJECT

private slots:
    void onlyListedHostsAreReached();
    void badAllowListIsAUsageError();
};

void TestControlEgress::onlyListedHostsAreReached() {
    HostHttpServer host;
    QVERIFY(host.port() != 0);
    const std::string port = std::to_string(host.port());
    const std::string local = "http://127.0.0.1:" + port;
    QTemporaryDir data, workspace;
    const QString script = data.filePath("script.json");
    auto shell = [](const std::string& command) { return turn("shell", {{"command", command}}); };
    QVERIFY(writeScript(script, {
        // NO_PROXY keeps the sandbox's own loopback direct; --noproxy '' sends these through the proxy.
        shell("curl -sS --noproxy '' " + local + "/plain"),                       // call_0_0: allowed
        shell("curl -sS --noproxy '' --proxytunnel " + local + "/tunnel"),        // call_1_0: CONNECT, allowed
        shell("curl -sS http://example.com/ 2>&1"),                               // call_2_0: not listed
        shell("curl -sS --noproxy '' http://localhost:" + port + "/inside 2>&1"), // call_3_0: resolves inside
        shell("curl -sS --noproxy '*' " + local + "/direct 2>&1; echo exit=$?"),  // call_4_0: around the proxy
        shell("bash -c 'echo > /dev/tcp/192.0.2.1/80' 2>&1; echo exit=$?"),       // call_5_0: no route out
        turn("finish", {{"summary", "probed"}}),
    }));

    const auto result = runWarren({"run", "--json", "--provider", "scripted:" + script, "--workspace",
                                   workspace.path(), "--network", QString::fromStdString(
                                       "allow:127.0.0.1:" + port + ",localhost:" + port),
                                   "probe the network"},
                                  data.path());
    QVERIFY2(result.exitCode == 0, result.err.constData());
    const auto events = jsonLines(result.out);

    QCOMPARE(QString::fromStdString(toolOutput(events, "call_0_0")), "hello from the host: GET /plain HTTP/1.1\n");
    QCOMPARE(QString::fromStdString(toolOutput(events, "call_1_0")), "hello from the host: GET /tunnel HTTP/1.1\n");
    const std::string unlisted = toolOutput(events, "call_2_0");
    QVERIFY2(unlisted.find("example.com:80 is not in this task's network allow-list") != std::string::npos,
             unlisted.c_str());
    const std::string inside = toolOutput(events, "call_3_0");
    QVERIFY2(inside.find("resolves only to addresses inside this machine") != std::string::npos, inside.c_str());
    const std::string direct = toolOutput(events, "call_4_0");
    QVERIFY2(direct.find("exit=7") != std::string::npos, direct.c_str()); // curl: could not connect
    const std::string route = toolOutput(events, "call_5_0");
    QVERIFY2(route.find("unreachable") != std::string::npos && route.find("exit=1") != std::string::npos,
             route.c_str());
    // Only what went through the proxy, as the proxy rewrote it, reached the host.
    QCOMPARE(host.requests, (QStringList{"GET /plain HTTP/1.1", "GET /tunnel HTTP/1.1"}));

    const auto network = networkEvents(events);
    QCOMPARE(network.size(), 4u);
    QCOMPARE(network[0].value("method", ""), "GET");
    QCOMPARE(network[0].value("allowed", false), true);
    QCOMPARE(network[0].value("address", ""), "127.0.0.1");
    QCOMPARE(network[1].value("method", ""), "CONNECT");
    QCOMPARE(network[1].value("allowed", false), true);
    QCOMPARE(network[2].value("host", ""), "example.com");
    QCOMPARE(network[2].value("allowed", true), false);
    QCOMPARE(network[3].value("host", ""), "localhost");
    QCOMPARE(network[3].value("allowed", true), false);
    QVERIFY(!network[3].value("reason", "").empty());

    // Nothing is left listening for the task.
    const QStringList sockets = QDir(data.filePath("tasks")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    QCOMPARE(sockets.size(), 1);
    QVERIFY(!QFile::exists(data.filePath("tasks/" + sockets.front() + "/egress.sock")));
}

void TestControlEgress::badAllowListIsAUsageError() {
    QTemporaryDir data, workspace;
    const auto result = runWarren({"run", "--provider", "scripted:/nonexistent", "--workspace", workspace.path(),
                                   "--network", "allow:*.com", "go"},
                                  data.path());
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.err.contains("*.com"), result.err.constData());
}

QTEST_GUILESS_MAIN(TestControlEgress)
#include "tst_control_egress.moc"
