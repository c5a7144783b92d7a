#include "tests/support/StoreContract.h"

#include <QtTest>
#include <algorithm>

using namespace warren;
using namespace warren::control;

namespace warren::test {

TaskRecord sampleTask(const std::string& id, const std::string& createdAt) {
    TaskRecord task;
    task.id = id;
    task.prompt = "list the files";
    task.workspace = "/home/user/project";
    task.spec = "{\"presets\":[\"safe-mode\"]}";
    task.createdAt = createdAt;
    return task;
}

EventRow sampleEvent(const std::string& taskId, std::uint64_t seq) {
    EventRow event;
    event.taskId = taskId;
    event.seq = seq;
    event.ts = "2026-01-02T03:04:05.006Z";
    event.type = seq % 2 ? "tool_call" : "log";
    event.step = seq / 3;
    event.tool = seq % 2 ? "shell" : "";
    event.body = "{\"seq\":" + std::to_string(seq) + "}";
    return event;
}

std::vector<std::uint64_t> seqsOf(const std::vector<EventRow>& events) {
    std::vector<std::uint64_t> seqs;
    for (const auto& event : events)
        seqs.push_back(event.seq);
    return seqs;
}

QStringList keysOf(const std::vector<MemoryRow>& rows) {
    QStringList keys;
    for (const auto& row : rows)
        keys << QString::fromStdString(row.ns + "/" + row.key);
    return keys;
}

void StoreContract::reopeningIsIdempotent() {
    {
        auto store = openStore();
        QVERIFY(store->insertTask(sampleTask("t-000000000001", "2026-01-01T00:00:00.000Z")));
    }
    for (int i = 0; i < 2; ++i) {
        auto store = openStore();
        QCOMPARE(store->schemaVersion(), latestSchemaVersion());
        auto tasks = store->tasks();
        QVERIFY(tasks);
        QCOMPARE(tasks->size(), std::size_t(1));
    }
}

void StoreContract::tasksRoundTrip() {
    auto store = openStore();
    auto first = sampleTask("t-000000000001", "2026-01-01T00:00:00.000Z");
    auto second = sampleTask("t-000000000002", "2026-01-02T00:00:00.000Z");
    QVERIFY(store->insertTask(first));
    QVERIFY(store->insertTask(second));

    second.status = TaskStatus::Succeeded;
    second.startedAt = "2026-01-02T00:00:01.000Z";
    second.finishedAt = "2026-01-02T00:01:00.000Z";
    second.finishReason = "finish";
    second.summary = "Wrote hello.txt";
    second.error = "";
    second.steps = 3;
    second.tokensIn = 1234;
    second.tokensOut = 567;
    second.runs = 2;
    second.createdAt = "1999-01-01T00:00:00.000Z"; // not updated
    QVERIFY(store->updateTask(second));

    auto read = store->task(second.id);
    QVERIFY(read && read->has_value());
    const TaskRecord& stored = **read;
    QCOMPARE(stored.status, TaskStatus::Succeeded);
    QCOMPARE(stored.prompt, second.prompt);
    QCOMPARE(stored.workspace, second.workspace);
    QCOMPARE(stored.spec, second.spec);
    QCOMPARE(stored.createdAt, std::string("2026-01-02T00:00:00.000Z"));
    QCOMPARE(stored.startedAt, second.startedAt);
    QCOMPARE(stored.finishedAt, second.finishedAt);
    QCOMPARE(stored.finishReason, second.finishReason);
    QCOMPARE(stored.summary, second.summary);
    QCOMPARE(stored.steps, std::uint64_t(3));
    QCOMPARE(stored.tokensIn, std::uint64_t(1234));
    QCOMPARE(stored.tokensOut, std::uint64_t(567));
    QCOMPARE(stored.runs, std::uint64_t(2));

    auto all = store->tasks();
    QVERIFY(all);
    QCOMPARE(all->size(), std::size_t(2));
    QCOMPARE(all->at(0).id, second.id); // newest first
    QCOMPARE(all->at(1).id, first.id);
    QCOMPARE(all->at(1).status, TaskStatus::Queued);

    auto queued = store->tasksWithStatus(TaskStatus::Queued);
    QVERIFY(queued);
    QCOMPARE(queued->size(), std::size_t(1));
    QCOMPARE(queued->at(0).id, first.id);
    auto running = store->tasksWithStatus(TaskStatus::Running);
    QVERIFY(running && running->empty());
    auto queuedIds = store->taskIdsWithStatus(TaskStatus::Queued);
    QVERIFY(queuedIds);
    QCOMPARE(*queuedIds, std::vector<std::string>{first.id});
    auto runningIds = store->taskIdsWithStatus(TaskStatus::Running);
    QVERIFY(runningIds && runningIds->empty());

    // Not moved: where it went is empty. Moved to another control plane: it says where, and as what there.
    QCOMPARE(all->at(1).movedTo, std::string());
    QCOMPARE(all->at(1).movedAs, std::string());
    first.status = TaskStatus::Moved;
    first.movedTo = "https://warrend.example:8443";
    first.movedAs = "t-abcdef012345";
    first.removedAt = "2026-01-03T00:00:00.000Z";
    QVERIFY(store->updateTask(first));
    auto moved = store->task(first.id);
    QVERIFY(moved && moved->has_value());
    QCOMPARE((*moved)->status, TaskStatus::Moved);
    QCOMPARE((*moved)->movedTo, first.movedTo);
    QCOMPARE((*moved)->movedAs, first.movedAs);
    QCOMPARE((*moved)->removedAt, first.removedAt);
    QCOMPARE((*moved)->prompt, first.prompt);
    auto movedOnes = store->tasksWithStatus(TaskStatus::Moved);
    QVERIFY(movedOnes);
    QCOMPARE(movedOnes->size(), std::size_t(1));
    QCOMPARE(movedOnes->at(0).movedTo, first.movedTo);
    QCOMPARE(movedOnes->at(0).movedAs, first.movedAs);
    // Inserted already moved, it reads the same ("local": a server's task that went to a machine's own).
    auto home = sampleTask("t-000000000003", "2026-01-03T00:00:00.000Z");
    home.status = TaskStatus::Moved;
    home.movedTo = "local";
    home.movedAs = "t-000000000004";
    QVERIFY(store->insertTask(home));
    auto homeRead = store->task(home.id);
    QVERIFY(homeRead && homeRead->has_value());
    QCOMPARE((*homeRead)->status, TaskStatus::Moved);
    QCOMPARE((*homeRead)->movedTo, std::string("local"));
    QCOMPARE((*homeRead)->movedAs, home.movedAs);

    auto missing = store->task("t-ffffffffffff");
    QVERIFY(missing && !missing->has_value());
}

void StoreContract::everyStatusRoundTrips() {
    auto store = openStore();
    auto task = sampleTask("t-000000000001", "2026-01-01T00:00:00.000Z");
    QVERIFY(store->insertTask(task));
    for (const char* name : {"queued", "running", "paused", "waiting", "sleeping", "interrupted", "succeeded",
                             "failed", "cancelled", "moved"}) {
        const auto status = taskStatusFromName(name);
        QVERIFY2(status, name);
        QCOMPARE(std::string(taskStatusName(*status)), std::string(name));
        task.status = *status;
        QVERIFY2(store->updateTask(task), name);
        auto read = store->task(task.id);
        QVERIFY(read && read->has_value());
        QCOMPARE((*read)->status, *status);
        auto listed = store->tasksWithStatus(*status);
        QVERIFY(listed && listed->size() == 1);
    }
}

void StoreContract::tasksAreCountedByStatus() {
    auto store = openStore();
    auto empty = store->taskCountsByStatus();
    QVERIFY(empty);
    QCOMPARE(empty->size(), allTaskStatuses().size()); // every status, 0 where none has it
    for (const auto& [status, count] : *empty)
        QCOMPARE(count, std::uint64_t(0));
    const std::vector<TaskStatus> given{TaskStatus::Running, TaskStatus::Succeeded, TaskStatus::Succeeded,
                                        TaskStatus::Waiting, TaskStatus::Succeeded};
    for (std::size_t i = 0; i < given.size(); ++i) {
        auto task = sampleTask("t-00000000000" + std::to_string(i + 1), "2026-01-01T00:00:00.000Z");
        task.status = given[i];
        QVERIFY(store->insertTask(task));
    }
    auto counts = store->taskCountsByStatus();
    QVERIFY(counts);
    QCOMPARE(counts->size(), allTaskStatuses().size());
    for (const TaskStatus status : allTaskStatuses())
        QCOMPARE(counts->at(status), std::uint64_t(std::count(given.begin(), given.end(), status)));
}

void StoreContract::taskErrorsNameTheTask() {
    auto store = openStore();
    const auto task = sampleTask("t-000000000001", "2026-01-01T00:00:00.000Z");
    QVERIFY(store->insertTask(task));
    auto again = store->insertTask(task);
    QVERIFY(!again);
    QVERIFY2(again.error().message.find("t-000000000001") != std::string::npos,
             again.error().message.c_str());
    auto unknown = store->updateTask(sampleTask("t-000000000009", "2026-01-01T00:00:00.000Z"));
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().code, ErrorCode::NotFound);
    QVERIFY2(unknown.error().message.find("t-000000000009") != std::string::npos,
             unknown.error().message.c_str());
}

