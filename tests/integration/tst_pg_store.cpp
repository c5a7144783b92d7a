// PgStore: the Store contract (tests/support/StoreContract, shared with SqliteStore) against a real
// PostgreSQL, and what only PostgreSQL has: migrations under an advisory lock (two stores opening at once
// apply them once), a lost connection reported as such with nothing committed lost, batches as arrays.

#include "app/store/OpenStore.h"
#include "app/store/postgres/PgMigrations.h"
#include "app/store/postgres/PgStore.h"
#include "tests/support/PostgresServer.h"
#include "tests/support/StoreContract.h"

#include <QtTest>
#include <thread>

using namespace warren;
using namespace warren::control;
using test::sampleEvent;
using test::sampleTask;
using test::seqsOf;

class TestPgStore : public test::StoreContract {
    Q_OBJECT

    std::unique_ptr<test::PostgresServer> m_server;

    std::string url() const { return m_server->url().toStdString(); }
    PgConnection admin() {
        auto connection = PgConnection::open(url());
        if (!connection)
            qFatal("%s", connection.error().message.c_str());
        return std::move(connection).value();
    }
    std::unique_ptr<PgStore> openPg() {
        auto store = PgStore::open(url());
        if (!store)
            qFatal("cannot open the test database: %s", store.error().message.c_str());
        return std::move(store).value();
    }
    std::uint64_t count(const char* sql) {
        auto db = admin();
        auto reply = db.exec("count", sql);
        if (!reply || reply->rows.empty())
            qFatal("cannot count: %s", reply ? "no row" : reply.error().message.c_str());
        return reply->rows.front().uint(0);
    }

    void emptyDatabase() override {
        QVERIFY(m_server);
        auto db = admin();
        QVERIFY(db.execScript("empty the database", "DROP SCHEMA public CASCADE; CREATE SCHEMA public"));
    }
    std::unique_ptr<Store> openStore() override { return openPg(); }
    int latestSchemaVersion() const override { return pgLatestSchemaVersion(); }

private slots:
    void initTestCase() {
        QString error;
        m_server = test::PostgresServer::start(&error);
        QVERIFY2(m_server, qPrintable(error));
    }

    // ---- migrations

    void migratesAnEmptyDatabaseAndRecordsEachStep() {
        auto store = openPg();
        QCOMPARE(store->schemaVersion(), pgLatestSchemaVersion());
        QCOMPARE(count("SELECT count(*) FROM warren_schema"), std::uint64_t(pgMigrations().size()));
        QCOMPARE(count("SELECT count(*) FROM pg_indexes WHERE indexname = 'memories_search'"),
                 std::uint64_t(1));
    }

    void migrationsRunOnceWhenStoresOpenAtOnce() {
        constexpr std::size_t kStores = 6;
        std::vector<std::string> errors(kStores);
        std::vector<int> versions(kStores, -1);
        {
            std::vector<std::jthread> openers;
            for (std::size_t i = 0; i < kStores; ++i)
                openers.emplace_back([&, i] {
                    auto store = PgStore::open(url());
                    if (store)
                        versions[i] = (*store)->schemaVersion();
                    else
                        errors[i] = store.error().message;
                });
        }
        for (std::size_t i = 0; i < kStores; ++i) {
            QVERIFY2(errors[i].empty(), errors[i].c_str());
            QCOMPARE(versions[i], pgLatestSchemaVersion());
        }
        QCOMPARE(count("SELECT count(*) FROM warren_schema"), std::uint64_t(pgMigrations().size()));
    }

