#include "bench/MixedTask.h"

#include "app/store/sqlite/SqliteStore.h"
#include "app/tasks/TaskSpec.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace warren::bench {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace warren::control;

namespace {

constexpr std::size_t kStoreBatch = 4096;

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "mixed task: FAILED: %s\n", what.c_str());
    std::exit(1);
}

} // namespace

std::string timestampOf(std::uint64_t seq) {
    char text[64];
    std::snprintf(text, sizeof text, "2026-11-29T10:%02llu:%02llu.%03lluZ",
                  static_cast<unsigned long long>(seq / 60000 % 60), static_cast<unsigned long long>(seq / 1000 % 60),
                  static_cast<unsigned long long>(seq % 1000));
    return text;
}

// One event of a mixed task: the kinds cycle as an agent's step does; the last event ends the task.
json mixedEvent(std::uint64_t seq, std::uint64_t total) {
    const std::uint64_t step = (seq - 1) / 10 + 1;
    const std::string call = "call_" + std::to_string(step) + "_0";
    json event{{"seq", seq}, {"ts", timestampOf(seq)}, {"step", step}};
    if (seq == total) {
        event["type"] = "task_finished";
        event["data"] = {{"reason", "finished"}, {"summary", "All tests pass."}};
        return event;
    }
    const std::string file = "src/module_" + std::to_string(step % 97) + ".c";
    switch ((seq - 1) % 10) {
    case 0:
        event["type"] = "step_started";
        event["data"] = json::object();
        break;
    case 1:
        event["type"] = "model_response";
        event["data"] = {{"content", "Step " + std::to_string(step) + ": the failing test points at " + file +
                                         "; I will run the suite again to see whether the off-by-one in the loop "
                                         "bound is the only cause, then fix it."}};
        event["token_usage"] = {{"input", 1200 + step}, {"output", 85}};
        break;
    case 2:
        event["type"] = "tool_call";
        event["tool"] = "shell";
        event["data"] = {{"id", call}, {"arguments", {{"command", "make test TEST=module_" + std::to_string(step % 97)}}}};
        break;
    case 3:
    case 4:
    case 5:
    case 6:
    case 7: {
        const std::uint64_t line = (seq - 1) % 10 - 2;
        event["type"] = "tool_output";
        event["tool"] = "shell";
        const std::string text = line == 5 ? "\x1b[1;31mFAIL\x1b[0m test_bound (\x1b[33m3 ms\x1b[0m): expected 4, got 5\n"
                                           : "cc -O2 -Wall -c " + file + " -o build/obj_" + std::to_string(line) +
                                                 ".o \x1b[32mok\x1b[0m\n";
        event["data"] = {{"id", call}, {"stream", "stdout"}, {"text", text}};
        break;
    }
    case 8:
        event["type"] = "tool_result";
        event["tool"] = "shell";
        event["data"] = {{"id", call}, {"exit_code", 0}, {"output", "4 passed, 1 failed"}};
        event["duration_ms"] = 1234;
        break;
    default:
        event["type"] = "file_changed";
        event["data"] = {{"path", file},
                         {"change", "modified"},
                         {"diff", "--- a/" + file + "\n+++ b/" + file +
                                      "\n@@ -10,4 +10,4 @@\n int sum(const int* v, int n) {\n-    for (int i = 0; i <= n; "
                                      "++i)\n+    for (int i = 0; i < n; ++i)\n         s += v[i];\n"},
                         {"added", 1},
                         {"removed", 1}};
        break;
    }
    return event;
}

std::string writeMixedTask(const fs::path& dataDir, const fs::path& workspace, std::uint64_t total) {
    fs::create_directories(dataDir);
    fs::create_directories(workspace);
    auto opened = openSqliteStore((dataDir / "warren.db").string());
    if (!opened)
        fail("cannot open the store: " + opened.error().message);
    Store& store = **opened;
    TaskRecord task;
    task.id = "t-00000000b0e1";
    task.prompt = "fix the failing tests (100,000 mixed events written through the store)";
    task.workspace = workspace.string();
    TaskSpec spec;
    spec.provider = "scripted:/dev/null";
    task.spec = spec.toJson().dump();
    task.status = TaskStatus::Succeeded;
    task.createdAt = task.startedAt = timestampOf(0);
    task.finishedAt = timestampOf(total);
    task.finishReason = "finished";
    task.summary = "All tests pass.";
    task.steps = (total - 1) / 10 + 1;
    task.runs = 1;
    if (auto inserted = store.insertTask(task); !inserted)
        fail("cannot insert the mixed task: " + inserted.error().message);
    std::vector<EventRow> rows;
    for (std::uint64_t seq = 1; seq <= total; ++seq) {
        const json event = mixedEvent(seq, total);
        rows.push_back({task.id, seq, event["ts"].get<std::string>(), event["type"].get<std::string>(),
                        event["step"].get<std::uint64_t>(), event.value("tool", ""), event.dump()});
        if (rows.size() == kStoreBatch || seq == total) {
            if (auto appended = store.appendEvents(rows); !appended)
                fail("cannot append the mixed events: " + appended.error().message);
            rows.clear();
        }
    }
    return task.id;
}

} // namespace warren::bench
