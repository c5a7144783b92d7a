// One user's memories are not another's, end to end: real agents (scripted models) on a real warrend and
// PostgreSQL. Alice saves a note holding a secret word; Bob (her tenant) and Carol (another tenant) search
// for it, for the note's other words and key, for wildcards and for SQL, LIKE and tsquery syntax, in the
// substring and the ranked search, and no tool result in their events holds any of it; Bob's own note is
// found by the same searches, and Alice's later tasks find hers, so the searches work and the negative
// means something. The note is in the database under Alice's prefix, user-<id>/assistant-main.
#include "app/store/postgres/PgConnection.h"
#include "tests/support/WarrendServer.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace warren::test;
using nlohmann::json;
using warren::control::PgConnection;

namespace {

const std::string kAliceKey = "deploy-notes";
const std::string kBobKey = "bob-notes";
const std::string kBobValue = "bob will deploy on fridays";

// The searches Bob and Carol run: the secret and Alice's other words are added per run.
const std::vector<std::string> kHostileQueries = {"deploy",
                                                  "password staging cluster",
                                                  kAliceKey,
                                                  "e",
                                                  "%",
                                                  "_",
                                                  "*",
                                                  "%%",
                                                  "' | & ! :*",
                                                  "deploy:*",
                                                  "password & !bob",
                                                  "' OR '1'='1",
                                                  "%' OR prefix LIKE '%",
                                                  "\\",
                                                  "",
                                                  " "};

json call(const std::string& tool, json arguments) {
    return {{"name", tool}, {"arguments", std::move(arguments)}};
}

json searchCall(const std::string& query) {
    return call("memory_search", {{"query", query}, {"limit", 100}});
}

// One turn with these calls, then finish.
json scriptOf(json calls) {
    return {{"turns", json::array({{{"tool_calls", std::move(calls)}},
                                   {{"tool_calls", json::array({call("finish", {{"summary", "done"}})})}}})}};
}

struct ToolRun {
    json arguments;
    std::string output;
};

// The task's results of its memory tools by call id, with the arguments of their call, read from
// GET .../events (finish is left out).
std::map<std::string, ToolRun> memoryToolRuns(const json& events) {
    std::map<std::string, ToolRun> runs;
    for (const auto& event : events) {
        if (!event.value("tool", "").starts_with("memory_"))
            continue;
        const std::string type = event.value("type", "");
        const std::string id = event["data"].value("id", "");
        if (type == "tool_call")
            runs[id].arguments = event["data"]["arguments"];
        else if (type == "tool_result")
            runs[id].output = event["data"].value("output", "");
    }
    return runs;
}

std::string firstLine(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// A memory_search result's hits: its lines after the first (the count and the query), each a JSON object.
std::vector<json> hitsOf(const std::string& output) {
    std::vector<json> hits;
    const auto start = output.find('\n');
    if (start == std::string::npos)
        return hits;
    QString rest = QString::fromStdString(output.substr(start + 1));
    for (const QString& line : rest.split('\n', Qt::SkipEmptyParts))
        hits.push_back(json::parse(line.toStdString(), nullptr, false));
    return hits;
}

bool hasKey(const std::vector<json>& hits, const std::string& key) {
    for (const auto& hit : hits)
        if (hit.is_object() && hit.value("key", "") == key)
            return true;
    return false;
}

} // namespace

class TestWarrendMemory : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void aliceSavesANoteUnderHerPrefix();
    void bobSavesHisOwn();
    void othersSearchesHoldNoneOfAlicesNote_data();
    void othersSearchesHoldNoneOfAlicesNote();
    void aliceFindsHerNote_data();
    void aliceFindsHerNote();

private:
    // Runs a task of caller's with these calls to its end; its memory tools' runs, and false on a failure
    // (reported).
    bool runTask(const QString& key, const json& calls, const QStringList& presets,
                 std::map<std::string, ToolRun>* runs);
    PgConnection database();

    std::unique_ptr<WarrendServer> m_server;
    QTemporaryDir m_scratch;
    std::map<QString, QString> m_keys, m_uploads; // by user name
    std::string m_secret, m_aliceValue;
};

