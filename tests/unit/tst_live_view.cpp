// The terminal live view: what each stored event prints for a person watching `warren run`, the rule that
// streamed model text is not printed twice, the per-call output cap, and that nothing an agent or a tool
// wrote can reach the terminal as a control sequence.

#include "agent_core/protocol/EventTypes.h"
#include "app/cli/LiveView.h"

#include <QtTest>

using namespace warren;
using namespace warren::control;
using nlohmann::json;

Q_DECLARE_METATYPE(std::string)

namespace {

// One stored event; envelope adds or replaces top-level keys (tool, duration_ms, ...).
QByteArray ev(const std::string& type, json data = json::object(), json envelope = json::object()) {
    json event = {{"seq", 1}, {"ts", "2026-11-29T10:52:03.123Z"}, {"type", type}, {"step", 1}, {"data", data}};
    for (auto it = envelope.begin(); it != envelope.end(); ++it)
        event[it.key()] = it.value();
    return QByteArray::fromStdString(event.dump(-1, ' ', false, json::error_handler_t::replace));
}

QByteArray call(const std::string& tool, json arguments, const std::string& id = "c1") {
    return ev("tool_call", {{"id", id}, {"arguments", std::move(arguments)}}, {{"tool", tool}});
}

QByteArray output(const std::string& text, const std::string& stream = "stdout", const std::string& id = "c1") {
    return ev("tool_output", {{"id", id}, {"stream", stream}, {"text", text}}, {{"tool", "shell"}});
}

QByteArray result(json data, json envelope = json::object()) {
    if (!data.contains("id"))
        data["id"] = "c1";
    if (!envelope.contains("tool"))
        envelope["tool"] = "shell";
    return ev("tool_result", std::move(data), std::move(envelope));
}

QString renderAll(const QByteArrayList& events, LiveViewOptions options = {}) {
    LiveView view(std::move(options));
    std::string out;
    for (const QByteArray& event : events)
        out += view.render(json::parse(event.toStdString()));
    return QString::fromStdString(out);
}

QString q(const std::string& text) { return QString::fromStdString(text); }

} // namespace

class TestLiveView : public QObject {
    Q_OBJECT

private slots:
    void renders_data();
    void renders();
    void outputCap_data();
    void outputCap();
    void sanitizes_data();
    void sanitizes();
    void attacksThroughEveryTextField_data();
    void attacksThroughEveryTextField();
    void colourOffWritesNoEscape();
    void colourOnOnlyWrapsWhatTheViewAdds();
    void malformedEventsNeverThrow();
    void eventsBuiltInCode();
    void summary_data();
    void summary();
};

