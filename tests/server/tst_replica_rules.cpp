// The pure rules of warrend's replicas (server/replicas): which tasks a replica may take over (TaskLeases:
// those queued or running that no live lease holds, or whose holder is known dead, and not those waiting for
// a slot), and the requests they pass each other, read back as written and refused when
// they are not one (ReplicaRequest).
#include "server/replicas/ReplicaRequest.h"
#include "server/replicas/TaskLeases.h"

#include "sandbox/ProcessOwner.h"

#include <QtTest>

using namespace warren;

class TestReplicaRules : public QObject {
    Q_OBJECT

private slots:
    void orphansAreTheUnleasedAndTheDeadHolders() {
        const std::vector<std::string> tasks{"t-free", "t-live", "t-dead", "t-waits"}; // queued or running
        const std::map<std::string, std::string> leases{{"t-live", "alive"}, {"t-dead", "dead"}};
        const auto orphans = server::orphanedTasks(tasks, leases, {"t-waits"},
                                                   [](const std::string& holder) { return holder == "dead"; });
        QCOMPARE(orphans.size(), std::size_t(2));
        QCOMPARE(orphans[0].taskId, std::string("t-free"));
        QCOMPARE(orphans[0].goneHolder, std::string());
        QCOMPARE(orphans[1].taskId, std::string("t-dead"));
        QCOMPARE(orphans[1].goneHolder, std::string("dead"));
    }

    // A replica judges only holders of its own machine and boot and host: this process is alive, a pid with
    // another start time is not the holder, another machine's holder is never judged dead.
    void onlyThisMachinesDeadHoldersAreGone() {
        const std::string me = server::replicaName();
        const std::string machine = server::replicaMachine();
        const auto startTime = [](pid_t pid) { return sandbox::processStartTime(pid); };
        QVERIFY(!sandbox::ownerGone(me, machine, startTime));
        const std::string reused = me.substr(0, me.rfind(':')) + ":1";
        QVERIFY(sandbox::ownerGone(reused, machine, startTime));
        QVERIFY(!sandbox::ownerGone("other-machine/host:1:1", machine, startTime));
        QVERIFY(!sandbox::ownerGone("garbage", machine, startTime));
        QVERIFY(!sandbox::ownerGone(machine + ":notapid:1", machine, startTime));
    }

    void requestsReadBackAsWritten() {
        using server::ReplicaRequest;
        const std::vector<ReplicaRequest> requests{
            {ReplicaRequest::Kind::Answer, "w1", true, "go ahead", true, {}},
            {ReplicaRequest::Kind::Waiting, "w2", false, {}, false, {}},
            {ReplicaRequest::Kind::Cancel, {}, false, {}, false, "cancelled by its owner"}};
        for (const auto& request : requests) {
            auto back = ReplicaRequest::fromJson(request.toJson());
            QVERIFY2(back, back ? "" : back.error().message.c_str());
            QCOMPARE(back->toJson(), request.toJson());
        }
        for (const char* text : {R"({})", R"({"kind": "delete"})", R"({"kind": "answer", "call": "w1"})",
                                 R"({"kind": "waiting", "call": 3})", R"({"kind": "cancel"})", R"([])"})
            QVERIFY2(!ReplicaRequest::fromJson(nlohmann::json::parse(text)), text);
        const server::ReplicaAnswer answer{false, "task t-1 has already succeeded"};
        QCOMPARE(server::ReplicaAnswer::fromJson(answer.toJson())->error, answer.error);
        QVERIFY(!server::ReplicaAnswer::fromJson(nlohmann::json{{"done", "yes"}}));
    }
};

QTEST_GUILESS_MAIN(TestReplicaRules)
#include "tst_replica_rules.moc"