void TestWarrendMemory::initTestCase() {
    QString error;
    m_server = WarrendServer::create(&error);
    QVERIFY2(m_server, qPrintable(error));
    for (const auto& [name, tenant] : {std::pair{"alice", "acme"}, {"bob", "acme"}, {"carol", "globex"}}) {
        m_keys[name] = m_server->addUser(name, tenant);
        QVERIFY(m_keys[name].startsWith("wrn_"));
    }
    QVERIFY2(m_server->start(&error), qPrintable(error));
    QVERIFY(QDir().mkpath(m_scratch.filePath("workspace")));
    QFile readme(m_scratch.filePath("workspace/README.md"));
    QVERIFY(readme.open(QIODevice::WriteOnly));
    readme.write("# project\n");
    readme.close();
    for (const auto& [name, key] : m_keys) {
        m_uploads[name] = m_server->upload(key, m_scratch.filePath("workspace"));
        QVERIFY(!m_uploads[name].isEmpty());
    }
    // One word to the searches (letters and digits), found nowhere but in Alice's note.
    m_secret = "kestrel" + QString::number(QRandomGenerator::global()->generate64(), 16).toStdString();
    m_aliceValue = "the deploy password is " + m_secret + " for the staging cluster";
}

PgConnection TestWarrendMemory::database() {
    auto connection = PgConnection::open(m_server->databaseUrl().toStdString());
    if (!connection)
        qFatal("%s", connection.error().message.c_str());
    return std::move(connection).value();
}

bool TestWarrendMemory::runTask(const QString& key, const json& calls, const QStringList& presets,
                                std::map<std::string, ToolRun>* runs) {
    QString user;
    for (const auto& [name, userKey] : m_keys)
        if (userKey == key)
            user = name;
    json body{
        {"prompt", "remember"}, {"workspace", m_uploads[user].toStdString()}, {"script", scriptOf(calls)}};
    if (!presets.isEmpty()) {
        body["presets"] = json::array();
        for (const QString& preset : presets)
            body["presets"].push_back(preset.toStdString());
    }
    const HttpAnswer created =
        m_server->request("POST", "/v1/tasks", key, QByteArray::fromStdString(body.dump()));
    if (created.status != 201) {
        qWarning() << "POST /v1/tasks:" << created.status << created.body;
        return false;
    }
    const QString task = QString::fromStdString(created.json().value("id", ""));
    const auto streamed = m_server->streamEvents(task, key, {}); // to the stream's end
    if (streamed.empty() || streamed.back().value("type", "") != "task_finished" ||
        streamed.back()["data"].value("reason", "") != "finished") {
        qWarning() << "task" << task
                   << "did not finish:" << (streamed.empty() ? "no events" : streamed.back().dump().c_str());
        return false;
    }
    const HttpAnswer page = m_server->request("GET", "/v1/tasks/" + task + "/events?limit=1000", key);
    *runs = memoryToolRuns(page.json().value("events", json::array()));
    return true;
}

void TestWarrendMemory::aliceSavesANoteUnderHerPrefix() {
    std::map<std::string, ToolRun> runs;
    QVERIFY(runTask(m_keys["alice"],
                    json::array({call("memory_save", {{"key", kAliceKey}, {"value", m_aliceValue}})}), {},
                    &runs));
    QCOMPARE(runs.size(), std::size_t(1));
    QVERIFY2(runs.begin()->second.output.starts_with("saved "), runs.begin()->second.output.c_str());

    auto db = database();
    auto id = db.exec("find alice", "SELECT id FROM users WHERE name = 'alice'");
    QVERIFY2(id && id->rows.size() == 1, id ? "no alice" : id.error().message.c_str());
    auto rows = db.exec("find the note", "SELECT prefix, key FROM memories WHERE value LIKE $1",
                        {"%" + m_secret + "%"});
    QVERIFY2(rows, rows ? "" : rows.error().message.c_str());
    QCOMPARE(rows->rows.size(), std::size_t(1));
    QCOMPARE(rows->rows[0].text(0), "user-" + id->rows[0].text(0) + "/assistant-main");
    QCOMPARE(rows->rows[0].text(1), kAliceKey);
}

