// How fast warrend stores a flooding agent's events in PostgreSQL, side by side in one run against one
// real server (tests/support/PostgresServer, fsync on):
//  (a) ceiling: the same rows sent by a raw COPY ... FROM STDIN in one transaction (libpq's fastest way in);
//  (b) the real path: the agent's JSON lines fed to LineReader in 64 KiB chunks, decoded, checked, turned
//      into rows and stored by the EventWriter thread through PgStore (a batch = one INSERT over unnest()ed
//      arrays), until flush() returns;
//  (c) the same as a warrend replica writes: its connection names it (warren.writer), so each statement
//      passes the lease fence (AccountSchema.h: an AFTER INSERT rule over the added rows and task_leases),
//      with the task's lease held by this writer, as while it runs the task. (b) runs with the rule off.
// The events table is emptied before each variant; medians over ROUNDS interleaved rounds; every stored
// log is read back and checked for count and order. The goal: (b) >= 50,000 events/s and
// (b) / (a) >= 0.5; the fence's cost is (c) / (b).
//   bench_pg_ingestion [EVENTS] [ROUNDS]

#include "app/store/EventWriter.h"
#include "app/store/OpenStore.h"
#include "app/store/postgres/PgConnection.h"
#include "bench/AgentEventStream.h"
#include "server/accounts/AccountStore.h"
#include "tests/support/PostgresServer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <libpq-fe.h>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace warren;
using namespace warren::control;
using namespace warren::bench;

const std::string kTaskId = "t-000000000001";

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// COPY's text format: backslash, tab, newline and carriage return escaped, NULL as \N.
void appendCopyField(std::string& out, const std::string& value) {
    for (const char c : value) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            out += c;
        }
    }
}

std::string copyText(const std::vector<EventRow>& rows) {
    std::string out;
    for (const auto& row : rows) {
        appendCopyField(out, row.taskId);
        out += '\t' + std::to_string(row.seq) + '\t';
        appendCopyField(out, row.ts);
        out += '\t';
        appendCopyField(out, row.type);
        out += '\t' + std::to_string(row.step) + '\t';
        if (row.tool.empty())
            out += "\\N";
        else
            appendCopyField(out, row.tool);
        out += '\t';
        appendCopyField(out, row.body);
        out += '\n';
    }
    return out;
}

// One COPY of every row, in one transaction; the rows' text is built before the clock starts.
void copyRows(PgConnection& db, const std::string& text) {
    PGconn* conn = db.handle();
    PGresult* started = PQexec(conn, "COPY events (task_id, seq, ts, type, step, tool, body) FROM STDIN");
    if (PQresultStatus(started) != PGRES_COPY_IN)
        benchFail(std::string("COPY: ") + PQerrorMessage(conn));
    PQclear(started);
    for (std::size_t offset = 0; offset < text.size(); offset += kChunkBytes) {
        const auto size = std::min(kChunkBytes, text.size() - offset);
        if (PQputCopyData(conn, text.data() + offset, static_cast<int>(size)) != 1)
            benchFail(std::string("COPY data: ") + PQerrorMessage(conn));
    }
    if (PQputCopyEnd(conn, nullptr) != 1)
        benchFail(std::string("COPY end: ") + PQerrorMessage(conn));
    PGresult* ended = PQgetResult(conn);
    if (PQresultStatus(ended) != PGRES_COMMAND_OK)
        benchFail(std::string("COPY: ") + PQresultErrorMessage(ended));
    PQclear(ended);
    while (PGresult* rest = PQgetResult(conn))
        PQclear(rest);
}

void emptyEvents(PgConnection& db) {
    if (auto emptied = db.exec("empty the events", "TRUNCATE events"); !emptied)
        benchFail(emptied.error().message);
}

void setFence(PgConnection& db, bool on) {
    const char* sql = on ? "ALTER TABLE events ENABLE TRIGGER events_fenced"
                         : "ALTER TABLE events DISABLE TRIGGER events_fenced";
    if (auto set = db.exec("turn the fence on or off", sql); !set)
        benchFail(set.error().message);
}

// The agent's lines decoded and stored by an EventWriter whose connections name writer (empty: none).
double ingest(const std::string& url, const std::string& writerName, const AgentStream& agent,
              std::uint64_t count) {
    std::string writeError;
    auto writer = EventWriter::open(storeOpener(url, writerName),
                                    [&](std::string message) { writeError = std::move(message); });
    if (!writer)
        benchFail(writer.error().message);
    const auto start = Clock::now();
    const auto decoded = decodeStream(
        kTaskId, agent.lines, [&](std::vector<EventRow> rows) { (*writer)->append(std::move(rows)); });
    (*writer)->flush();
    const double seconds = secondsSince(start);
    if (!writeError.empty())
        benchFail(writeError);
    if (decoded != count || (*writer)->written() != count)
        benchFail("ingestion: decoded " + std::to_string(decoded) + ", stored " +
                  std::to_string((*writer)->written()) + " of " + std::to_string(count));
    return seconds;
}