// clang-format off
void TestLiveView::renders_data() {
    QTest::addColumn<QByteArrayList>("events");
    QTest::addColumn<QString>("expected");

    QTest::newRow("task_started")
        << QByteArrayList{ev("task_started", {{"task_id", "t-1"}, {"prompt", "Fix the tests"},
                                              {"presets", {"safe-mode", "local-light"}}, {"config", json::object()}})}
        << "● task t-1 · presets: safe-mode, local-light\n  Fix the tests\n";
    QTest::newRow("task_started multi-line prompt without presets")
        << QByteArrayList{ev("task_started", {{"task_id", "t-1"}, {"prompt", "one\ntwo"}, {"config", json::object()}})}
        << "● task t-1\n  one\n  two\n";
    QTest::newRow("task_resumed")
        << QByteArrayList{ev("task_resumed", {{"from_step", 4}, {"interrupted_tool_call", nullptr}})}
        << "↻ resumed from step 4\n";
    QTest::newRow("task_resumed with an interrupted call")
        << QByteArrayList{ev("task_resumed", {{"from_step", 4}, {"interrupted_tool_call", "call_3_0"}})}
        << "↻ resumed from step 4 (call call_3_0 was interrupted)\n";
    QTest::newRow("step_started")
        << QByteArrayList{ev("step_started", json::object(), {{"step", 3}})}
        << "\n── step 3 ──\n";
    QTest::newRow("a sub-agent nests under the task's lines, each line naming it")
        << QByteArrayList{ev("agent_started",
                             {{"parent", nullptr}, {"call_id", "s1"}, {"role", "explorer"}, {"brief", "Find the parser"},
                              {"depth", 1}},
                             {{"agent", "agent-1"}}),
                          ev("step_started", json::object(), {{"step", 1}, {"agent", "agent-1"}}),
                          ev("agent_finished", {{"reason", "finished"}, {"summary", "found it"}, {"files", {"a.txt"}}},
                             {{"agent", "agent-1"}})}
        << "  │ agent-1 ↳ started (explorer) by the task's agent: Find the parser\n"
           "\n  │ agent-1 ── step 1 ──\n"
           "  │ agent-1 ✓ finished: found it · changed a.txt\n";
    QTest::newRow("a sub-agent's sub-agent nests deeper")
        << QByteArrayList{ev("agent_started",
                             {{"parent", "agent-1"}, {"call_id", "c"}, {"role", "worker"}, {"brief", "Test"}, {"depth", 2}},
                             {{"agent", "agent-2"}}),
                          ev("agent_finished", {{"reason", "cancelled"}, {"summary", ""}, {"files", json::array()}},
                             {{"agent", "agent-2"}})}
        << "    │ agent-2 ↳ started (worker) by agent-1: Test\n"
           "    │ agent-2 ✗ cancelled\n";

    QTest::newRow("model_response without deltas")
        << QByteArrayList{ev("model_response", {{"content", "I will list the files."}, {"tool_calls", json::array()},
                                                {"finish_reason", "stop"}})}
        << "I will list the files.\n";
    QTest::newRow("model_response with empty content")
        << QByteArrayList{ev("model_response", {{"content", ""}, {"tool_calls", json::array()},
                                                {"finish_reason", "tool_calls"}})}
        << "";
    QTest::newRow("deltas then model_response: the text once")
        << QByteArrayList{ev("model_delta", {{"text", "Hello "}}), ev("model_delta", {{"text", "world"}}),
                          ev("model_response", {{"content", "Hello world"}, {"tool_calls", json::array()},
                                                {"finish_reason", "stop"}})}
        << "Hello world\n";
    QTest::newRow("deltas ending in a newline: no blank line")
        << QByteArrayList{ev("model_delta", {{"text", "Done.\n"}}),
                          ev("model_response", {{"content", "Done.\n"}, {"tool_calls", json::array()},
                                                {"finish_reason", "stop"}})}
        << "Done.\n";
    QTest::newRow("deltas then tool_call: the call starts a line")
        << QByteArrayList{ev("model_delta", {{"text", "Listing"}}), call("shell", {{"command", "ls"}})}
        << "Listing\n▶ shell  ls\n";
    QTest::newRow("deltas in one step, none in the next: the next response is printed")
        << QByteArrayList{ev("model_delta", {{"text", "A"}}),
                          ev("model_response", {{"content", "A"}, {"tool_calls", json::array()}, {"finish_reason", "stop"}}),
                          ev("step_started", json::object(), {{"step", 2}}),
                          ev("model_response", {{"content", "B"}, {"tool_calls", json::array()}, {"finish_reason", "stop"}})}
        << "A\n\n── step 2 ──\nB\n";
    QTest::newRow("deltas closed by a silent event stay open")
        << QByteArrayList{ev("model_delta", {{"text", "A"}}), ev("resource_sample", {{"rss_bytes", 1}, {"cpu_ms", 2}}),
                          ev("model_delta", {{"text", "B"}}),
                          ev("model_response", {{"content", "AB"}, {"tool_calls", json::array()}, {"finish_reason", "stop"}})}
        << "AB\n";

    QTest::newRow("tool_call shell") << QByteArrayList{call("shell", {{"command", "ls -la"}})} << "▶ shell  ls -la\n";
    QTest::newRow("tool_call shell with a multi-line command")
        << QByteArrayList{call("shell", {{"command", "cd src\nmake"}})} << "▶ shell  cd src ↵ make\n";
    QTest::newRow("tool_call read_file")
        << QByteArrayList{call("read_file", {{"path", "src/main.cpp"}, {"offset", 10}})} << "▶ read_file  src/main.cpp\n";
    QTest::newRow("tool_call write_file")
        << QByteArrayList{call("write_file", {{"path", "hello.txt"}, {"content", "hi\n"}})}
        << "▶ write_file  hello.txt (3 bytes)\n";
    QTest::newRow("tool_call write_file of one byte")
        << QByteArrayList{call("write_file", {{"path", "a"}, {"content", "x"}})} << "▶ write_file  a (1 byte)\n";
    QTest::newRow("tool_call edit_file")
        << QByteArrayList{call("edit_file", {{"path", "a.py"}, {"old_string", "x"}, {"new_string", "y"}})}
        << "▶ edit_file  a.py\n";
    QTest::newRow("tool_call search")
        << QByteArrayList{call("search", {{"pattern", "TODO"}})} << "▶ search  TODO\n";
    QTest::newRow("tool_call search in a path")
        << QByteArrayList{call("search", {{"pattern", "TODO"}, {"path", "src"}})} << "▶ search  TODO in src\n";
    QTest::newRow("tool_call list_files without a path")
        << QByteArrayList{call("list_files", json::object())} << "▶ list_files  .\n";
    QTest::newRow("tool_call another tool: compact JSON")
        << QByteArrayList{call("memory_save", {{"key", "k"}, {"value", "v"}})}
        << "▶ memory_save  {\"key\":\"k\",\"value\":\"v\"}\n";
    QTest::newRow("tool_call shell without a command: compact JSON")
        << QByteArrayList{call("shell", {{"cmd", "ls"}})} << "▶ shell  {\"cmd\":\"ls\"}\n";
    QTest::newRow("tool_call long arguments are cut")
        << QByteArrayList{call("memory_save", {{"key", "k"}, {"value", std::string(300, 'x')}})}
        << "▶ memory_save  " + q("{\"key\":\"k\",\"value\":\"" + std::string(200 - 20, 'x')) + "…\n";

    QTest::newRow("tool_output and result")
        << QByteArrayList{call("shell", {{"command", "ls"}}), output("a.txt\nb.txt\n"),
                          result({{"exit_code", 0}, {"truncated", false}, {"output", "a.txt\nb.txt\n"}}, {{"duration_ms", 12}})}
        << "▶ shell  ls\n    a.txt\n    b.txt\n  ✓ exit 0 · 12 ms\n";
    QTest::newRow("stderr is marked")
        << QByteArrayList{output("oops\n", "stderr"), result({{"exit_code", 2}, {"truncated", false}, {"output", "oops\n"}})}
        << "  ! oops\n  ✗ exit 2\n";
    QTest::newRow("chunks that split a line are joined")
        << QByteArrayList{output("hel"), output("lo\nwor"), output("ld"), result({{"exit_code", 0}, {"truncated", false}})}
        << "    hello\n    world\n  ✓ exit 0\n";
    QTest::newRow("CRLF output")
        << QByteArrayList{output("one\r"), output("\ntwo\r\n"), result({{"exit_code", 0}, {"truncated", false}})}
        << "    one\n    two\n  ✓ exit 0\n";
    QTest::newRow("result in seconds")
        << QByteArrayList{result({{"exit_code", 0}, {"truncated", false}}, {{"duration_ms", 2450}})}
        << "  ✓ exit 0 · 2.4 s\n";
    QTest::newRow("result timed out")
        << QByteArrayList{output("working\n"), result({{"exit_code", nullptr}, {"timed_out", true}, {"truncated", false}},
                                                      {{"duration_ms", 30000}})}
        << "    working\n  ✗ timed out · 30.0 s\n";
    QTest::newRow("result denied")
        << QByteArrayList{result({{"exit_code", nullptr}, {"denied", true}, {"truncated", false},
                                  {"output", "Denied: the user did not approve this call."}})}
        << "  ✗ denied\n";
    QTest::newRow("result cached")
        << QByteArrayList{result({{"exit_code", 0}, {"cached", true}, {"truncated", false}})}
        << "  ✓ exit 0 · cached\n";
    QTest::newRow("result interrupted")
        << QByteArrayList{result({{"exit_code", nullptr}, {"interrupted", true}, {"truncated", false}})}
        << "  ✗ interrupted\n";
    QTest::newRow("result without an exit code")
        << QByteArrayList{result({{"exit_code", nullptr}, {"truncated", false}})} << "  ✗ did not finish\n";
    QTest::newRow("result capped for the model")
        << QByteArrayList{result({{"exit_code", 0}, {"truncated", true}})} << "  ✓ exit 0 · output capped for the model\n";
    QTest::newRow("failed call that printed nothing shows why")
        << QByteArrayList{call("read_file", {{"path", "nope"}}),
                          result({{"exit_code", 1}, {"truncated", false}, {"output", "nope: no such file"}},
                                 {{"tool", "read_file"}})}
        << "▶ read_file  nope\n    nope: no such file\n  ✗ exit 1\n";
    QTest::newRow("failed call that printed output is not repeated")
        << QByteArrayList{output("boom\n", "stderr"), result({{"exit_code", 1}, {"truncated", false}, {"output", "boom\n"}})}
        << "  ! boom\n  ✗ exit 1\n";
    QTest::newRow("failed call's output shown at most three lines")
        << QByteArrayList{result({{"exit_code", 1}, {"truncated", false}, {"output", "1\n2\n3\n4\n"}})}
        << "    1\n    2\n    3\n    …\n  ✗ exit 1\n";
    QTest::newRow("output without a newline is shown at the result")
        << QByteArrayList{output("no newline"), result({{"exit_code", 0}, {"truncated", false}})}
        << "    no newline\n  ✓ exit 0\n";

    QTest::newRow("file created") << QByteArrayList{ev("file_changed", {{"path", "a.txt"}, {"change", "created"}})}
                                  << "  A a.txt\n";
    QTest::newRow("file modified") << QByteArrayList{ev("file_changed", {{"path", "a.txt"}, {"change", "modified"}})}
                                   << "  M a.txt\n";
    QTest::newRow("file deleted") << QByteArrayList{ev("file_changed", {{"path", "a.txt"}, {"change", "deleted"}})}
                                  << "  D a.txt\n";
    QTest::newRow("file modified with line counts")
        << QByteArrayList{ev("file_changed", {{"path", "a.txt"}, {"change", "modified"}, {"diff", "--- a/a.txt\n"},
                                              {"added", 3}, {"removed", 1}})}
        << "  M a.txt  +3 −1\n";
    QTest::newRow("file created with line counts")
        << QByteArrayList{ev("file_changed", {{"path", "a.txt"}, {"change", "created"}, {"diff", ""},
                                              {"added", 0}, {"removed", 0}})}
        << "  A a.txt  +0 −0\n";
    QTest::newRow("binary file modified")
        << QByteArrayList{ev("file_changed", {{"path", "a.bin"}, {"change", "modified"}, {"binary", true}})}
        << "  M a.bin  binary\n";

    QTest::newRow("approval requested")
        << QByteArrayList{ev("approval_requested", {{"id", "c1"}, {"arguments", {{"command", "rm -rf build"}}},
                                                    {"reason", "deletes files"}}, {{"tool", "shell"}})}
        << "? shell rm -rf build — deletes files\n";
    QTest::newRow("approval approved")
        << QByteArrayList{ev("approval_resolved", {{"id", "c1"}, {"approved", true}, {"note", nullptr}}, {{"tool", "shell"}})}
        << "  ✓ approved\n";
    QTest::newRow("approval denied with a note")
        << QByteArrayList{ev("approval_resolved", {{"id", "c1"}, {"approved", false}, {"note", "keep the build directory"}},
                             {{"tool", "shell"}})}
        << "  ✗ denied: keep the build directory\n";
    QTest::newRow("approval decided by a rule")
        << QByteArrayList{ev("approval_resolved", {{"id", "c1"}, {"approved", true}, {"note", ""}, {"decided_by", "rule"}},
                             {{"tool", "shell"}})}
        << "  ✓ approved by rule\n";

    QTest::newRow("user_message: the reply whole")
        << QByteArrayList{ev("user_message", {{"text", "also bye.txt\nand \x1b[31mno colours"}})}
        << "● you replied\n  also bye.txt\n  and no colours\n";
    QTest::newRow("checkpoint is silent") << QByteArrayList{ev("checkpoint", {{"path", "/state/x"}, {"bytes", 10}})} << "";
    QTest::newRow("resource_sample is silent")
        << QByteArrayList{ev("resource_sample", {{"rss_bytes", 1000}, {"cpu_ms", 5}})} << "";

    QTest::newRow("hook with a command")
        << QByteArrayList{ev("hook", {{"name", "on_step"}, {"command", "make lint"}, {"exit_code", 0}, {"output", "ok"},
                                      {"detail", ""}})}
        << "⚙ hook on_step: make lint · exit 0\n";
    QTest::newRow("hook with a failing command")
        << QByteArrayList{ev("hook", {{"name", "on_step"}, {"command", "make lint"}, {"exit_code", 2}, {"output", ""},
                                      {"detail", ""}})}
        << "⚙ hook on_step: make lint · exit 2\n";
    QTest::newRow("hook without a command is silent")
        << QByteArrayList{ev("hook", {{"name", "on_step"}, {"command", nullptr}, {"exit_code", nullptr}, {"output", ""},
                                      {"detail", "step 3"}})}
        << "";
    QTest::newRow("low memory hook is shown")
        << QByteArrayList{ev("hook", {{"name", "on_low_memory"}, {"command", nullptr}, {"exit_code", nullptr},
                                      {"output", ""}, {"detail", "rss 410 MB over 400 MB"}})}
        << "⚙ hook on_low_memory: rss 410 MB over 400 MB\n";

    QTest::newRow("plan")
        << QByteArrayList{ev("plan_updated", {{"steps", json::array({{{"step", "Read"}, {"status", "completed"}},
                                                                    {{"step", "Fix"}, {"status", "in_progress"}},
                                                                    {{"step", "Test"}, {"status", "pending"}}})},
                                              {"explanation", "found it"}})}
        << "plan: found it\n  ✓ Read\n  ▸ Fix\n  ○ Test\n";
    QTest::newRow("guard warns")
        << QByteArrayList{ev("guard", {{"guard", "memory_threshold_mb"}, {"action", "warn"}, {"detail", "rss 520 MB"}})}
        << "⚠ warning from guard memory_threshold_mb: rss 520 MB\n";
    QTest::newRow("guard stops")
        << QByteArrayList{ev("guard", {{"guard", "max_steps"}, {"action", "stop"}, {"detail", "50 steps"}})}
        << "⚠ stopped by guard max_steps: 50 steps\n";
    QTest::newRow("error") << QByteArrayList{ev("error", {{"message", "saving memories failed"}, {"fatal", false}})}
                           << "✗ error: saving memories failed\n";
    QTest::newRow("fatal error") << QByteArrayList{ev("error", {{"message", "model unreachable"}, {"fatal", true}})}
                                 << "✗ fatal error: model unreachable\n";
    QTest::newRow("info log is silent") << QByteArrayList{ev("log", {{"level", "info"}, {"message", "started"}})} << "";
    QTest::newRow("debug log is silent") << QByteArrayList{ev("log", {{"level", "debug"}, {"message", "x"}})} << "";
    QTest::newRow("warn log") << QByteArrayList{ev("log", {{"level", "warn"}, {"message", "slow model"}})}
                              << "warning: slow model\n";
    QTest::newRow("error log") << QByteArrayList{ev("log", {{"level", "error"}, {"message", "bad line"}})}
                               << "error: bad line\n";

    // The run's setup: the skills offered and changed, an MCP server started, left out, or failed.
    QTest::newRow("skills offered") << QByteArrayList{ev("log", {{"level", "info"}, {"message", "skills offered: pdf, csv"}})}
                                    << "✦ 2 skills offered: pdf, csv\n";
    QTest::newRow("skills changed")
        << QByteArrayList{ev("log", {{"level", "info"}, {"message", "skills changed: added new-one; removed pdf"}})}
        << "✦ Skills changed: new-one added; pdf removed\n";
    QTest::newRow("an MCP server started")
        << QByteArrayList{ev("log", {{"level", "info"}, {"message", "MCP server \"fs\" (fs 1.0) started with 3 tools"}})}
        << "⚙ MCP server fs (fs 1.0) started with 3 tools\n";
    QTest::newRow("an MCP server left out")
        << QByteArrayList{ev("log", {{"level", "warn"}, {"message", "MCP server \"docs\" (sse, https://x) skipped: not yet"}})}
        << "warning: MCP server docs (sse, https://x) skipped: not yet\n";
    QTest::newRow("an MCP server failed")
        << QByteArrayList{ev("error", {{"message", "MCP server \"gh\" could not be started: no gh-mcp"}, {"fatal", false}})}
        << "⚠ MCP server gh is unavailable: could not be started: no gh-mcp; the task goes on without its tools\n";
    QTest::newRow("a skill used") << QByteArrayList{call("skill", {{"name", "pdf"}})} << "▶ skill  pdf\n";

    QTest::newRow("task_finished")
        << QByteArrayList{ev("task_finished", {{"reason", "finished"}, {"summary", "Wrote hello.txt"}})}
        << "\n✓ finished: Wrote hello.txt\n";
    QTest::newRow("task_finished failed, multi-line summary")
        << QByteArrayList{ev("task_finished", {{"reason", "failed"}, {"summary", "model error\nretry later"}})}
        << "\n✗ failed: model error\n  retry later\n";
    QTest::newRow("task_finished by a guard")
        << QByteArrayList{ev("task_finished", {{"reason", "guard"}, {"summary", ""}})} << "\n✗ stopped by a guard\n";
    QTest::newRow("task_finished cancelled")
        << QByteArrayList{ev("task_finished", {{"reason", "cancelled"}, {"summary", nullptr}})} << "\n■ cancelled\n";
    QTest::newRow("task_finished paused")
        << QByteArrayList{ev("task_finished", {{"reason", "paused"}, {"summary", ""}})} << "\n■ paused\n";

    QTest::newRow("network_request allowed")
        << QByteArrayList{ev("network_request", {{"method", "CONNECT"}, {"host", "pypi.org"}, {"port", 443}, {"allowed", true}, {"address", "1.2.3.4"}})}
        << "⇢ network: CONNECT pypi.org:443\n";
    QTest::newRow("network_request refused")
        << QByteArrayList{ev("network_request", {{"method", "GET"}, {"host", "evil.example"}, {"port", 80}, {"allowed", false}, {"reason", "not listed"}})}
        << "⇢ network refused: GET evil.example:80: not listed\n";
    QTest::newRow("network_request with secrets")
        << QByteArrayList{ev("network_request", {{"method", "GET"}, {"host", "api.github.com"}, {"port", 443}, {"allowed", true}, {"address", "1.2.3.4"}, {"path", "/user"}, {"status", 200}, {"secrets", {"GH_TOKEN", "X"}}})}
        << "⇢ secret request: GET api.github.com:443/user → 200, with GH_TOKEN, X\n";
    QTest::newRow("network_request with secrets failed")
        << QByteArrayList{ev("network_request", {{"method", ""}, {"host", "api.github.com"}, {"port", 443}, {"allowed", true}, {"address", "1.2.3.4"}, {"path", ""}, {"reason", "the TLS handshake failed"}})}
        << "⇢ secret request failed: TLS api.github.com:443, no secret put in: the TLS handshake failed\n";
    QTest::newRow("unreadable: network_request without allowed")
        << QByteArrayList{ev("network_request", {{"method", "GET"}, {"host", "a"}, {"port", 80}})}
        << "(unreadable event: network_request data.allowed: missing)\n";

    QTest::newRow("unreadable: not an object")
        << QByteArrayList{"[1,2]"} << "(unreadable event: event: must be an object, got an array)\n";
    QTest::newRow("unreadable: no type")
        << QByteArrayList{"{\"data\":{}}"} << "(unreadable event: event.type: missing)\n";
    QTest::newRow("unreadable: type is a number")
        << QByteArrayList{"{\"type\":5,\"data\":{}}"} << "(unreadable event: event.type: must be a string, got the integer 5)\n";
    QTest::newRow("unreadable: unknown type")
        << QByteArrayList{ev("telepathy")} << "(unreadable event: event.type: unknown event type \"telepathy\")\n";
    QTest::newRow("unreadable: data is a string")
        << QByteArrayList{"{\"type\":\"log\",\"data\":\"x\"}"} << "(unreadable event: event.data: must be an object, got a string)\n";
    QTest::newRow("unreadable: tool_call without arguments")
        << QByteArrayList{ev("tool_call", {{"id", "c1"}}, {{"tool", "shell"}})}
        << "(unreadable event: tool_call data.arguments: missing)\n";
    QTest::newRow("unreadable: tool_call without tool")
        << QByteArrayList{ev("tool_call", {{"id", "c1"}, {"arguments", json::object()}})}
        << "(unreadable event: event.tool: missing)\n";
    QTest::newRow("unreadable: delta text is a number")
        << QByteArrayList{ev("model_delta", {{"text", 5}})} << "(unreadable event: model_delta data.text: must be a string, got the integer 5)\n";
    QTest::newRow("unreadable: unknown file change")
        << QByteArrayList{ev("file_changed", {{"path", "a"}, {"change", "renamed"}})}
        << "(unreadable event: file_changed data.change: must be created, modified or deleted, got \"renamed\")\n";
    QTest::newRow("unreadable: file change count is negative")
        << QByteArrayList{ev("file_changed", {{"path", "a"}, {"change", "modified"}, {"added", -1}, {"removed", 0}})}
        << "(unreadable event: file_changed data.added: must be a non-negative integer, got the integer -1)\n";
    QTest::newRow("unreadable: step is negative")
        << QByteArrayList{ev("step_started", json::object(), {{"step", -1}})}
        << "(unreadable event: event.step: must be a non-negative integer, got the integer -1)\n";
    QTest::newRow("unreadable: tool_output stream")
        << QByteArrayList{ev("tool_output", {{"id", "c1"}, {"stream", "stdin"}, {"text", "x"}})}
        << "(unreadable event: tool_output data.stream: must be stdout or stderr, got \"stdin\")\n";
    QTest::newRow("unreadable: tool_result exit code is a string")
        << QByteArrayList{result({{"exit_code", "0"}, {"truncated", false}})}
        << "(unreadable event: tool_result data.exit_code: must be an integer or null, got a string)\n";
    QTest::newRow("unreadable: error without message")
        << QByteArrayList{ev("error", {{"fatal", true}})} << "(unreadable event: error data.message: missing)\n";
    QTest::newRow("unreadable event closes the model text")
        << QByteArrayList{ev("model_delta", {{"text", "Hi"}}), ev("nope")} << "Hi\n(unreadable event: event.type: unknown event type \"nope\")\n";
}
// clang-format on

