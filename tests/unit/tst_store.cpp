// SqliteStore: the Store contract (tests/support/StoreContract, shared with PgStore) on a SQLite file, and
// what only SQLite has: its schema comes from the migrations (and refuses a newer one or a file that is not
// a database), WAL mode and foreign keys; and the pure parts of the store (status names, memory queries).

#include "app/store/MemoryQuery.h"
#include "app/store/sqlite/Migrations.h"
#include "app/store/sqlite/SqliteStore.h"
#include "tests/support/StoreContract.h"

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <sqlite3.h>

using namespace warren;
using namespace warren::control;
using warren::test::sampleTask;

namespace {

int userVersion(sqlite3* db) {
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nullptr);
    sqlite3_step(statement);
    const int version = sqlite3_column_int(statement, 0);
    sqlite3_finalize(statement);
    return version;
}

bool hasTable(sqlite3* db, const char* name) {
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_schema WHERE name = ?1", -1, &statement, nullptr);
    sqlite3_bind_text(statement, 1, name, -1, SQLITE_TRANSIENT);
    const bool found = sqlite3_step(statement) == SQLITE_ROW;
    sqlite3_finalize(statement);
    return found;
}

} // namespace

class TestStore : public test::StoreContract {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_path;

    void emptyDatabase() override {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath("warren.db").toStdString();
        QFile::remove(QString::fromStdString(m_path));
        QFile::remove(QString::fromStdString(m_path + "-wal"));
        QFile::remove(QString::fromStdString(m_path + "-shm"));
    }
    std::unique_ptr<Store> openStore() override { return openSqlite(); }
    int latestSchemaVersion() const override { return control::latestSchemaVersion(); }
    // The implementation itself, for what only SQLite has: its pragmas and its schema table.
    std::unique_ptr<SqliteStore> openSqlite() {
        auto store = SqliteStore::open(m_path);
        if (!store)
            qFatal("cannot open the test database: %s", store.error().message.c_str());
        return std::move(store).value();
    }

private slots:
    // ---- opening and migrations

    void migratesAnEmptyFileToTheLatestVersion() {
        auto store = openSqlite();
        QCOMPARE(store->schemaVersion(), latestSchemaVersion());
        QCOMPARE(userVersion(store->handle()), latestSchemaVersion());
        for (const char* table :
             {"tasks", "events", "approvals", "artifacts", "memories", "memories_fts", "settings"})
            QVERIFY2(hasTable(store->handle(), table), table);
    }