void TestWarrendMemory::bobSavesHisOwn() {
    std::map<std::string, ToolRun> runs;
    QVERIFY(runTask(m_keys["bob"],
                    json::array({call("memory_save", {{"key", kBobKey}, {"value", kBobValue}})}), {}, &runs));
    QCOMPARE(runs.size(), std::size_t(1));
    QVERIFY2(runs.begin()->second.output.starts_with("saved "), runs.begin()->second.output.c_str());
}

void TestWarrendMemory::othersSearchesHoldNoneOfAlicesNote_data() {
    QTest::addColumn<QString>("user");
    QTest::addColumn<QStringList>("presets");
    QTest::newRow("her tenant's user, substring search") << "bob" << QStringList();
    QTest::newRow("her tenant's user, ranked search") << "bob" << QStringList{"long-term-memory"};
    QTest::newRow("another tenant's user, substring search") << "carol" << QStringList();
    QTest::newRow("another tenant's user, ranked search") << "carol" << QStringList{"long-term-memory"};
}

void TestWarrendMemory::othersSearchesHoldNoneOfAlicesNote() {
    QFETCH(QString, user);
    QFETCH(QStringList, presets);
    std::vector<std::string> queries = kHostileQueries;
    for (const std::string& more : {m_secret, m_secret.substr(0, 9), m_secret + ":*", m_aliceValue})
        queries.push_back(more);
    json calls = json::array();
    for (const auto& query : queries)
        calls.push_back(searchCall(query));
    std::map<std::string, ToolRun> runs;
    QVERIFY(runTask(m_keys[user], calls, presets, &runs));
    QCOMPARE(runs.size(), queries.size()); // every search answered: none of the negatives below is vacuous

    for (const auto& [id, run] : runs) {
        const std::string query = run.arguments.value("query", "");
        const std::string where = id + " " + json(query).dump() + ": " + run.output;
        QVERIFY2(!run.output.empty(), where.c_str());
        const std::vector<json> hits = hitsOf(run.output);
        QVERIFY2(!hasKey(hits, kAliceKey), where.c_str());
        const std::string rest = run.output.substr(firstLine(run.output).size());
        for (const std::string& alices :
             {m_secret, std::string("password"), std::string("staging"), kAliceKey})
            QVERIFY2(rest.find(alices) == std::string::npos, where.c_str());
        if (query.find(m_secret) == std::string::npos) // the first line repeats the query
            QVERIFY2(firstLine(run.output).find(m_secret) == std::string::npos, where.c_str());
        for (const auto& hit : hits)
            QVERIFY2(hit.is_object() && hit.value("key", "") == kBobKey, where.c_str());
        // His own note, by a word Alice's has too (ranked), or by a letter in both notes (substring).
        const bool ranked = !presets.isEmpty();
        if (user == "bob" && (query == "deploy" || query == (ranked ? "deploy:*" : "e")))
            QVERIFY2(hasKey(hits, kBobKey), where.c_str());
    }
}

void TestWarrendMemory::aliceFindsHerNote_data() {
    QTest::addColumn<QStringList>("presets");
    QTest::newRow("substring search") << QStringList();
    QTest::newRow("ranked search") << QStringList{"long-term-memory"};
}

void TestWarrendMemory::aliceFindsHerNote() {
    QFETCH(QStringList, presets);
    const std::vector<std::string> queries{m_secret, "deploy", "staging cluster"};
    json calls = json::array();
    for (const auto& query : queries)
        calls.push_back(searchCall(query));
    std::map<std::string, ToolRun> runs;
    QVERIFY(runTask(m_keys["alice"], calls, presets, &runs));
    QCOMPARE(runs.size(), queries.size());
    for (const auto& [id, run] : runs) {
        const std::string where = id + ": " + run.output;
        const std::vector<json> hits = hitsOf(run.output);
        QVERIFY2(hits.size() == 1 && hasKey(hits, kAliceKey), where.c_str()); // hers alone, not Bob's
        QCOMPARE(hits[0].value("value", ""), m_aliceValue);
    }
}

QTEST_GUILESS_MAIN(TestWarrendMemory)
#include "tst_warrend_memory.moc"