void TestLiveView::renders() {
    QFETCH(QByteArrayList, events);
    QFETCH(QString, expected);
    QCOMPARE(renderAll(events), expected);
}

void TestLiveView::outputCap_data() {
    QTest::addColumn<int>("maxLines");
    QTest::addColumn<QString>("taskId"); // options.taskId; "" to learn it from task_started
    QTest::addColumn<int>("lines");
    QTest::addColumn<QString>("expected");

    QTest::newRow("under the cap") << 3 << "t-1" << 2 << "    line 1\n    line 2\n  ✓ exit 0\n";
    QTest::newRow("exactly the cap") << 3 << "t-1" << 3 << "    line 1\n    line 2\n    line 3\n  ✓ exit 0\n";
    QTest::newRow("one over the cap")
        << 3 << "t-1" << 4
        << "    line 1\n    line 2\n    line 3\n    … 1 more line (warren show t-1 for all)\n  ✓ exit 0\n";
    QTest::newRow("far over the cap")
        << 2 << "t-1" << 1502
        << "    line 1\n    line 2\n    … 1,500 more lines (warren show t-1 for all)\n  ✓ exit 0\n";
    QTest::newRow("no cap") << 0 << "t-1" << 4 << "    line 1\n    line 2\n    line 3\n    line 4\n  ✓ exit 0\n";
    QTest::newRow("task id from task_started")
        << 1 << "" << 2 << "● task t-9\n  go\n    line 1\n    … 1 more line (warren show t-9 for all)\n  ✓ exit 0\n";
}

