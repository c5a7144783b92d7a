// PgConnection against a real PostgreSQL (PostgresServer): statements with text parameters and NULLs,
// and errors that tell a lost connection (reconnect and retry) from a refused statement (do not retry).

#include "app/store/postgres/PgConnection.h"
#include "tests/support/PostgresServer.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;

class TestPgConnection : public QObject {
    Q_OBJECT

    std::unique_ptr<test::PostgresServer> m_server;

    PgConnection connect() {
        auto connection = PgConnection::open(m_server->url().toStdString());
        if (!connection)
            qFatal("%s", connection.error().message.c_str());
        return std::move(connection).value();
    }

private slots:
    void initTestCase() {
        QString error;
        m_server = test::PostgresServer::start(&error);
        QVERIFY2(m_server, qPrintable(error));
    }

    void parametersAndNullsRoundTrip() {
        auto db = connect();
        auto reply = db.exec("select", "SELECT $1::text, $2::text, $3::bigint, NULL::boolean, true",
                             {std::string("it's \"quoted\""), std::nullopt, std::string("42")});
        QVERIFY2(reply, reply ? "" : reply.error().message.c_str());
        QCOMPARE(reply->rows.size(), std::size_t(1));
        const PgRow& row = reply->rows.front();
        QCOMPARE(row.text(0), std::string("it's \"quoted\""));
        QVERIFY(!row.at(1));
        QCOMPARE(row.uint(2), std::uint64_t(42));
        QVERIFY(!row.optionalBool(3));
        QCOMPARE(row.optionalBool(4), std::optional<bool>(true));
    }

    void textArraysCarryAnyText() {
        auto db = connect();
        const std::vector<PgParam> values{std::string("a,b"), std::string("{\"x\":\"\\\\\"}"), std::nullopt,
                                          std::string(""), std::string("é NULL")};
        auto array = pgTextArray(values);
        QVERIFY(array);
        auto reply = db.exec(
            "unnest", "SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n", {*array});
        QVERIFY2(reply, reply ? "" : reply.error().message.c_str());
        QCOMPARE(reply->rows.size(), values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            QCOMPARE(reply->rows[i].at(0), values[i]);
        QCOMPARE(pgTextArray({std::string("a\0b", 3)}).error().code, ErrorCode::InvalidArgument);
    }

    void aRefusedStatementIsNotALostConnection() {
        auto db = connect();
        QVERIFY(db.exec("create", "CREATE TEMP TABLE t (k text PRIMARY KEY)"));
        QVERIFY(db.exec("insert", "INSERT INTO t VALUES ($1)", {std::string("one")}));
        auto again = db.exec("insert one again", "INSERT INTO t VALUES ($1)", {std::string("one")});
        QVERIFY(!again);
        QCOMPARE(again.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(again.error().message.find("insert one again") != std::string::npos,
                 again.error().message.c_str());
        QVERIFY(again.error().message.find("23505") != std::string::npos);
        std::string detail;
        auto own = db.exec("insert", "INSERT INTO t VALUES ($1)", {std::string("one")}, [&](const PgRefused& refused) {
            detail = refused.detail;
            return refused.sqlstate == "23505"
                       ? std::optional<Error>(makeError(ErrorCode::InvalidArgument, "mine"))
                       : std::nullopt;
        });
        QVERIFY2(detail.find("(one)") != std::string::npos, detail.c_str());
        QCOMPARE(own.error().message, std::string("mine"));
        auto syntax = db.exec("parse nonsense", "SELEKT 1");
        QCOMPARE(syntax.error().code, ErrorCode::System);
        QVERIFY(!db.isLost());
    }

    void aTransactionRollsBackUnlessCommitted() {
        auto db = connect();
        QVERIFY(db.exec("create", "CREATE TEMP TABLE r (k text)"));
        {
            auto transaction = PgTransaction::begin(db, "test");
            QVERIFY(transaction);
            QVERIFY(db.exec("insert", "INSERT INTO r VALUES ('gone')"));
        }
        QVERIFY(!db.inTransaction());
        {
            auto transaction = PgTransaction::begin(db, "test");
            QVERIFY(db.exec("insert", "INSERT INTO r VALUES ('kept')"));
            QVERIFY(transaction->commit("test"));
        }
        auto rows = db.exec("select", "SELECT k FROM r");
        QCOMPARE(rows->rows.size(), std::size_t(1));
        QCOMPARE(rows->rows.front().text(0), std::string("kept"));
    }

    void badUrlsAndUnreachableServersSaySo() {
        auto bad = PgConnection::open("postgresql://[broken");
        QVERIFY(!bad);
        QCOMPARE(bad.error().code, ErrorCode::InvalidArgument);
        QTemporaryDir empty;
        auto nobody = PgConnection::open("postgresql:///postgres?host=" + empty.path().toStdString());
        QVERIFY(!nobody);
        QCOMPARE(nobody.error().code, ErrorCode::Unavailable);
        QVERIFY2(nobody.error().message.find("cannot reach PostgreSQL at") != std::string::npos,
                 nobody.error().message.c_str());
        QVERIFY(nobody.error().message.find("is it running") != std::string::npos);
    }

    // Between transactions a restart costs nothing: the connection notices the server closed it and opens
    // again before the next statement is sent.
    void anIdleConnectionReopensAfterARestart() {
        auto db = connect();
        QVERIFY(db.exec("select", "SELECT 1"));
        QString error;
        QVERIFY2(m_server->restart(&error), qPrintable(error));
        auto after = db.exec("read after the restart", "SELECT 1");
        QVERIFY2(after, after ? "" : after.error().message.c_str());
    }

    // Inside a transaction it is a lost connection, said as such: that transaction is gone.
    void aRestartInATransactionIsALostConnection() {
        auto db = connect();
        auto transaction = PgTransaction::begin(db, "a transaction");
        QVERIFY(transaction);
        QString error;
        QVERIFY2(m_server->restart(&error), qPrintable(error));
        auto after = db.exec("read after the restart", "SELECT 1");
        QVERIFY(!after);
        QCOMPARE(after.error().code, ErrorCode::Unavailable);
        QVERIFY2(after.error().message.find("read after the restart") != std::string::npos,
                 after.error().message.c_str());
        QVERIFY(connect().exec("select", "SELECT 1")); // a new connection works
    }

    void tcpWhenAsked() {
        QString error;
        auto server = test::PostgresServer::start({.tcp = true}, &error);
        QVERIFY2(server, qPrintable(error));
        QVERIFY(!server->tcpUrl().isEmpty());
        auto db = PgConnection::open(server->tcpUrl().toStdString());
        QVERIFY2(db, db ? "" : db.error().message.c_str());
        QVERIFY(db->exec("select", "SELECT 1"));
    }
};

QTEST_GUILESS_MAIN(TestPgConnection)
#include "tst_pg_connection.moc"
