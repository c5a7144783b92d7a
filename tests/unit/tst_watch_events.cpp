// WatchEvents: the watch stream's lines, a 410 as "relist", and what a Pod's or a Sandbox's status means for
// the sandbox (waiting, stuck for a reason the user can fix, running, ready, ended with its exit code).
#include "sandbox/cluster/client/WatchEvents.h"

#include <QtTest>

using namespace warren;
using namespace warren::kube;
using nlohmann::json;

Q_DECLARE_METATYPE(warren::kube::PodProgress)
Q_DECLARE_METATYPE(warren::kube::WatchEventType)

class TestWatchEvents : public QObject {
    Q_OBJECT
private slots:
    void parsesEvents_data();
    void parsesEvents();
    void refusesWhatIsNotAnEvent_data();
    void refusesWhatIsNotAnEvent();
    void podStates_data();
    void podStates();
    void sandboxStates_data();
    void sandboxStates();
    void readsNamesAndItemsOfAnyShape_data();
    void readsNamesAndItemsOfAnyShape();
};

void TestWatchEvents::parsesEvents_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<WatchEventType>("type");
    QTest::addColumn<QString>("version");
    QTest::addColumn<bool>("expired");
    QTest::newRow("ADDED") << R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"p","resourceVersion":"12"}}})"
                           << WatchEventType::Added << "12" << false;
    QTest::newRow("MODIFIED") << R"({"type":"MODIFIED","object":{"metadata":{"resourceVersion":"13"}}})"
                              << WatchEventType::Modified << "13" << false;
    QTest::newRow("DELETED") << R"({"type":"DELETED","object":{"metadata":{"resourceVersion":"14"}}})"
                             << WatchEventType::Deleted << "14" << false;
    QTest::newRow("BOOKMARK") << R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"99"}}})"
                              << WatchEventType::Bookmark << "99" << false;
    QTest::newRow("ERROR 410 Expired")
        << R"j({"type":"ERROR","object":{"kind":"Status","status":"Failure","message":"too old resource version: 5 (9)","reason":"Expired","code":410}})j"
        << WatchEventType::Error << "" << true;
    QTest::newRow("ERROR 410 Gone without reason")
        << R"({"type":"ERROR","object":{"kind":"Status","code":410}})" << WatchEventType::Error << "" << true;
    QTest::newRow("ERROR 500") << R"({"type":"ERROR","object":{"kind":"Status","message":"etcd","code":500}})"
                               << WatchEventType::Error << "" << false;
}

void TestWatchEvents::parsesEvents() {
    QFETCH(QString, line);
    auto event = parseWatchEvent(line.toStdString());
    QVERIFY2(event.ok(), event.ok() ? "" : event.error().message.c_str());
    QTEST(event->type, "type");
    QTEST(QString::fromStdString(resourceVersionOf(event->object)), "version");
    QTEST(isResourceVersionExpired(*event), "expired");
}

void TestWatchEvents::refusesWhatIsNotAnEvent_data() {
    QTest::addColumn<QString>("line");
    QTest::newRow("not JSON") << "{\"type\":";
    QTest::newRow("no object") << R"({"type":"ADDED"})";
    QTest::newRow("unknown type") << R"({"type":"RESYNC","object":{}})";
    QTest::newRow("an array") << "[1]";
    // Nested deeper than json_fields::kMaxJsonDepth: the event's object is copied, and a copy recurses as deep.
    QTest::newRow("nested 100000 deep")
        << R"({"type":"ADDED","object":{"a":)" + QString(100000, '[') + QString(100000, ']') + "}}";
}

void TestWatchEvents::refusesWhatIsNotAnEvent() {
    QFETCH(QString, line);
    auto event = parseWatchEvent(line.toStdString());
    QVERIFY(!event.ok());
    QVERIFY(QString::fromStdString(event.error().message).contains("watch"));
}