void TestLiveView::outputCap() {
    QFETCH(int, maxLines);
    QFETCH(QString, taskId);
    QFETCH(int, lines);
    QFETCH(QString, expected);

    QByteArrayList events;
    if (taskId.isEmpty())
        events << ev("task_started", {{"task_id", "t-9"}, {"prompt", "go"}, {"config", json::object()}});
    // One chunk with many lines and then one line per chunk: the cap counts lines, not chunks.
    std::string first;
    for (int i = 1; i <= lines / 2; ++i)
        first += "line " + std::to_string(i) + "\n";
    if (!first.empty())
        events << output(first);
    for (int i = lines / 2 + 1; i <= lines; ++i)
        events << output("line " + std::to_string(i) + "\n");
    events << result({{"exit_code", 0}, {"truncated", false}});

    LiveViewOptions options;
    options.maxOutputLines = static_cast<std::size_t>(maxLines);
    options.taskId = taskId.toStdString();
    QCOMPARE(renderAll(events, options), expected);
}

// Attacks a tool or the model could try on the terminal of the person watching.
void TestLiveView::sanitizes_data() {
    QTest::addColumn<std::string>("input");
    QTest::addColumn<std::string>("expected");

    QTest::newRow("plain text") << std::string("hello\tworld\n") << std::string("hello\tworld\n");
    QTest::newRow("UTF-8 kept") << std::string("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x90\x87") << std::string("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x90\x87");
    QTest::newRow("OSC window title with BEL") << std::string("a\x1b]0;pwned\x07z") << std::string("az");
    QTest::newRow("OSC window title with ST") << std::string("a\x1b]2;pwned\x1b\\z") << std::string("az");
    QTest::newRow("OSC 8 hyperlink") << std::string("\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\") << std::string("click");
    QTest::newRow("OSC 52 clipboard write") << std::string("\x1b]52;c;cm0gLXJmIH4=\x07ok") << std::string("ok");
    QTest::newRow("unterminated OSC drops the rest") << std::string("a\x1b]0;pwned") << std::string("a");
    QTest::newRow("clear screen") << std::string("\x1b[2Jvisible") << std::string("visible");
    QTest::newRow("cursor up") << std::string("fake\x1b[1A\x1b[2Kline") << std::string("fakeline");
    QTest::newRow("SGR colour") << std::string("\x1b[31mred\x1b[0m") << std::string("red");
    QTest::newRow("private mode: hide cursor") << std::string("\x1b[?25lx") << std::string("x");
    QTest::newRow("DCS") << std::string("\x1bPq#0;2;0;0;0\x1b\\after") << std::string("after");
    QTest::newRow("APC") << std::string("\x1b_Gf=100;AAAA\x1b\\after") << std::string("after");
    QTest::newRow("reset terminal") << std::string("\x1b" "cafter") << std::string("after");
    QTest::newRow("charset switch") << std::string("\x1b(0lqqk\x1b(B") << std::string("lqqk");
    QTest::newRow("lone ESC at the end") << std::string("end\x1b") << std::string("end");
    QTest::newRow("carriage return overwrite shows both") << std::string("a\rb") << std::string("a\nb");
    QTest::newRow("CRLF") << std::string("a\r\nb") << std::string("a\nb");
    QTest::newRow("raw C1 CSI") << std::string("x\x9b" "2Jy") << std::string("xy");
    QTest::newRow("encoded C1 CSI") << std::string("x\xC2\x9b" "2Jy") << std::string("xy");
    QTest::newRow("encoded C1 OSC") << std::string("x\xC2\x9d" "0;pwned\x07y") << std::string("xy");
    QTest::newRow("other C1 control") << std::string("x\xC2\x85y") << std::string("xy");
    QTest::newRow("backspace") << std::string("safe\x08\x08\x08\x08rm -rf") << std::string("saferm -rf");
    QTest::newRow("BEL, NUL, vertical tab, form feed, DEL")
        << std::string("a\x07" "b\x00" "c\x0b" "d\x0c" "e\x7f" "f", 11) << std::string("abcdef");
    QTest::newRow("bidi override") << std::string("x\xE2\x80\xAEy\xE2\x81\xA6z") << std::string("xyz");
    QTest::newRow("invalid UTF-8 replaced") << std::string("a\xFF" "b\xC0\xAF" "c") << std::string("a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD" "c");
    QTest::newRow("truncated UTF-8 replaced") << std::string("a\xE2\x9C") << std::string("a\xEF\xBF\xBD"); // the lead byte; 0x9C alone is a C1 control
}

void TestLiveView::sanitizes() {
    QFETCH(std::string, input);
    QFETCH(std::string, expected);
    QCOMPARE(q(sanitizeForTerminal(input)), q(expected));
}

// Each field that comes from the agent or a tool carries the attack; the output must not contain a
// single control byte but \n.
void TestLiveView::attacksThroughEveryTextField_data() {
    QTest::addColumn<QByteArrayList>("events");
    // false where the text is shown as JSON: there the sequences are escaped (\u001b), visible and harmless.
    QTest::addColumn<bool>("bodyRemoved");
    const std::string attack = "x\x1b]0;pwned\x07\x1b[2J\x1b[1A\r\xC2\x9b" "2J\x08\xC2\x9b" "1Ay";
    QTest::newRow("model_delta") << QByteArrayList{ev("model_delta", {{"text", attack}})} << true;
    QTest::newRow("model_response") << QByteArrayList{ev("model_response", {{"content", attack}, {"tool_calls", json::array()}, {"finish_reason", "stop"}})} << true;
    QTest::newRow("tool name") << QByteArrayList{call(attack, {{"a", 1}})} << true;
    QTest::newRow("shell command") << QByteArrayList{call("shell", {{"command", attack}})} << true;
    QTest::newRow("write_file path") << QByteArrayList{call("write_file", {{"path", attack}, {"content", ""}})} << true;
    QTest::newRow("JSON arguments") << QByteArrayList{call("memory_save", {{"key", attack}})} << false;
    QTest::newRow("stdout") << QByteArrayList{output(attack + "\n" + attack), result({{"exit_code", 0}, {"truncated", false}})} << true;
    QTest::newRow("stderr") << QByteArrayList{output(attack, "stderr"), result({{"exit_code", 1}, {"truncated", false}})} << true;
    QTest::newRow("escape split across chunks") << QByteArrayList{output("a\x1b"), output("[2Jb\x1b]0;"), output("pwned\x07" "c\n")} << true;
    QTest::newRow("failed result output") << QByteArrayList{result({{"exit_code", 1}, {"truncated", false}, {"output", attack}})} << true;
    QTest::newRow("file path") << QByteArrayList{ev("file_changed", {{"path", attack}, {"change", "created"}})} << true;
    QTest::newRow("approval reason") << QByteArrayList{ev("approval_requested", {{"id", "c"}, {"arguments", {{"command", attack}}}, {"reason", attack}}, {{"tool", "shell"}})} << true;
    QTest::newRow("approval note") << QByteArrayList{ev("approval_resolved", {{"id", "c"}, {"approved", false}, {"note", attack}, {"decided_by", attack}})} << true;
    QTest::newRow("hook") << QByteArrayList{ev("hook", {{"name", attack}, {"command", attack}, {"exit_code", 0}, {"output", ""}, {"detail", attack}})} << true;
    QTest::newRow("guard") << QByteArrayList{ev("guard", {{"guard", attack}, {"action", "stop"}, {"detail", attack}})} << true;
    QTest::newRow("error") << QByteArrayList{ev("error", {{"message", attack}, {"fatal", true}})} << true;
    QTest::newRow("log") << QByteArrayList{ev("log", {{"level", "error"}, {"message", attack}})} << true;
    QTest::newRow("task_started") << QByteArrayList{ev("task_started", {{"task_id", attack}, {"prompt", attack}, {"presets", {attack}}})} << true;
    QTest::newRow("task_resumed") << QByteArrayList{ev("task_resumed", {{"from_step", 1}, {"interrupted_tool_call", attack}})} << true;
    QTest::newRow("task_finished") << QByteArrayList{ev("task_finished", {{"reason", attack}, {"summary", attack}})} << true;
    QTest::newRow("network_request") << QByteArrayList{ev("network_request", {{"method", attack}, {"host", attack}, {"port", 1}, {"allowed", false}, {"reason", attack}})} << true;
    QTest::newRow("unknown type") << QByteArrayList{ev(attack)} << true;
}

void TestLiveView::attacksThroughEveryTextField() {
    QFETCH(QByteArrayList, events);
    QFETCH(bool, bodyRemoved);
    for (bool colour : {false, true}) {
        LiveViewOptions options;
        options.color = colour;
        LiveView view(options);
        std::string out;
        for (const QByteArray& event : events)
            out += view.render(json::parse(event.toStdString()));
        if (bodyRemoved) {
            QVERIFY2(out.find("pwned") == std::string::npos, out.c_str());
            QVERIFY2(out.find("2J") == std::string::npos && out.find("1A") == std::string::npos, out.c_str());
        }
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto c = static_cast<unsigned char>(out[i]);
            if (c == 0x1b && colour) {
                // Only LiveView's own SGR colour sequences: ESC [ digits;... m
                const auto end = out.find('m', i);
                QVERIFY2(end != std::string::npos, out.c_str());
                QVERIFY2(out.find_first_not_of("0123456789;", i + 2) == end && out[i + 1] == '[', out.c_str());
                i = end;
                continue;
            }
            QVERIFY2(c >= 0x20 || c == '\n' || c == '\t', qPrintable(QStringLiteral("control byte %1 in %2").arg(c).arg(q(out))));
            QVERIFY2(c != 0x7f, out.c_str());
            if (c == 0xC2 && i + 1 < out.size()) {
                const auto next = static_cast<unsigned char>(out[i + 1]);
                QVERIFY2(next < 0x80 || next > 0x9f, out.c_str());
            }
        }
    }
}

