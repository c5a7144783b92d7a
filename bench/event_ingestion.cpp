// How fast the control plane stores a flooding agent's events, side by side in one run:
//  (a) baseline: the rows, already built, inserted through Store::appendEvents in batches of 4096 (SQLite's
//      own cost with one prepared statement per batch transaction);
//  (b) the real path: the JSON lines warren-agent writes on stdout (JSON-RPC "event" notifications), fed
//      to LineReader in 64 KiB chunks, decoded, checked by eventFromJson, turned into rows and stored by
//      the EventWriter thread, until flush() returns;
//  (c) the decoding of (b) alone, without storing, to show where (b)'s time goes.
// Each variant on a fresh database in a temp dir; medians over ROUNDS interleaved rounds; every stored log
// is read back and checked for count and order.
//   bench_event_ingestion [EVENTS] [ROUNDS]

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventTypes.h"
#include "agent_core/protocol/JsonRpc.h"
#include "agent_core/protocol/LineReader.h"
#include "agent_core/protocol/Methods.h"
#include "app/store/EventWriter.h"
#include "app/store/sqlite/SqliteStore.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using namespace warren;
using namespace warren::control;

constexpr std::size_t kBaselineBatch = 4096;
constexpr std::size_t kChunkBytes = 64 * 1024;
const std::string kTaskId = "t-000000000001";

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "bench_event_ingestion: %s\n", what.c_str());
    std::exit(1);
}

// A busy task's mix: mostly streamed tool output, with the steps, calls and results around it.
protocol::Event makeEvent(std::uint64_t seq) {
    protocol::Event event;
    event.seq = seq;
    event.ts = 1'780'000'000'000 + static_cast<protocol::UnixMillis>(seq);
    event.step = 1 + seq / 50;
    switch (seq % 50) {
    case 0:
        event.type = protocol::event_type::kStepStarted;
        break;
    case 1:
        event.type = protocol::event_type::kToolCall;
        event.tool = "shell";
        event.data = {{"id", "call-" + std::to_string(seq)}, {"arguments", {{"command", "make -j2 all"}}}};
        break;
    case 49:
        event.type = protocol::event_type::kToolResult;
        event.tool = "shell";
        event.durationMs = 1234;
        event.data = {{"id", "call-" + std::to_string(seq - 48)}, {"exit_code", 0}, {"output_bytes", 4096}};
        break;
    default:
        event.type = protocol::event_type::kToolOutput;
        event.tool = "shell";
        event.data = {{"stream", "stdout"},
                      {"text", "[" + std::to_string(seq) + "/200000] CXX app/store/Store.cpp -> Store.cpp.o\n"}};
        break;
    }
    return event;
}

// The conversion a task runner makes: the event's envelope fields as columns, the whole object as the body.
EventRow eventRow(const protocol::Event& event, std::string body) {
    EventRow row;
    row.taskId = kTaskId;
    row.seq = event.seq;
    row.ts = protocol::formatTimestamp(event.ts);
    row.type = event.type;
    row.step = event.step;
    row.tool = event.tool.value_or("");
    row.body = std::move(body);
    return row;
}

std::unique_ptr<Store> openFresh(const fs::path& path) {
    fs::remove(path);
    fs::remove(fs::path(path.string() + "-wal"));
    fs::remove(fs::path(path.string() + "-shm"));
    auto store = openSqliteStore(path.string());
    if (!store)
        fail(store.error().message);
    TaskRecord task;
    task.id = kTaskId;
    task.prompt = "benchmark";
    task.workspace = "/tmp";
    task.spec = "{}";
    task.createdAt = "2026-01-01T00:00:00.000Z";
    if (auto inserted = (*store)->insertTask(task); !inserted)
        fail(inserted.error().message);
    return std::move(store).value();
}

void verify(Store& store, std::uint64_t count, const char* variant) {
    auto events = store.events(kTaskId);
    if (!events)
        fail(events.error().message);
    if (events->size() != count)
        fail(std::string(variant) + ": stored " + std::to_string(events->size()) + " events of " +
             std::to_string(count));
    for (std::uint64_t i = 0; i < count; ++i) {
        if (events->at(i).seq != i + 1)
            fail(std::string(variant) + ": event " + std::to_string(i) + " has seq " +
                 std::to_string(events->at(i).seq));
    }
}

// Feeds the stream in chunks and hands each chunk's rows to sink; returns the number of events decoded.
template <typename Sink>
std::uint64_t decodeStream(const std::string& stream, Sink sink) {
    protocol::LineReader reader;
    std::uint64_t decoded = 0;
    for (std::size_t offset = 0; offset < stream.size(); offset += kChunkBytes) {
        std::vector<EventRow> rows;
        for (auto& line : reader.feed(std::string_view(stream).substr(offset, kChunkBytes))) {
            if (!line)
                fail(line.error().message);
            auto message = protocol::decodeMessage(line.value());
            auto* decodedMessage = std::get_if<protocol::Message>(&message);
            auto* notification =
                decodedMessage ? std::get_if<protocol::Notification>(decodedMessage) : nullptr;
            if (!notification || notification->method != protocol::method::kEvent)
                fail("a line is not an event notification: " + line.value().substr(0, 80));
            auto event = protocol::eventFromJson(notification->params);
            if (!event)
                fail(event.error().message);
            rows.push_back(eventRow(event.value(), notification->params.dump()));
            ++decoded;
        }
        sink(std::move(rows));
    }
    if (!reader.finish().empty())
        fail("the stream ends in the middle of a line");
    return decoded;
}

} // namespace