void TestWatchEvents::podStates_data() {
    QTest::addColumn<QString>("status");
    QTest::addColumn<PodProgress>("progress");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<int>("exitCode"); // -1: none
    QTest::addColumn<QString>("described");
    QTest::newRow("no status yet") << "{}" << PodProgress::Waiting << "" << -1 << "Waiting";
    QTest::newRow("pending, creating")
        << R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ContainerCreating"}}}]})"
        << PodProgress::Waiting << "ContainerCreating" << -1 << "Waiting (ContainerCreating)";
    QTest::newRow("ImagePullBackOff")
        << R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image \"x\""}}}]})"
        << PodProgress::Stuck << "ImagePullBackOff" << -1 << "Stuck (ImagePullBackOff): Back-off pulling image \"x\"";
    QTest::newRow("ErrImagePull") << R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ErrImagePull"}}}]})"
                                  << PodProgress::Stuck << "ErrImagePull" << -1 << "Stuck (ErrImagePull)";
    QTest::newRow("Unschedulable")
        << R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/3 nodes are available: 3 Insufficient memory."}]})"
        << PodProgress::Stuck << "Unschedulable" << -1 << "Stuck (Unschedulable): 0/3 nodes are available: 3 Insufficient memory.";
    QTest::newRow("running, not ready")
        << R"({"phase":"Running","conditions":[{"type":"Ready","status":"False"}]})" << PodProgress::Running << "" << -1 << "Running";
    QTest::newRow("ready") << R"({"phase":"Running","conditions":[{"type":"Ready","status":"True"}]})"
                           << PodProgress::Ready << "" << -1 << "Ready";
    QTest::newRow("succeeded")
        << R"({"phase":"Succeeded","containerStatuses":[{"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]})"
        << PodProgress::Ended << "Completed" << 0 << "Succeeded with exit code 0 (Completed)";
    QTest::newRow("failed, exit 3")
        << R"({"phase":"Failed","containerStatuses":[{"state":{"terminated":{"exitCode":3,"reason":"Error"}}}]})"
        << PodProgress::Ended << "Error" << 3 << "Failed with exit code 3 (Error)";
    QTest::newRow("OOMKilled")
        << R"({"phase":"Failed","containerStatuses":[{"state":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]})"
        << PodProgress::Ended << "OOMKilled" << 137 << "Failed with exit code 137 (OOMKilled)";
    QTest::newRow("deadline exceeded, no container exit")
        << R"({"phase":"Failed","reason":"DeadlineExceeded","message":"Pod was active on the node longer than the specified deadline"})"
        << PodProgress::Ended << "DeadlineExceeded" << -1
        << "Failed (DeadlineExceeded): Pod was active on the node longer than the specified deadline";
    QTest::newRow("restarted: the last termination")
        << R"({"phase":"Failed","containerStatuses":[{"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"reason":"Error"}}}]})"
        << PodProgress::Ended << "Error" << 1 << "Failed with exit code 1 (Error)";
}

void TestWatchEvents::podStates() {
    QFETCH(QString, status);
    QFETCH(int, exitCode);
    const PodState state = podState(json{{"kind", "Pod"}, {"status", json::parse(status.toStdString())}});
    QTEST(state.progress, "progress");
    QTEST(QString::fromStdString(state.reason), "reason");
    QCOMPARE(state.exitCode.value_or(-1), exitCode);
    QTEST(QString::fromStdString(describePodState(state)), "described");
}

void TestWatchEvents::sandboxStates_data() {
    QTest::addColumn<QString>("status");
    QTest::addColumn<PodProgress>("progress");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no conditions") << "{}" << PodProgress::Waiting << "";
    QTest::newRow("not ready") << R"({"conditions":[{"type":"Ready","status":"False","reason":"DependenciesNotReady"}]})"
                               << PodProgress::Waiting << "DependenciesNotReady";
    QTest::newRow("ready") << R"({"conditions":[{"type":"Ready","status":"True","reason":"DependenciesReady"}]})"
                           << PodProgress::Ready << "DependenciesReady";
}

void TestWatchEvents::sandboxStates() {
    QFETCH(QString, status);
    const PodState state = sandboxState(json{{"status", json::parse(status.toStdString())}});
    QTEST(state.progress, "progress");
    QTEST(QString::fromStdString(state.reason), "reason");
}

// A list or object the API server answers with may have any shape: one that is not what the cluster client
// expects reads as no name and no items, never throws (a number as a name once did, through json::value).
void TestWatchEvents::readsNamesAndItemsOfAnyShape_data() {
    QTest::addColumn<QString>("answer");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("items");
    QTest::newRow("a list") << R"({"metadata":{"name":"l"},"items":[{"metadata":{"name":"p"}},{}]})" << "l" << 2;
    QTest::newRow("a name that is a number") << R"({"metadata":{"name":7}})" << "" << 0;
    QTest::newRow("metadata that is an array") << R"({"metadata":["name"]})" << "" << 0;
    QTest::newRow("items that are an object") << R"({"items":{"a":1}})" << "" << 0;
    QTest::newRow("an array") << R"([{"items":[1]}])" << "" << 0;
    QTest::newRow("a string") << R"("items")" << "" << 0;
}

void TestWatchEvents::readsNamesAndItemsOfAnyShape() {
    QFETCH(QString, answer);
    const json parsed = json::parse(answer.toStdString());
    QTEST(QString::fromStdString(nameOf(parsed)), "name");
    QTEST(static_cast<int>(itemsOf(parsed).size()), "items");
}

QTEST_APPLESS_MAIN(TestWatchEvents)
#include "tst_watch_events.moc"