void TestLiveView::colourOffWritesNoEscape() {
    // Every event type, rendered in one run with colour off (the default): not one ESC.
    const QByteArrayList events{
        ev("task_started", {{"task_id", "t-1"}, {"prompt", "p"}, {"presets", {"safe-mode"}}}),
        ev("task_resumed", {{"from_step", 1}, {"interrupted_tool_call", nullptr}}),
        ev("step_started"), ev("model_delta", {{"text", "hi"}}),
        ev("model_response", {{"content", "hi"}, {"tool_calls", json::array()}, {"finish_reason", "stop"}}),
        call("shell", {{"command", "ls"}}), output("a\n"), output("b\n", "stderr"),
        result({{"exit_code", 1}, {"truncated", true}, {"cached", true}}, {{"duration_ms", 5}}),
        ev("file_changed", {{"path", "a"}, {"change", "deleted"}}),
        ev("approval_requested", {{"id", "c"}, {"arguments", json::object()}, {"reason", "r"}}, {{"tool", "shell"}}),
        ev("approval_resolved", {{"id", "c"}, {"approved", false}, {"note", "n"}}),
        ev("hook", {{"name", "on_error"}, {"command", "x"}, {"exit_code", 1}, {"output", ""}, {"detail", ""}}),
        ev("guard", {{"guard", "g"}, {"action", "warn"}, {"detail", "d"}}),
        ev("error", {{"message", "m"}, {"fatal", true}}), ev("log", {{"level", "warn"}, {"message", "m"}}),
        ev("network_request", {{"method", "GET"}, {"host", "h"}, {"port", 80}, {"allowed", false}, {"reason", "r"}}),
        ev("task_finished", {{"reason", "failed"}, {"summary", "s"}}), ev("bogus")};
    LiveViewOptions options;
    options.maxOutputLines = 1;
    LiveView view(options);
    std::string out;
    for (const QByteArray& event : events)
        out += view.render(json::parse(event.toStdString()));
    out += view.summary("failed", 1, 2, 3, 4);
    QVERIFY(!out.empty());
    QVERIFY2(out.find('\x1b') == std::string::npos, out.c_str());
}