    void refusesADatabaseNewerThanTheBuild() {
        openPg();
        auto db = admin();
        QVERIFY(db.exec("bump",
                        "INSERT INTO warren_schema (version, what) VALUES ($1::integer, 'from the future')",
                        {std::to_string(pgLatestSchemaVersion() + 1)}));
        auto store = PgStore::open(url());
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::Unsupported);
        QVERIFY2(store.error().message.find("newer") != std::string::npos, store.error().message.c_str());
        QVERIFY2(store.error().message.find("update Warren") != std::string::npos,
                 store.error().message.c_str());
    }

    void aFailedMigrationKeepsNothingOfIt() {
        auto db = admin();
        const PgMigration broken[] = {
            {1, "create a", "CREATE TABLE a (x integer)"},
            {2, "create b, then fail", "CREATE TABLE b (y integer); INSERT INTO no_such_table VALUES (1)"},
        };
        auto migrated = pgMigrate(db, broken);
        QVERIFY(!migrated);
        QVERIFY2(migrated.error().message.find("version 2") != std::string::npos,
                 migrated.error().message.c_str());
        QVERIFY2(migrated.error().message.find("left at schema version 0") != std::string::npos,
                 migrated.error().message.c_str());
        QCOMPARE(count("SELECT count(*) FROM pg_tables WHERE tablename IN ('a', 'b', 'warren_schema')"),
                 std::uint64_t(0));
        const PgMigration fixed[] = {
            {1, "create a", "CREATE TABLE a (x integer)"},
            {2, "create b", "CREATE TABLE b (y integer)"},
        };
        QCOMPARE(pgMigrate(db, fixed).value(), 2);
        QCOMPARE(pgMigrate(db, fixed).value(), 2); // already there: nothing to do
        QCOMPARE(count("SELECT count(*) FROM warren_schema"), std::uint64_t(2));
    }

    // warrend may run as a role that can use the tables but not create any: once migrated, it opens.
    void anUpToDateDatabaseOpensWithoutCreatePrivilege() {
        openPg();
        auto db = admin();
        QVERIFY(db.execScript(
            "make the role",
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'warren_app') THEN "
            "CREATE ROLE warren_app LOGIN; END IF; END $$; "
            "GRANT USAGE ON SCHEMA public TO warren_app; "
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO warren_app"));
        std::string appUrl = url();
        appUrl.replace(appUrl.find("user="), std::string::npos, "user=warren_app");
        auto store = PgStore::open(appUrl);
        QVERIFY2(store, store ? "" : store.error().message.c_str());
        QVERIFY((*store)->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
        auto refused =
            db.exec("create as the app", "SELECT has_schema_privilege('warren_app', 'public', 'CREATE')");
        QCOMPARE(refused->rows.front().optionalBool(0), std::optional<bool>(false));
    }

    void integrityCheckNoticesAChangedSchema() {
        auto store = openPg();
        QCOMPARE(store->integrityCheck().value(), std::string("ok"));
        auto db = admin();
        QVERIFY(db.exec("forget", "DELETE FROM warren_schema"));
        auto check = store->integrityCheck();
        QVERIFY(check);
        QVERIFY2(*check != "ok" && check->find("version 0") != std::string::npos, check->c_str());
        QVERIFY(db.execScript("drop", "DROP TABLE settings"));
        QVERIFY(db.exec("restore", "INSERT INTO warren_schema (version, what) VALUES ($1::integer, 'again')",
                        {std::to_string(pgLatestSchemaVersion())}));
        check = store->integrityCheck();
        QVERIFY2(check && check->find("settings") != std::string::npos, check ? check->c_str() : "");
    }

    // ---- connections

    // A restart between calls: the store's next call reopens its connection, and everything committed is
    // there (a restart inside a call is tst_pg_connection's and the writer's: reported, then retried).
    void aRestartLosesNothingCommitted() {
        auto store = openPg();
        QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
        std::vector<EventRow> events;
        for (std::uint64_t seq = 1; seq <= 500; ++seq)
            events.push_back(sampleEvent("t-a", seq));
        QVERIFY(store->appendEvents(events));
        QVERIFY(store->memoryPut("p/", "ns", "k", "kept across a restart"));

        QString error;
        QVERIFY2(m_server->restart(&error), qPrintable(error));
        auto last = store->lastSeq("t-a");
        QVERIFY2(last, last ? "" : last.error().message.c_str());
        QCOMPARE(*last, std::uint64_t(500));
        QVERIFY(store->appendEvents({sampleEvent("t-a", 501)}));

        auto reopened = control::openStore(url()); // by URL, as the server opens it
        QVERIFY2(reopened, reopened ? "" : reopened.error().message.c_str());
        auto stored = (*reopened)->events("t-a", 0, UINT64_MAX);
        QVERIFY(stored);
        QCOMPARE(stored->size(), std::size_t(501));
        QCOMPARE(stored->back().seq, std::uint64_t(501));
        QCOMPARE((*reopened)->memoryGet("p/", "ns", "k").value(),
                 std::optional<std::string>("kept across a restart"));
    }

    void anUnreachableServerSaysSo() {
        QTemporaryDir empty;
        auto store = control::openStore("postgresql:///postgres?host=" + empty.path().toStdString());
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::Unavailable);
        QVERIFY2(store.error().message.find("is it running") != std::string::npos,
                 store.error().message.c_str());
    }

    // ---- events

    void aDuplicateSeqInALargeBatchWritesNothing() {
        auto store = openPg();
        QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
        QVERIFY(store->appendEvents({sampleEvent("t-a", 1)}));
        std::vector<EventRow> batch;
        for (std::uint64_t seq = 2; seq <= 4096; ++seq)
            batch.push_back(sampleEvent("t-a", seq));
        batch.push_back(sampleEvent("t-a", 1)); // the last one is already stored
        auto refused = store->appendEvents(batch);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(refused.error().message.find("event seq 1 of task t-a") != std::string::npos,
                 refused.error().message.c_str());
        QCOMPARE(store->lastSeq("t-a").value(), std::uint64_t(1));
        QCOMPARE(count("SELECT count(*) FROM events"), std::uint64_t(1));
    }

    void anyTextRoundTripsThroughABatch() {
        auto store = openPg();
        QVERIFY(store->insertTask(sampleTask("t-a", "2026-01-01T00:00:00.000Z")));
        const std::vector<std::string> bodies{
            "",     "{\"q\":\"\\\"\"}", "back\\slash",      "comma, {brace}",
            "NULL", "ünïcödé ✓",        "line\nbreak\ttab", "'single'"};
        std::vector<EventRow> batch;
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            auto event = sampleEvent("t-a", i + 1);
            event.body = bodies[i];
            event.tool = i % 2 ? bodies[i] : "";
            batch.push_back(event);
        }
        QVERIFY(store->appendEvents(batch));
        auto stored = store->events("t-a", 0, UINT64_MAX);
        QVERIFY(stored);
        QCOMPARE(stored->size(), bodies.size());
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            QCOMPARE(stored->at(i).body, bodies[i]);
            QCOMPARE(stored->at(i).tool, batch[i].tool);
        }
        auto nul = sampleEvent("t-a", 100);
        nul.body = std::string("a\0b", 3);
        auto refused = store->appendEvents({nul});
        QVERIFY(!refused);
        QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
    }

    // ---- memories

    void prefixesStayApartWhateverTheQuery() {
        auto store = openPg();
        for (const std::string prefix : {"a/", "a%/", "a_/", "a\\/", "b/"})
            QVERIFY(
                store->memoryPut(prefix, "ns", "k", "value of " + prefix + " with 100% and a_b and c:\\d"));
        for (const std::string prefix : {"a/", "a%/", "a_/", "a\\/", "b/"}) {
            // Every value holds these literally.
            for (const std::string query : {"", "%", "_", "\\", "value", "100%", "a_b", "c:\\d"}) {
                auto found = store->memorySearch(prefix, query, 100, false);
                QVERIFY(found);
                QCOMPARE(found->size(), std::size_t(1));
                QCOMPARE(found->front().value, "value of " + prefix + " with 100% and a_b and c:\\d");
            }
            // None holds these, which as LIKE patterns would match every value.
            for (const std::string query : {"v%e", "v_lue", "0%%", "c:_d"}) {
                auto found = store->memorySearch(prefix, query, 100, false);
                QVERIFY(found);
                QVERIFY2(found->empty(), query.c_str());
            }
            auto ranked = store->memorySearch(prefix, "value", 100, true);
            QVERIFY(ranked);
            QCOMPARE(ranked->size(), std::size_t(1));
            QVERIFY(ranked->front().value.find(prefix) != std::string::npos);
        }
        QVERIFY(store->memorySearch("a", "", 100, false)->empty()); // a prefix is not a pattern
        QVERIFY(store->memorySearch("%", "", 100, false)->empty());
    }

    void wordsAreMemoryQueryWordsNotTheParsers() {
        auto store = openPg();
        QVERIFY(store->memoryPut("p/", "ops", "inventory", "lives in hosts.ini at https://example.org/x-y"));
        for (const std::string query : {"hosts", "ini", "example", "org", "x", "y"}) {
            auto found = store->memorySearch("p/", query, 10, true);
            QVERIFY(found);
            QVERIFY2(found->size() == 1, query.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestPgStore)
#include "tst_pg_store.moc"
