// RequestBody: one llm.chat conversation -> the exact JSON each API expects.
#include "app/providers/RequestBody.h"

#include <QtTest>

using nlohmann::json;
using warren::protocol::ChatMessage;
using warren::protocol::LlmChatParams;
using warren::protocol::ToolCall;
using warren::protocol::ToolSpec;

namespace {

// Expected bodies are written with single quotes; q() turns them into JSON.
json q(const char* text) {
    std::string out(text);
    std::replace(out.begin(), out.end(), '\'', '"');
    return json::parse(out);
}

ChatMessage message(const char* role, const char* content) {
    return ChatMessage{role, content, {}, std::nullopt};
}

ChatMessage toolResult(const char* id, const char* content) {
    return ChatMessage{"tool", content, {}, std::string(id)};
}

ChatMessage assistantCalling(const char* content, std::vector<ToolCall> calls) {
    return ChatMessage{"assistant", content, std::move(calls), std::nullopt};
}

// A conversation with every kind of message: two system messages, a tool round with text, one without,
// two tool results in a row, and a user message right after a tool result.
LlmChatParams conversation() {
    LlmChatParams params;
    params.messages = {
        message("system", "You are Warren."),
        message("system", "Be brief."),
        message("user", "List the files."),
        assistantCalling("Listing.", {ToolCall{"call_1", "shell", json{{"command", "ls"}}}}),
        toolResult("call_1", "a.txt"),
        assistantCalling("", {ToolCall{"call_2", "read_file", json{{"path", "a.txt"}}},
                              ToolCall{"call_3", "finish", json::object()}}),
        toolResult("call_2", "hello"),
        toolResult("call_3", "done"),
        message("user", "Thanks."),
    };
    params.tools = {ToolSpec{"shell", "Run a command", q("{'type':'object','properties':{'command':{'type':'string'}}}")},
                    ToolSpec{"finish", "End the task", json::object()}};
    return params;
}

void compareJson(const json& got, const json& expected) {
    if (got != expected)
        qWarning("got:      %s\nexpected: %s", got.dump().c_str(), expected.dump().c_str());
    QCOMPARE(QByteArray::fromStdString(got.dump()), QByteArray::fromStdString(expected.dump()));
}

} // namespace

class TestRequestBody : public QObject {
    Q_OBJECT
private slots:
    void openAiBody();
    void openAiBodyWithoutTools();
    void anthropicBody();
    void anthropicBodyWithoutSystemOrTools();
};

void TestRequestBody::openAiBody() {
    compareJson(warren::control::openAiRequestBody(conversation(), "gpt-4o-mini", 1024), q("{"
        "'model': 'gpt-4o-mini',"
        "'messages': ["
        "{'role': 'system', 'content': 'You are Warren.'},"
        "{'role': 'system', 'content': 'Be brief.'},"
        "{'role': 'user', 'content': 'List the files.'},"
        "{'role': 'assistant', 'content': 'Listing.', 'tool_calls': ["
        "{'id': 'call_1', 'type': 'function', 'function': {'name': 'shell', 'arguments': '{\\'command\\':\\'ls\\'}'}}]},"
        "{'role': 'tool', 'tool_call_id': 'call_1', 'content': 'a.txt'},"
        "{'role': 'assistant', 'content': null, 'tool_calls': ["
        "{'id': 'call_2', 'type': 'function', 'function': {'name': 'read_file', 'arguments': '{\\'path\\':\\'a.txt\\'}'}},"
        "{'id': 'call_3', 'type': 'function', 'function': {'name': 'finish', 'arguments': '{}'}}]},"
        "{'role': 'tool', 'tool_call_id': 'call_2', 'content': 'hello'},"
        "{'role': 'tool', 'tool_call_id': 'call_3', 'content': 'done'},"
        "{'role': 'user', 'content': 'Thanks.'}],"
        "'max_tokens': 1024,"
        "'stream': true,"
        "'stream_options': {'include_usage': true},"
        "'tools': ["
        "{'type': 'function', 'function': {'name': 'shell', 'description': 'Run a command',"
        "'parameters': {'type': 'object', 'properties': {'command': {'type': 'string'}}}}},"
        "{'type': 'function', 'function': {'name': 'finish', 'description': 'End the task',"
        "'parameters': {'type': 'object', 'properties': {}}}}]"
        "}"));
}

void TestRequestBody::openAiBodyWithoutTools() {
    LlmChatParams params;
    params.messages = {message("user", "hi")};
    const json body = warren::control::openAiRequestBody(params, "llama3", 10);
    QVERIFY(!body.contains("tools")); // some local servers refuse an empty tools array
    QCOMPARE(body["messages"].dump(), q("[{'role':'user','content':'hi'}]").dump());
}

void TestRequestBody::anthropicBody() {
    compareJson(warren::control::anthropicRequestBody(conversation(), "claude-sonnet-4-5", 4096), q("{"
        "'model': 'claude-sonnet-4-5',"
        "'max_tokens': 4096,"
        "'stream': true,"
        "'system': 'You are Warren.\\n\\nBe brief.',"
        "'messages': ["
        "{'role': 'user', 'content': [{'type': 'text', 'text': 'List the files.'}]},"
        "{'role': 'assistant', 'content': ["
        "{'type': 'text', 'text': 'Listing.'},"
        "{'type': 'tool_use', 'id': 'call_1', 'name': 'shell', 'input': {'command': 'ls'}}]},"
        "{'role': 'user', 'content': [{'type': 'tool_result', 'tool_use_id': 'call_1', 'content': 'a.txt'}]},"
        "{'role': 'assistant', 'content': ["
        "{'type': 'tool_use', 'id': 'call_2', 'name': 'read_file', 'input': {'path': 'a.txt'}},"
        "{'type': 'tool_use', 'id': 'call_3', 'name': 'finish', 'input': {}}]},"
        "{'role': 'user', 'content': ["
        "{'type': 'tool_result', 'tool_use_id': 'call_2', 'content': 'hello'},"
        "{'type': 'tool_result', 'tool_use_id': 'call_3', 'content': 'done'},"
        "{'type': 'text', 'text': 'Thanks.'}]}],"
        "'tools': ["
        "{'name': 'shell', 'description': 'Run a command',"
        "'input_schema': {'type': 'object', 'properties': {'command': {'type': 'string'}}}},"
        "{'name': 'finish', 'description': 'End the task', 'input_schema': {'type': 'object', 'properties': {}}}]"
        "}"));
}

void TestRequestBody::anthropicBodyWithoutSystemOrTools() {
    LlmChatParams params;
    params.messages = {message("user", "hi"), message("user", "again"), message("assistant", "")};
    const json body = warren::control::anthropicRequestBody(params, "claude", 5);
    QVERIFY(!body.contains("system"));
    QVERIFY(!body.contains("tools"));
    // Two user messages merged; the empty assistant message left out (the API refuses empty text).
    QCOMPARE(body["messages"].dump(),
             q("[{'role':'user','content':[{'type':'text','text':'hi'},{'type':'text','text':'again'}]}]").dump());
}

QTEST_APPLESS_MAIN(TestRequestBody)
#include "tst_request_body.moc"