void TestLiveView::colourOnOnlyWrapsWhatTheViewAdds() {
    LiveViewOptions options;
    options.color = true;
    LiveView view(options);
    // The tool's own colours are removed; the view's mark is coloured.
    const std::string out = view.render(json::parse(call("shell", {{"command", "\x1b[31mls"}}).toStdString()));
    QCOMPARE(q(out), q("\x1b[36m▶ \x1b[0m\x1b[1mshell\x1b[0m  ls\n"));
    const std::string line = view.render(json::parse(output("\x1b[32mgreen\x1b[0m\n").toStdString()));
    QCOMPARE(q(line), QStringLiteral("    green\n"));
    // A file change's counts: added in green, removed in red.
    const std::string change = view.render(json::parse(
        ev("file_changed", {{"path", "a.txt"}, {"change", "modified"}, {"added", 2}, {"removed", 1}}).toStdString()));
    QCOMPARE(q(change), q("  \x1b[33mM\x1b[0m a.txt  \x1b[32m+2\x1b[0m \x1b[31m−1\x1b[0m\n"));
}

void TestLiveView::malformedEventsNeverThrow() {
    // Every type with every data field replaced by each wrong kind of value, and odd envelopes.
    const std::vector<json> oddValues{nullptr, true, -1, 1.5, "s", json::array({1}), json::object({{"a", 1}})};
    const std::vector<std::string> fieldNames{"task_id", "prompt", "presets", "from_step", "interrupted_tool_call",
                                              "text", "content", "id", "arguments", "stream", "exit_code",
                                              "truncated", "output", "cached", "timed_out", "denied", "interrupted",
                                              "path", "change", "reason", "approved", "note", "decided_by", "name",
                                              "command", "detail", "guard", "action", "message", "fatal", "level",
                                              "summary", "error", "added", "removed", "binary"};
    std::size_t rendered = 0;
    for (const auto& info : protocol::eventTypeCatalog()) {
        const std::string type(info.name);
        for (const json& odd : oddValues) {
            LiveView view;
            json data = json::object();
            for (const auto& name : fieldNames)
                data[name] = odd;
            for (const json& event : {json::parse(ev(type, data).toStdString()),
                                      json::parse(ev(type, json::object(), {{"tool", odd}, {"step", odd},
                                                                             {"duration_ms", odd}}).toStdString()),
                                      json{{"type", type}, {"data", odd}}, json{{"type", type}}}) {
                std::string out;
                try {
                    out = view.render(event);
                } catch (...) {
                    QFAIL(qPrintable("render threw for " + q(event.dump())));
                }
                QVERIFY2(out.empty() || out.back() == '\n' || type == "model_delta", out.c_str());
                ++rendered;
            }
        }
    }
    QVERIFY(rendered > 0);
    LiveView view;
    for (const json& event : {json(nullptr), json(5), json("text"), json::array()})
        QVERIFY(q(view.render(event)).startsWith("(unreadable event: "));
}