void verify(Store& store, std::uint64_t count, const char* variant) {
    auto events = store.events(kTaskId, 0, UINT64_MAX);
    if (!events)
        benchFail(events.error().message);
    if (events->size() != count)
        benchFail(std::string(variant) + ": stored " + std::to_string(events->size()) + " events of " +
                  std::to_string(count));
    for (std::uint64_t i = 0; i < count; ++i)
        if (events->at(i).seq != i + 1)
            benchFail(std::string(variant) + ": event " + std::to_string(i) + " has seq " +
                      std::to_string(events->at(i).seq));
}

} // namespace

int main(int argc, char** argv) {
    const std::uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200'000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    if (count == 0 || rounds <= 0) {
        std::fprintf(stderr, "usage: %s [EVENTS] [ROUNDS]\n", argv[0]);
        return 2;
    }
    QString error;
    auto server = test::PostgresServer::start({.tcp = false, .durable = true}, &error);
    if (!server)
        benchFail(error.toStdString());
    const std::string url = server->url().toStdString();
    auto store = openStore(url);
    if (!store)
        benchFail(store.error().message);
    TaskRecord task;
    task.id = kTaskId;
    task.prompt = "benchmark";
    task.workspace = "/tmp";
    task.spec = "{}";
    task.createdAt = "2026-01-01T00:00:00.000Z";
    if (auto inserted = (*store)->insertTask(task); !inserted)
        benchFail(inserted.error().message);
    auto admin = PgConnection::open(url);
    if (!admin)
        benchFail(admin.error().message);
    // warrend's accounts and its fence, and the task's lease held by the replica that writes (c).
    const std::string replica = "bench-replica";
    auto accounts = accounts::AccountStore::open(url);
    if (!accounts)
        benchFail(accounts.error().message);
    if (auto fenced = accounts->fenceEventWrites(); !fenced)
        benchFail(fenced.error().message);
    auto leased = accounts->takeLease(kTaskId, replica, std::chrono::hours(1));
    if (!leased || !*leased)
        benchFail("the task's lease was not taken");

    const AgentStream agent = agentStream(kTaskId, count);
    const std::string copy = copyText(agent.rows);

    std::vector<double> copied, ingested, fenced;
    for (int round = 0; round < rounds; ++round) {
        emptyEvents(*admin);
        {
            const auto start = Clock::now();
            copyRows(*admin, copy);
            copied.push_back(secondsSince(start));
            verify(**store, count, "COPY");
        }
        emptyEvents(*admin);
        setFence(*admin, false);
        ingested.push_back(ingest(url, {}, agent, count));
        verify(**store, count, "ingestion");
        emptyEvents(*admin);
        setFence(*admin, true);
        fenced.push_back(ingest(url, replica, agent, count));
        verify(**store, count, "fenced ingestion");
    }

    const double n = static_cast<double>(count);
    const double copyRate = n / median(copied);
    const double ingestionRate = n / median(ingested);
    const double fencedRate = n / median(fenced);
    std::printf("# %llu events (%.1f MiB of JSON lines) into PostgreSQL, %d interleaved rounds (medians)\n",
                static_cast<unsigned long long>(count),
                static_cast<double>(agent.lines.size()) / (1024.0 * 1024.0), rounds);
    std::printf("%-48s %12.0f events/s\n", "raw COPY FROM STDIN, one transaction", copyRate);
    std::printf("%-48s %12.0f events/s\n", "ingestion, JSON lines -> EventWriter -> PgStore", ingestionRate);
    std::printf("%-48s %12.0f events/s\n", "the same by a replica, through the lease fence", fencedRate);
    std::printf("%-48s %12.2f\n", "ingestion / COPY", ingestionRate / copyRate);
    std::printf("%-48s %12.2f\n", "fenced / unfenced ingestion", fencedRate / ingestionRate);
    std::printf("{\"bench\":\"pg_ingestion\",\"events\":%llu,\"rounds\":%d,\"copy_events_per_s\":%.0f,"
                "\"ingestion_events_per_s\":%.0f,\"fenced_events_per_s\":%.0f,\"ingestion_over_copy\":%.3f,"
                "\"fenced_over_ingestion\":%.3f}\n",
                static_cast<unsigned long long>(count), rounds, copyRate, ingestionRate, fencedRate,
                ingestionRate / copyRate, fencedRate / ingestionRate);
    return 0;
}