int main(int argc, char** argv) {
    const std::uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200'000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    if (count == 0 || rounds <= 0) {
        std::fprintf(stderr, "usage: %s [EVENTS] [ROUNDS]\n", argv[0]);
        return 2;
    }
    const fs::path base = fs::temp_directory_path() / ("warren-bench-events-" + std::to_string(getpid()));
    fs::create_directories(base);

    // The agent's stdout, exactly as it writes it, and the rows the baseline inserts (the same bodies).
    std::string stream;
    std::vector<EventRow> rows;
    rows.reserve(count);
    for (std::uint64_t seq = 1; seq <= count; ++seq) {
        const auto event = makeEvent(seq);
        const auto notification = protocol::toNotification(event);
        stream += protocol::serialize(protocol::Message{notification});
        stream += '\n';
        rows.push_back(eventRow(event, notification.params.dump()));
    }

    std::vector<double> baseline, ingestion, decodeOnly;
    for (int round = 0; round < rounds; ++round) {
        {
            auto store = openFresh(base / "baseline.db");
            const auto start = Clock::now();
            for (std::size_t offset = 0; offset < rows.size(); offset += kBaselineBatch) {
                const auto end = std::min(rows.size(), offset + kBaselineBatch);
                const std::vector<EventRow> batch(rows.begin() + static_cast<std::ptrdiff_t>(offset),
                                                  rows.begin() + static_cast<std::ptrdiff_t>(end));
                if (auto written = store->appendEvents(batch); !written)
                    fail(written.error().message);
            }
            baseline.push_back(secondsSince(start));
            verify(*store, count, "baseline");
        }
        {
            auto store = openFresh(base / "ingestion.db");
            std::string writeError;
            auto writer =
                EventWriter::open([path = (base / "ingestion.db").string()] { return openSqliteStore(path); },
                                  [&](std::string message) { writeError = std::move(message); });
            if (!writer)
                fail(writer.error().message);
            const auto start = Clock::now();
            const auto decoded =
                decodeStream(stream, [&](std::vector<EventRow> chunkRows) { (*writer)->append(std::move(chunkRows)); });
            (*writer)->flush();
            ingestion.push_back(secondsSince(start));
            if (!writeError.empty())
                fail(writeError);
            if (decoded != count || (*writer)->written() != count)
                fail("ingestion: decoded " + std::to_string(decoded) + ", stored " +
                     std::to_string((*writer)->written()) + " of " + std::to_string(count));
            verify(*store, count, "ingestion");
        }
        {
            std::uint64_t kept = 0;
            const auto start = Clock::now();
            decodeStream(stream, [&](std::vector<EventRow> chunkRows) { kept += chunkRows.size(); });
            decodeOnly.push_back(secondsSince(start));
            if (kept != count)
                fail("decode: " + std::to_string(kept) + " rows of " + std::to_string(count));
        }
    }

    const double n = static_cast<double>(count);
    const double baselineRate = n / median(baseline);
    const double ingestionRate = n / median(ingestion);
    const double decodeRate = n / median(decodeOnly);
    const double streamMiB = static_cast<double>(stream.size()) / (1024.0 * 1024.0);
    std::printf("# %llu events (%.1f MiB of JSON lines), %d interleaved rounds (medians)\n",
                static_cast<unsigned long long>(count), streamMiB, rounds);
    std::printf("%-44s %12.0f events/s\n", "SQLite baseline, appendEvents x 4096", baselineRate);
    std::printf("%-44s %12.0f events/s\n", "ingestion, JSON lines -> EventWriter", ingestionRate);
    std::printf("%-44s %12.0f events/s\n", "decoding alone (LineReader..eventFromJson)", decodeRate);
    std::printf("%-44s %12.2f\n", "ingestion / baseline", ingestionRate / baselineRate);
    std::printf("{\"bench\":\"event_ingestion\",\"events\":%llu,\"rounds\":%d,\"stream_mib\":%.1f,"
                "\"baseline_events_per_s\":%.0f,\"ingestion_events_per_s\":%.0f,\"decode_events_per_s\":%.0f,"
                "\"ingestion_over_baseline\":%.3f}\n",
                static_cast<unsigned long long>(count), rounds, streamMiB, baselineRate, ingestionRate, decodeRate,
                ingestionRate / baselineRate);
    fs::remove_all(base);
    return 0;
}