    void opensInWalModeWithForeignKeys() {
        auto store = openSqlite();
        sqlite3_stmt* statement = nullptr;
        sqlite3_prepare_v2(store->handle(), "PRAGMA journal_mode", -1, &statement, nullptr);
        QCOMPARE(sqlite3_step(statement), SQLITE_ROW);
        QCOMPARE(QByteArray(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))),
                 QByteArray("wal"));
        sqlite3_finalize(statement);
        sqlite3_prepare_v2(store->handle(), "PRAGMA foreign_keys", -1, &statement, nullptr);
        QCOMPARE(sqlite3_step(statement), SQLITE_ROW);
        QCOMPARE(sqlite3_column_int(statement, 0), 1);
        sqlite3_finalize(statement);
    }

    void refusesADatabaseNewerThanTheBuild() {
        {
            auto store = openSqlite();
            const std::string bump = "PRAGMA user_version = " + std::to_string(latestSchemaVersion() + 1);
            QCOMPARE(sqlite3_exec(store->handle(), bump.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        }
        auto store = openSqliteStore(m_path);
        QVERIFY(!store);
        const auto& message = store.error().message;
        QVERIFY2(message.find(m_path) != std::string::npos, message.c_str());
        QVERIFY2(message.find("newer") != std::string::npos, message.c_str());
        QVERIFY2(message.find("update Warren") != std::string::npos, message.c_str());
    }

    void refusesAFileThatIsNotADatabase() {
        std::ofstream(m_path) << std::string(8192, 'x') << "\nthis is a text file, not SQLite\n";
        auto store = openSqliteStore(m_path);
        QVERIFY(!store);
        const auto& message = store.error().message;
        QVERIFY2(message.find(m_path) != std::string::npos, message.c_str());
        QVERIFY2(message.find("not a database") != std::string::npos, message.c_str());
        QVERIFY2(message.find("move it aside") != std::string::npos, message.c_str());
    }

    void refusesAMissingDirectory() {
        const std::string path = m_dir.filePath("missing/warren.db").toStdString();
        auto store = openSqliteStore(path);
        QVERIFY(!store);
        QCOMPARE(store.error().code, ErrorCode::NotFound);
        QVERIFY2(store.error().message.find("does not exist") != std::string::npos,
                 store.error().message.c_str());
    }

    void aFailedMigrationStepLeavesThePreviousVersion() {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(m_path.c_str(), &db), SQLITE_OK);
        const Migration broken[] = {
            {1, "create a", "CREATE TABLE a (x INTEGER);"},
            {2, "create b, then fail", "CREATE TABLE b (y INTEGER); INSERT INTO no_such_table VALUES (1);"},
        };
        auto migrated = migrate(db, broken, m_path);
        QVERIFY(!migrated);
        QVERIFY2(migrated.error().message.find("schema version 2") != std::string::npos,
                 migrated.error().message.c_str());
        QCOMPARE(userVersion(db), 1);
        QVERIFY(hasTable(db, "a"));
        QVERIFY(!hasTable(db, "b")); // the failed step's own changes rolled back with it

        const Migration fixed[] = {
            {1, "create a", "CREATE TABLE a (x INTEGER);"},
            {2, "create b", "CREATE TABLE b (y INTEGER);"},
        };
        QVERIFY(migrate(db, fixed, m_path));
        QCOMPARE(userVersion(db), 2);
        QVERIFY(hasTable(db, "b"));
        QVERIFY(migrate(db, fixed, m_path)); // already there: nothing to do
        QCOMPARE(userVersion(db), 2);
        sqlite3_close(db);
    }

    void aVersionOneDatabaseKeepsItsTasksAndEventsAndTakesWaiting() {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(m_path.c_str(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr), SQLITE_OK);
        QVERIFY(migrate(db, migrations().first(1), m_path));
        const char* rows =
            "INSERT INTO tasks (id, prompt, workspace, spec, status, created_at) VALUES "
            "('t-000000000001', 'p', '/w', '{}', 'paused', '2026-01-01T00:00:00.000Z');"
            "INSERT INTO events (task_id, seq, ts, type, step, body) VALUES "
            "('t-000000000001', 1, '2026-01-01T00:00:00.000Z', 'task_started', 0, '{}');";
        QCOMPARE(sqlite3_exec(db, rows, nullptr, nullptr, nullptr), SQLITE_OK);
        QVERIFY(sqlite3_exec(db, "UPDATE tasks SET status = 'waiting'", nullptr, nullptr, nullptr) != SQLITE_OK);
        sqlite3_close(db);

        auto store = openSqlite();
        QCOMPARE(store->schemaVersion(), latestSchemaVersion());
        auto task = store->task("t-000000000001");
        QVERIFY(task && task->has_value());
        QCOMPARE((*task)->status, TaskStatus::Paused);
        auto events = store->events("t-000000000001", 0, UINT64_MAX);
        QVERIFY(events);
        QCOMPARE(events->size(), std::size_t{1}); // not taken with the rebuilt table
        auto waiting = **task;
        waiting.status = TaskStatus::Waiting;
        QVERIFY(store->updateTask(waiting));
        sqlite3_stmt* statement = nullptr;
        sqlite3_prepare_v2(store->handle(), "PRAGMA foreign_keys", -1, &statement, nullptr);
        QCOMPARE(sqlite3_step(statement), SQLITE_ROW);
        QCOMPARE(sqlite3_column_int(statement, 0), 1); // on again after the migration
        sqlite3_finalize(statement);
        QVERIFY(sqlite3_exec(store->handle(), "UPDATE tasks SET status = 'dreaming'", nullptr, nullptr, nullptr) !=
                SQLITE_OK);
    }

    // ---- tasks

    void taskStatusNames_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("final");
        QTest::newRow("queued") << int(TaskStatus::Queued) << "queued" << false;
        QTest::newRow("running") << int(TaskStatus::Running) << "running" << false;
        QTest::newRow("paused") << int(TaskStatus::Paused) << "paused" << false;
        QTest::newRow("waiting") << int(TaskStatus::Waiting) << "waiting" << false;
        QTest::newRow("interrupted") << int(TaskStatus::Interrupted) << "interrupted" << false;
        QTest::newRow("succeeded") << int(TaskStatus::Succeeded) << "succeeded" << true;
        QTest::newRow("failed") << int(TaskStatus::Failed) << "failed" << true;
        QTest::newRow("cancelled") << int(TaskStatus::Cancelled) << "cancelled" << true;
    }

    void taskStatusNames() {
        QFETCH(int, status);
        QFETCH(QString, name);
        QFETCH(bool, final);
        const auto value = static_cast<TaskStatus>(status);
        QCOMPARE(QString(taskStatusName(value)), name);
        QCOMPARE(taskStatusFromName(name.toStdString()), std::optional<TaskStatus>(value));
        QCOMPARE(isFinal(value), final);
    }

    void unknownStatusNameIsRefused() {
        QVERIFY(!taskStatusFromName("Running"));
        QVERIFY(!taskStatusFromName(""));
    }

    // ---- memory queries

    void ftsMatchQuery_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("expected");
        QTest::newRow("words") << "hello world"
                               << "\"hello\" OR \"world\"";
        QTest::newRow("punctuation splits") << "build-command: make"
                                            << "\"build\" OR \"command\" OR \"make\"";
        QTest::newRow("quotes cannot escape") << "a\"b"
                                              << "\"a\" OR \"b\"";
        QTest::newRow("operators are words") << "x AND NOT y*"
                                             << "\"x\" OR \"AND\" OR \"NOT\" OR \"y\"";
        QTest::newRow("non-ASCII is part of a word") << "Grüße!"
                                                     << "\"Grüße\"";
        QTest::newRow("only punctuation") << "?! ()"
                                          << "";
        QTest::newRow("empty") << ""
                               << "";
    }

    void ftsMatchQuery() {
        QFETCH(QString, query);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(warren::control::ftsMatchQuery(query.toStdString())), expected);
    }

    void tsQueryText_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("expected");
        QTest::newRow("words") << "hello world"
                               << "'hello' | 'world'";
        QTest::newRow("quotes cannot escape") << "a'b \\'c"
                                              << "'a' | 'b' | 'c'";
        QTest::newRow("operators are words") << "x & !y:*"
                                             << "'x' | 'y'";
        QTest::newRow("non-ASCII is part of a word") << "Grüße!"
                                                     << "'Grüße'";
        QTest::newRow("only punctuation") << "?! ()"
                                          << "";
    }

    void tsQueryText() {
        QFETCH(QString, query);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(warren::control::tsQueryText(query.toStdString())), expected);
    }

    void asciiLower() { QCOMPARE(warren::control::asciiLower("ÄBC-xyZ"), std::string("Äbc-xyz")); }

    void likeSubstringPattern_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << "abc"
                               << "%abc%";
        QTest::newRow("percent") << "100%"
                                 << "%100\\%%";
        QTest::newRow("underscore") << "a_b"
                                    << "%a\\_b%";
        QTest::newRow("backslash") << "a\\b"
                                   << "%a\\\\b%";
        QTest::newRow("empty") << ""
                               << "%%";
    }

    void likeSubstringPattern() {
        QFETCH(QString, query);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(warren::control::likeSubstringPattern(query.toStdString())),
                 expected);
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"