// Events the control plane builds itself are not parsed: their numbers are signed.
void TestLiveView::eventsBuiltInCode() {
    LiveView view;
    QCOMPARE(q(view.render(json{{"type", "step_started"}, {"step", 2}, {"data", json::object()}})),
             QStringLiteral("\n── step 2 ──\n"));
    QCOMPARE(q(view.render(json{{"type", "task_resumed"}, {"step", 2},
                                {"data", {{"from_step", 2}, {"interrupted_tool_call", nullptr}}}})),
             QStringLiteral("↻ resumed from step 2\n"));
    QCOMPARE(q(view.render(json{{"type", "tool_result"}, {"tool", "shell"}, {"duration_ms", 7},
                                {"data", {{"id", "c"}, {"exit_code", 0}, {"truncated", false}}}})),
             QStringLiteral("  ✓ exit 0 · 7 ms\n"));
    QCOMPARE(q(view.render(json{{"type", "step_started"}, {"step", -2}, {"data", json::object()}})),
             QStringLiteral(
                 "(unreadable event: event.step: must be a non-negative integer, got the integer -2)\n"));
}

void TestLiveView::summary_data() {
    QTest::addColumn<QString>("status");
    QTest::addColumn<quint64>("steps");
    QTest::addColumn<quint64>("tokensIn");
    QTest::addColumn<quint64>("tokensOut");
    QTest::addColumn<quint64>("elapsedMs");
    QTest::addColumn<QString>("expected");

    QTest::newRow("succeeded") << "succeeded" << quint64(6) << quint64(1234) << quint64(567) << quint64(2400)
                               << "succeeded · 6 steps · 1,234 in / 567 out tokens · 2.4 s\n";
    QTest::newRow("one step, milliseconds") << "failed" << quint64(1) << quint64(0) << quint64(0) << quint64(85)
                                            << "failed · 1 step · 0 in / 0 out tokens · 85 ms\n";
    QTest::newRow("minutes and millions") << "cancelled" << quint64(120) << quint64(1234567) << quint64(1000)
                                          << quint64(125000)
                                          << "cancelled · 120 steps · 1,234,567 in / 1,000 out tokens · 2 min 5 s\n";
}

void TestLiveView::summary() {
    QFETCH(QString, status);
    QFETCH(quint64, steps);
    QFETCH(quint64, tokensIn);
    QFETCH(quint64, tokensOut);
    QFETCH(quint64, elapsedMs);
    QFETCH(QString, expected);
    LiveView view;
    QCOMPARE(q(view.summary(status.toStdString(), steps, tokensIn, tokensOut, elapsedMs)), expected);

    LiveViewOptions options;
    options.color = true;
    QString coloured = q(LiveView(options).summary(status.toStdString(), steps, tokensIn, tokensOut, elapsedMs));
    QVERIFY(coloured.contains(QChar(0x1b)));
    QCOMPARE(coloured.remove(QRegularExpression(QStringLiteral("\x1b\\[[0-9;]*m"))), expected);
}

QTEST_APPLESS_MAIN(TestLiveView)
#include "tst_live_view.moc"