void StoreContract::eventsComeBackInSeqOrder() {
    auto store = openStore();
    QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
    QVERIFY(store->insertTask(sampleTask("t-b", "2026-01-01T00:00:00.000Z")));
    std::vector<EventRow> batch;
    for (const std::uint64_t seq : {3u, 1u, 2u})
        batch.push_back(sampleEvent("t-a", seq));
    batch.push_back(sampleEvent("t-b", 1));
    QVERIFY(store->appendEvents(batch));
    QVERIFY(store->appendEvents({sampleEvent("t-a", 4), sampleEvent("t-a", 5)}));

    auto events = store->events("t-a");
    QVERIFY(events);
    QCOMPARE(seqsOf(*events), (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
    const EventRow& third = events->at(2);
    const EventRow expected = sampleEvent("t-a", 3);
    QCOMPARE(third.taskId, expected.taskId);
    QCOMPARE(third.ts, expected.ts);
    QCOMPARE(third.type, expected.type);
    QCOMPARE(third.step, expected.step);
    QCOMPARE(third.tool, expected.tool);
    QCOMPARE(third.body, expected.body);
    QCOMPARE(events->at(1).tool, std::string()); // no tool stays empty

    auto after = store->events("t-a", 2, 2);
    QVERIFY(after);
    QCOMPARE(seqsOf(*after), (std::vector<std::uint64_t>{3, 4}));
    auto past = store->events("t-a", 5);
    QVERIFY(past && past->empty());
    auto other = store->events("t-b");
    QVERIFY(other);
    QCOMPARE(seqsOf(*other), (std::vector<std::uint64_t>{1}));

    auto last = store->lastSeq("t-a");
    QVERIFY(last);
    QCOMPARE(*last, std::uint64_t(5));
    auto none = store->lastSeq("t-none");
    QVERIFY(none);
    QCOMPARE(*none, std::uint64_t(0));
}

void StoreContract::eventsBeforePageBackFromTheEnd() {
    auto store = openStore();
    QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
    QVERIFY(store->insertTask(sampleTask("t-b", "2026-01-01T00:00:00.000Z")));
    std::vector<EventRow> batch;
    for (std::uint64_t seq = 1; seq <= 10; ++seq)
        batch.push_back(sampleEvent("t-a", seq));
    for (std::uint64_t seq = 1; seq <= 20; ++seq) // more, later ones of another task: never in t-a's pages
        batch.push_back(sampleEvent("t-b", seq));
    QVERIFY(store->appendEvents(batch));

    auto latest = store->eventsBefore("t-a", 0, 4); // 0: from the end
    QVERIFY(latest);
    QCOMPARE(seqsOf(*latest), (std::vector<std::uint64_t>{7, 8, 9, 10})); // oldest first
    const EventRow expected = sampleEvent("t-a", 8);
    QCOMPARE(latest->at(1).taskId, expected.taskId);
    QCOMPARE(latest->at(1).type, expected.type);
    QCOMPARE(latest->at(1).step, expected.step);
    QCOMPARE(latest->at(1).tool, expected.tool);
    QCOMPARE(latest->at(1).body, expected.body);

    // Paging back from the first seq of each page meets every event once, then nothing.
    std::vector<std::uint64_t> seen = seqsOf(*latest);
    std::uint64_t before = latest->front().seq;
    for (const auto& page : {std::vector<std::uint64_t>{3, 4, 5, 6}, std::vector<std::uint64_t>{1, 2}}) {
        auto earlier = store->eventsBefore("t-a", before, 4);
        QVERIFY(earlier);
        QCOMPARE(seqsOf(*earlier), page);
        before = earlier->front().seq;
    }
    auto none = store->eventsBefore("t-a", before, 4);
    QVERIFY(none && none->empty());

    auto all = store->eventsBefore("t-a", 0, UINT64_MAX);
    QVERIFY(all);
    QCOMPARE(all->size(), std::size_t(10));
    auto past = store->eventsBefore("t-a", 1000, 2); // beyond the last: the latest
    QVERIFY(past);
    QCOMPARE(seqsOf(*past), (std::vector<std::uint64_t>{9, 10}));
    auto zero = store->eventsBefore("t-a", 0, 0);
    QVERIFY(zero && zero->empty());
    auto unknown = store->eventsBefore("t-none", 0, 10);
    QVERIFY(unknown && unknown->empty());
}

void StoreContract::aRepeatedSeqRefusesTheWholeBatch() {
    auto store = openStore();
    QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
    QVERIFY(store->appendEvents({sampleEvent("t-a", 1), sampleEvent("t-a", 2)}));

    auto repeated =
        store->appendEvents({sampleEvent("t-a", 3), sampleEvent("t-a", 4), sampleEvent("t-a", 2)});
    QVERIFY(!repeated);
    const auto& message = repeated.error().message;
    QVERIFY2(message.find("seq 2") != std::string::npos, message.c_str());
    QVERIFY2(message.find("t-a") != std::string::npos, message.c_str());

    auto withinBatch = store->appendEvents({sampleEvent("t-a", 5), sampleEvent("t-a", 5)});
    QVERIFY(!withinBatch);
    QVERIFY2(withinBatch.error().message.find("seq 5") != std::string::npos,
             withinBatch.error().message.c_str());

    auto events = store->events("t-a");
    QVERIFY(events);
    QCOMPARE(seqsOf(*events), (std::vector<std::uint64_t>{1, 2})); // nothing of either batch
    // The connection is usable afterwards: the failed transactions were rolled back.
    QVERIFY(store->appendEvents({sampleEvent("t-a", 3)}));
}

void StoreContract::eventsOfAnUnknownTaskAreRefused() {
    auto store = openStore();
    auto refused = store->appendEvents({sampleEvent("t-ghost", 1)});
    QVERIFY(!refused);
    QVERIFY2(refused.error().message.find("t-ghost") != std::string::npos, refused.error().message.c_str());
    QVERIFY2(refused.error().message.find("add the task first") != std::string::npos,
             refused.error().message.c_str());
}

void StoreContract::approvalsRoundTrip() {
    auto store = openStore();
    QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
    ApprovalRecord asked{"t-a",        "call-1",
                         "shell",      "{\"command\":\"rm -rf build\"}",
                         "risky tool", "2026-01-01T00:00:01.000Z",
                         std::nullopt, "",
                         "",           ""};
    ApprovalRecord second = asked;
    second.callId = "call-2";
    second.requestedAt = "2026-01-01T00:00:02.000Z";
    QVERIFY(store->insertApproval(asked));
    QVERIFY(store->insertApproval(second));
    QVERIFY(!store->insertApproval(asked)); // asked once only

    auto pending = store->approvals("t-a");
    QVERIFY(pending);
    QCOMPARE(pending->size(), std::size_t(2));
    QCOMPARE(pending->at(0).callId, std::string("call-1"));
    QVERIFY(!pending->at(0).approved.has_value());
    QCOMPARE(pending->at(0).arguments, asked.arguments);

    asked.approved = true;
    asked.decidedBy = "user";
    asked.note = "fine";
    asked.decidedAt = "2026-01-01T00:00:05.000Z";
    second.approved = false;
    second.decidedBy = "rule";
    QVERIFY(store->updateApproval(asked));
    QVERIFY(store->updateApproval(second));
    auto decided = store->approvals("t-a");
    QVERIFY(decided);
    QCOMPARE(decided->at(0).approved, std::optional<bool>(true));
    QCOMPARE(decided->at(0).decidedBy, std::string("user"));
    QCOMPARE(decided->at(0).note, std::string("fine"));
    QCOMPARE(decided->at(0).decidedAt, asked.decidedAt);
    QCOMPARE(decided->at(1).approved, std::optional<bool>(false));

    ApprovalRecord never = asked;
    never.callId = "call-9";
    auto unknown = store->updateApproval(never);
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().code, ErrorCode::NotFound);
}

void StoreContract::artifactsRoundTrip() {
    auto store = openStore();
    QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
    QVERIFY(store->putArtifact({"t-a", "report.md", 10, "aa"}));
    QVERIFY(store->putArtifact({"t-a", "data/out.csv", 20, "bb"}));
    QVERIFY(store->putArtifact({"t-a", "report.md", 30, "cc"})); // same path replaces
    auto artifacts = store->artifacts("t-a");
    QVERIFY(artifacts);
    QCOMPARE(artifacts->size(), std::size_t(2));
    QCOMPARE(artifacts->at(0).path, std::string("data/out.csv"));
    QCOMPARE(artifacts->at(1).path, std::string("report.md"));
    QCOMPARE(artifacts->at(1).bytes, std::uint64_t(30));
    QCOMPARE(artifacts->at(1).sha256, std::string("cc"));
    QVERIFY(!store->putArtifact({"t-ghost", "x", 1, "dd"}));
}

void StoreContract::settingsRoundTrip() {
    auto store = openStore();
    auto missing = store->setting("ui.theme");
    QVERIFY(missing && !missing->has_value());
    QVERIFY(store->setSetting("ui.theme", "\"dark\""));
    QVERIFY(store->setSetting("ui.theme", "\"light\""));
    auto theme = store->setting("ui.theme");
    QVERIFY(theme && theme->has_value());
    QCOMPARE(**theme, std::string("\"light\""));
    {
        auto reopened = openStore();
        auto again = reopened->setting("ui.theme");
        QVERIFY(again && again->has_value());
        QCOMPARE(**again, std::string("\"light\""));
    }
}

void StoreContract::memoriesAreConfinedToTheirPrefix() {
    auto store = openStore();
    QVERIFY(store->memoryPut("alice/", "notes", "plan", "the secret launch plan"));
    auto own = store->memoryGet("alice/", "notes", "plan");
    QVERIFY(own && own->has_value());
    QCOMPARE(**own, std::string("the secret launch plan"));

    for (const std::string prefix : {"bob/", "alice", "alice/x", "ALICE/", "%", "alice%", "_lice/"}) {
        auto other = store->memoryGet(prefix, "notes", "plan");
        QVERIFY(other);
        QVERIFY2(!other->has_value(), prefix.c_str());
        for (bool ranked : {true, false}) {
            auto found = store->memorySearch(prefix, "secret", 10, ranked);
            QVERIFY(found);
            QVERIFY2(found->empty(), prefix.c_str());
        }
        auto everything = store->memorySearch(prefix, "", 10, false);
        QVERIFY(everything && everything->empty());
    }

    // The same key under another prefix is another entry, and writing it leaves alice's alone.
    QVERIFY(store->memoryPut("bob/", "notes", "plan", "bob's plan"));
    auto stillAlice = store->memoryGet("alice/", "notes", "plan");
    QVERIFY(stillAlice && stillAlice->has_value());
    QCOMPARE(**stillAlice, std::string("the secret launch plan"));
    auto bobs = store->memorySearch("bob/", "plan", 10, true);
    QVERIFY(bobs);
    QCOMPARE(bobs->size(), std::size_t(1));
    QCOMPARE(bobs->at(0).value, std::string("bob's plan"));

    auto empty = store->memoryPut("", "notes", "plan", "x");
    QVERIFY(!empty);
    QCOMPARE(empty.error().code, ErrorCode::InvalidArgument);
}

void StoreContract::memoryPutReplacesAndKeepsTheIndexInStep() {
    auto store = openStore();
    QVERIFY(store->memoryPut("p/", "ns", "k", "apples"));
    QVERIFY(store->memoryPut("p/", "ns", "k", "oranges"));
    auto value = store->memoryGet("p/", "ns", "k");
    QVERIFY(value && value->has_value());
    QCOMPARE(**value, std::string("oranges"));
    auto old = store->memorySearch("p/", "apples", 10, true);
    QVERIFY(old && old->empty());
    auto current = store->memorySearch("p/", "oranges", 10, true);
    QVERIFY(current);
    QCOMPARE(keysOf(*current), QStringList{"ns/k"});
    auto check = store->integrityCheck();
    QVERIFY(check);
    QCOMPARE(*check, std::string("ok"));
}

void StoreContract::memorySearch_data() {
    QTest::addColumn<QString>("query");
    QTest::addColumn<bool>("ranked");
    QTest::addColumn<int>("limit");
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("ranked: more query words first")
        << "ansible server" << true << 10 << QStringList{"ops/deploy", "ops/inventory"};
    QTest::newRow("ranked: limit") << "ansible server" << true << 1 << QStringList{"ops/deploy"};
    // Both hold the word once: the shorter entry ranks first.
    QTest::newRow("ranked: case-insensitive, shorter first")
        << "ANSIBLE" << true << 10 << QStringList{"ops/inventory", "ops/deploy"};
    QTest::newRow("ranked: key words count") << "nginx" << true << 10 << QStringList{"web/nginx"};
    QTest::newRow("ranked: partial word is no match") << "ansib" << true << 10 << QStringList{};
    QTest::newRow("ranked: only punctuation") << "?!-- ** ()" << true << 10 << QStringList{};
    QTest::newRow("ranked: empty") << "" << true << 10 << QStringList{};
    QTest::newRow("ranked: FTS syntax is just words")
        << "nginx\" NEAR( OR" << true << 10 << QStringList{"web/nginx"};
    QTest::newRow("ranked: column filter is not syntax")
        << "key:nginx" << true << 10 << QStringList{"web/nginx"};
    QTest::newRow("substring: inside words") << "ploy the ser" << false << 10 << QStringList{"ops/deploy"};
    QTest::newRow("substring: namespace/key order")
        << "ansible" << false << 10 << QStringList{"ops/deploy", "ops/inventory"};
    QTest::newRow("substring: case-insensitive") << "NGINX" << false << 10 << QStringList{"web/nginx"};
    QTest::newRow("substring: percent is literal") << "%" << false << 10 << QStringList{"web/nginx"};
    QTest::newRow("substring: underscore is literal") << "_" << false << 10 << QStringList{"misc/under"};
    QTest::newRow("substring: backslash is literal") << "c:\\tmp" << false << 10 << QStringList{"misc/path"};
    QTest::newRow("substring: empty matches all")
        << "" << false << 10
        << QStringList{"misc/path", "misc/under", "ops/deploy", "ops/inventory", "web/nginx"};
    QTest::newRow("substring: limit") << "" << false << 2 << QStringList{"misc/path", "misc/under"};
}

void StoreContract::memorySearch() {
    QFETCH(QString, query);
    QFETCH(bool, ranked);
    QFETCH(int, limit);
    QFETCH(QStringList, expected);
    auto store = openStore();
    QVERIFY(
        store->memoryPut("me/", "ops", "deploy", "deploy the server with ansible, then restart the server"));
    QVERIFY(store->memoryPut("me/", "ops", "inventory", "ansible inventory lives in hosts.ini"));
    QVERIFY(store->memoryPut("me/", "web", "nginx", "the proxy serves 100% of traffic"));
    QVERIFY(store->memoryPut("me/", "misc", "under", "names like a_b are snake case"));
    QVERIFY(store->memoryPut("me/", "misc", "path", "windows paths like c:\\tmp"));
    QVERIFY(
        store->memoryPut("someone-else/", "ops", "deploy", "ansible server ansible server nginx 100% a_b"));
    auto found = store->memorySearch("me/", query.toStdString(), static_cast<std::uint64_t>(limit), ranked);
    QVERIFY2(found, found ? "" : found.error().message.c_str());
    QCOMPARE(keysOf(*found), expected);
}

void StoreContract::integrityCheckIsOkAfterUse() {
    auto store = openStore();
    QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
    std::vector<EventRow> events;
    for (std::uint64_t seq = 1; seq <= 1000; ++seq)
        events.push_back(sampleEvent("t-a", seq));
    QVERIFY(store->appendEvents(events));
    for (int i = 0; i < 50; ++i)
        QVERIFY(store->memoryPut("p/", "ns", "k" + std::to_string(i % 10), "value " + std::to_string(i)));
    auto check = store->integrityCheck();
    QVERIFY(check);
    QCOMPARE(*check, std::string("ok"));
}

} // namespace warren::test
