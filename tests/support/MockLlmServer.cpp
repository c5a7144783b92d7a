#include "tests/support/MockLlmServer.h"

#include <QHostAddress>
#include <QTcpSocket>
#include <QPointer>
#include <QTimer>
#include <utility>

namespace warren::test {

using nlohmann::json;

MockResponse MockResponse::json(int status, const QByteArray& reason, const QByteArray& body,
                                QList<QPair<QByteArray, QByteArray>> headers) {
    MockResponse response;
    response.status = status;
    response.reason = reason;
    response.body = body;
    response.headers = std::move(headers);
    response.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    return response;
}

MockResponse MockResponse::sse(QList<QByteArray> chunks) {
    MockResponse response;
    response.chunks = std::move(chunks);
    response.streamed = true;
    response.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("text/event-stream")));
    return response;
}

json RecordedRequest::json() const {
    return json::parse(body.toStdString(), nullptr, false);
}

MockLlmServer::MockLlmServer(QObject* parent) : QObject(parent) {
    connect(&m_server, &QTcpServer::newConnection, this, &MockLlmServer::onNewConnection);
}

MockLlmServer::~MockLlmServer() {
    // The connections die with m_server, after the members their handlers use: silence them first.
    for (QTcpSocket* socket : m_server.findChildren<QTcpSocket*>())
        disconnect(socket, nullptr, this, nullptr);
}

bool MockLlmServer::listen() {
    return m_server.listen(QHostAddress::LocalHost, 0);
}

quint16 MockLlmServer::port() const {
    return m_server.serverPort();
}

QString MockLlmServer::baseUrl() const {
    return QStringLiteral("http://127.0.0.1:%1").arg(port());
}

void MockLlmServer::enqueue(MockResponse response) {
    m_queue.push_back(std::move(response));
}

void MockLlmServer::onNewConnection() {
    while (QTcpSocket* socket = m_server.nextPendingConnection()) {
        m_buffers.insert(socket, {});
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_buffers.remove(socket);
            socket->deleteLater();
        });
    }
}

void MockLlmServer::onReadyRead(QTcpSocket* socket) {
    if (!m_buffers.contains(socket))
        return;
    QByteArray& buffer = m_buffers[socket];
    buffer.append(socket->readAll());
    const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
    if (headerEnd < 0)
        return;
    RecordedRequest request;
    const QList<QByteArray> lines = buffer.left(headerEnd).split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    request.method = requestLine.value(0);
    request.path = requestLine.value(1);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            request.headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
    }
    const qsizetype length = request.headers.value("content-length", "0").toLongLong();
    if (buffer.size() < headerEnd + 4 + length)
        return; // the body is still on its way
    request.body = buffer.mid(headerEnd + 4, length);
    buffer.remove(0, headerEnd + 4 + length);
    std::optional<MockResponse> refused = refusal(request);
    m_requests.push_back(std::move(request));
    emit requestReceived();
    if (refused) {
        ++m_refusals;
        m_queue.push_front(std::move(*refused)); // answered now, in place of the next scripted response
    }
    respond(socket);
}

namespace {

bool isReasoningModel(std::string model) {
    if (model.starts_with("openai/"))
        model = model.substr(7);
    if (model.starts_with("gpt-5"))
        return model.find("-chat") == std::string::npos;
    return model.starts_with("o1") || model.starts_with("o3") || model.starts_with("o4");
}

MockResponse openAiRefusal(const std::string& message, const std::string& param, const std::string& code) {
    const json body{{"error", {{"message", message}, {"type", "invalid_request_error"}, {"param", param}, {"code", code}}}};
    return MockResponse::json(400, "Bad Request", QByteArray::fromStdString(body.dump(2)));
}

MockResponse anthropicRefusal(const std::string& message) {
    const json body{{"type", "error"}, {"error", {{"type", "invalid_request_error"}, {"message", message}}}};
    return MockResponse::json(400, "Bad Request", QByteArray::fromStdString(body.dump()));
}

} // namespace

QByteArray openAiMaxTokensRefusal() {
    return openAiRefusal("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                         "'max_completion_tokens' instead.",
                         "max_tokens", "unsupported_parameter")
        .body;
}

std::string anthropicSignature(const std::string& thinking) {
    return "sig:" + QByteArray::fromStdString(thinking).toBase64().toStdString();
}

std::optional<MockResponse> MockLlmServer::refusal(const RecordedRequest& request) const {
    const json body = request.json();
    if (m_api == RealApi::None || !body.is_object())
        return std::nullopt;
    const std::string model = body.value("model", "");
    if (m_api == RealApi::OpenAi) {
        if (isReasoningModel(model)) {
            if (body.contains("max_tokens"))
                return openAiRefusal("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                                     "'max_completion_tokens' instead.",
                                     "max_tokens", "unsupported_parameter");
            if (body.contains("temperature") && body["temperature"] != 1)
                return openAiRefusal("Unsupported value: 'temperature' does not support " +
                                         body["temperature"].dump() +
                                         " with this model. Only the default (1) value is supported.",
                                     "temperature", "unsupported_value");
        } else if (body.contains("reasoning_effort")) {
            return openAiRefusal("Unsupported parameter: 'reasoning_effort' is not supported with this model.",
                                 "reasoning_effort", "unsupported_parameter");
        }
        return std::nullopt;
    }
    const std::uint64_t maxTokens = body.value("max_tokens", std::uint64_t{0});
    if (m_outputCeiling > 0 && maxTokens > std::uint64_t(m_outputCeiling))
        return anthropicRefusal("max_tokens: " + std::to_string(maxTokens) + " > " + std::to_string(m_outputCeiling) +
                                ", which is the maximum allowed number of output tokens for " + model);
    const auto thinking = body.find("thinking");
    if (thinking == body.end() || !thinking->is_object() || thinking->value("type", "") != "enabled")
        return std::nullopt;
    const std::uint64_t budget = thinking->value("budget_tokens", std::uint64_t{0});
    if (budget < 1024)
        return anthropicRefusal("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
    if (maxTokens <= budget)
        return anthropicRefusal("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
                                "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size");
    // The assistant message the last tool results answer: the one before the last user message.
    const json& messages = body.value("messages", json::array());
    for (std::size_t i = messages.size(); i-- > 0;) {
        const json& message = messages[i];
        if (message.value("role", "") != "assistant")
            continue;
        const json& content = message.value("content", json::array());
        bool usesTools = false;
        for (const json& block : content)
            usesTools = usesTools || block.value("type", "") == "tool_use";
        if (!usesTools)
            break;
        const std::string first = content.empty() ? "" : content[0].value("type", "");
        if (first != "thinking" && first != "redacted_thinking")
            return anthropicRefusal("messages." + std::to_string(i) + ".content.0.type: Expected `thinking` or "
                                    "`redacted_thinking`, but found `" + first + "`. When `thinking` is enabled, a "
                                    "final `assistant` message must start with a thinking block (preceeding the "
                                    "lastmost set of `tool_use` and `tool_result` blocks). We recommend you include "
                                    "thinking blocks from previous turns. To avoid this requirement, disable "
                                    "`thinking`. Please consult our documentation at "
                                    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking");
        for (const json& block : content) {
            if (block.value("type", "") == "thinking" &&
                block.value("signature", "") != anthropicSignature(block.value("thinking", "")))
                return anthropicRefusal("messages." + std::to_string(i) +
                                        ".content.0: Invalid `signature` in `thinking` block");
        }
        break;
    }
    return std::nullopt;
}

void MockLlmServer::respond(QTcpSocket* socket) {
    MockResponse response;
    if (m_queue.empty()) {
        response = MockResponse::json(500, "Internal Server Error",
                                      "{\"error\":{\"message\":\"the mock server has no scripted response left\"}}");
    } else {
        response = std::move(m_queue.front());
        m_queue.pop_front();
    }
    QByteArray head = "HTTP/1.1 " + QByteArray::number(response.status) + " " + response.reason + "\r\n";
    for (const auto& [name, value] : response.headers)
        head += name + ": " + value + "\r\n";
    head += "Connection: close\r\n";
    if (!response.streamed) {
        head += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n\r\n";
        socket->write(head + response.body);
        socket->disconnectFromHost(); // after the pending bytes are written
        return;
    }
    head += "Transfer-Encoding: chunked\r\n\r\n";
    socket->write(head);
    socket->flush();
    writeChunks(socket, std::move(response), 0);
}

void MockLlmServer::release() {
    if (auto next = std::exchange(m_held, {}))
        next();
}

void MockLlmServer::writeChunks(QTcpSocket* socket, MockResponse response, int next) {
    if (next == response.holdBeforeChunk) {
        response.holdBeforeChunk = -1;
        QPointer<QTcpSocket> alive(socket);
        m_held = [this, alive, response = std::move(response), next]() mutable {
            if (alive)
                writeChunks(alive, std::move(response), next);
        };
        emit held();
        return;
    }
    if (next >= response.chunks.size()) {
        if (!response.dropMidStream)
            socket->write("0\r\n\r\n");
        socket->disconnectFromHost();
        return;
    }
    const QByteArray& chunk = response.chunks[next];
    socket->write(QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n");
    socket->flush();
    const int interval = response.chunkIntervalMs;
    QTimer::singleShot(interval, socket, [this, socket, response = std::move(response), next]() mutable {
        writeChunks(socket, std::move(response), next + 1);
    });
}

QByteArray sseEvent(const QByteArray& data, const QByteArray& name) {
    QByteArray event;
    if (!name.isEmpty())
        event += "event: " + name + "\n";
    return event + "data: " + data + "\n\n";
}

QList<QByteArray> splitChunks(const QByteArray& stream, int chunkSize) {
    QList<QByteArray> chunks;
    for (qsizetype at = 0; at < stream.size(); at += chunkSize)
        chunks.append(stream.mid(at, chunkSize));
    return chunks;
}

QList<QByteArray> splitEvents(const QByteArray& stream) {
    QList<QByteArray> chunks;
    qsizetype start = 0;
    for (qsizetype end = stream.indexOf("\n\n"); end >= 0; end = stream.indexOf("\n\n", start)) {
        chunks.append(stream.mid(start, end + 2 - start));
        start = end + 2;
    }
    if (start < stream.size())
        chunks.append(stream.mid(start));
    return chunks;
}

namespace {

QByteArray data(const json& value) {
    return sseEvent(QByteArray::fromStdString(value.dump()));
}

json openAiChunk(json delta, json finishReason = nullptr) {
    return json{{"id", "chatcmpl-mock"},
                {"object", "chat.completion.chunk"},
                {"created", 1700000000},
                {"model", "mock-model"},
                {"choices", json::array({json{{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr},
                                              {"finish_reason", std::move(finishReason)}}})},
                {"usage", nullptr}};
}

QByteArray openAiEnd(const char* finishReason, int promptTokens, int completionTokens, int reasoningTokens = 0) {
    json usage = openAiChunk(json::object());
    usage["choices"] = json::array();
    usage["usage"] = json{{"prompt_tokens", promptTokens},
                          {"completion_tokens", completionTokens},
                          {"total_tokens", promptTokens + completionTokens},
                          {"completion_tokens_details", {{"reasoning_tokens", reasoningTokens}}}};
    return data(openAiChunk(json::object(), finishReason)) + data(usage) + "data: [DONE]\n\n";
}

QByteArray anthropic(const json& value) {
    return sseEvent(QByteArray::fromStdString(value.dump()),
                    QByteArray::fromStdString(value.at("type").get<std::string>()));
}

QByteArray anthropicStart(int inputTokens) {
    return anthropic({{"type", "message_start"},
                      {"message",
                       {{"id", "msg_mock"}, {"type", "message"}, {"role", "assistant"}, {"content", json::array()},
                        {"model", "claude-mock"}, {"stop_reason", nullptr}, {"stop_sequence", nullptr},
                        {"usage", {{"input_tokens", inputTokens}, {"output_tokens", 1}}}}}});
}

QByteArray anthropicTextBlock(int index, const QStringList& pieces) {
    QByteArray out = anthropic(
        {{"type", "content_block_start"}, {"index", index}, {"content_block", {{"type", "text"}, {"text", ""}}}});
    for (const QString& piece : pieces)
        out += anthropic({{"type", "content_block_delta"},
                          {"index", index},
                          {"delta", {{"type", "text_delta"}, {"text", piece.toStdString()}}}});
    return out + anthropic({{"type", "content_block_stop"}, {"index", index}});
}

QByteArray anthropicEnd(const char* stopReason, int outputTokens) {
    return anthropic({{"type", "message_delta"},
                      {"delta", {{"stop_reason", stopReason}, {"stop_sequence", nullptr}}},
                      {"usage", {{"output_tokens", outputTokens}}}}) +
           anthropic({{"type", "message_stop"}});
}

} // namespace

QByteArray openAiTextStream(const QStringList& pieces, int promptTokens, int completionTokens) {
    QByteArray out = data(openAiChunk({{"role", "assistant"}, {"content", ""}}));
    for (const QString& piece : pieces)
        out += data(openAiChunk({{"content", piece.toStdString()}}));
    return out + openAiEnd("stop", promptTokens, completionTokens);
}

QByteArray openAiToolCallStreamEnding(const QString& id, const QString& name, const QStringList& argumentFragments,
                                      const char* finishReason, int completionTokens, int reasoningTokens) {
    QByteArray out = data(openAiChunk({{"role", "assistant"}, {"content", nullptr}}));
    out += data(openAiChunk(
        {{"tool_calls", json::array({json{{"index", 0},
                                          {"id", id.toStdString()},
                                          {"type", "function"},
                                          {"function", {{"name", name.toStdString()}, {"arguments", ""}}}}})}}));
    for (const QString& fragment : argumentFragments)
        out += data(openAiChunk(
            {{"tool_calls",
              json::array({json{{"index", 0}, {"function", {{"arguments", fragment.toStdString()}}}}})}}));
    return out + openAiEnd(finishReason, 30, completionTokens, reasoningTokens);
}

QByteArray openAiToolCallStream(const QString& id, const QString& name, const QStringList& argumentFragments,
                                const QString& leadingText) {
    QByteArray out = data(openAiChunk({{"role", "assistant"}, {"content", nullptr}}));
    if (!leadingText.isEmpty())
        out += data(openAiChunk({{"content", leadingText.toStdString()}}));
    out += data(openAiChunk(
        {{"tool_calls", json::array({json{{"index", 0},
                                          {"id", id.toStdString()},
                                          {"type", "function"},
                                          {"function", {{"name", name.toStdString()}, {"arguments", ""}}}}})}}));
    for (const QString& fragment : argumentFragments)
        out += data(openAiChunk(
            {{"tool_calls",
              json::array({json{{"index", 0}, {"function", {{"arguments", fragment.toStdString()}}}}})}}));
    return out + openAiEnd("tool_calls", 30, 12);
}

QByteArray openAiResponsesStream(const QStringList& pieces, int inputTokens, int outputTokens) {
    int sequence = 0;
    const auto event = [&sequence](json value) {
        value["sequence_number"] = sequence++;
        return sseEvent(QByteArray::fromStdString(value.dump()),
                        QByteArray::fromStdString(value.at("type").get<std::string>()));
    };
    const json response{{"id", "resp_mock"}, {"object", "response"}, {"model", "gpt-mock"}, {"status", "in_progress"},
                        {"output", json::array()}, {"usage", nullptr}};
    std::string text;
    for (const QString& piece : pieces)
        text += piece.toStdString();
    const json part{{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}};
    json message{{"type", "message"}, {"id", "msg_mock"}, {"status", "in_progress"}, {"role", "assistant"},
                 {"content", json::array()}};
    QByteArray out = event({{"type", "response.created"}, {"response", response}});
    out += event({{"type", "response.in_progress"}, {"response", response}});
    out += event({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", message}});
    out += event({{"type", "response.content_part.added"}, {"item_id", "msg_mock"}, {"output_index", 0},
                  {"content_index", 0}, {"part", part}});
    for (const QString& piece : pieces)
        out += event({{"type", "response.output_text.delta"}, {"item_id", "msg_mock"}, {"output_index", 0},
                      {"content_index", 0}, {"delta", piece.toStdString()}});
    json donePart = part;
    donePart["text"] = text;
    out += event({{"type", "response.output_text.done"}, {"item_id", "msg_mock"}, {"output_index", 0},
                  {"content_index", 0}, {"text", text}});
    out += event({{"type", "response.content_part.done"}, {"item_id", "msg_mock"}, {"output_index", 0},
                  {"content_index", 0}, {"part", donePart}});
    message["status"] = "completed";
    message["content"] = json::array({donePart});
    out += event({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", message}});
    json completed = response;
    completed["status"] = "completed";
    completed["output"] = json::array({message});
    completed["usage"] = json{{"input_tokens", inputTokens}, {"input_tokens_details", {{"cached_tokens", 0}}},
                              {"output_tokens", outputTokens}, {"output_tokens_details", {{"reasoning_tokens", 0}}},
                              {"total_tokens", inputTokens + outputTokens}};
    return out + event({{"type", "response.completed"}, {"response", completed}});
}

QByteArray anthropicTextStream(const QStringList& pieces, int inputTokens, int outputTokens) {
    return anthropicStart(inputTokens) + anthropic({{"type", "ping"}}) + anthropicTextBlock(0, pieces) +
           anthropicEnd("end_turn", outputTokens);
}

QByteArray anthropicToolUseStream(const QString& text, const QString& id, const QString& name,
                                  const QStringList& inputFragments, int inputTokens, int outputTokens) {
    QByteArray out = anthropicStart(inputTokens) + anthropicTextBlock(0, {text}) + anthropic({{"type", "ping"}});
    out += anthropic({{"type", "content_block_start"},
                      {"index", 1},
                      {"content_block",
                       {{"type", "tool_use"}, {"id", id.toStdString()}, {"name", name.toStdString()},
                        {"input", json::object()}}}});
    for (const QString& fragment : inputFragments)
        out += anthropic({{"type", "content_block_delta"},
                          {"index", 1},
                          {"delta", {{"type", "input_json_delta"}, {"partial_json", fragment.toStdString()}}}});
    out += anthropic({{"type", "content_block_stop"}, {"index", 1}});
    return out + anthropicEnd("tool_use", outputTokens);
}

QByteArray anthropicThinkingToolUseStream(const QStringList& thinkingPieces, const QString& redactedData,
                                          const QString& id, const QString& name, const QStringList& inputFragments,
                                          const char* stopReason, int outputTokens) {
    QByteArray out = anthropicStart(50);
    out += anthropic({{"type", "content_block_start"},
                      {"index", 0},
                      {"content_block", {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}}});
    for (const QString& piece : thinkingPieces)
        out += anthropic({{"type", "content_block_delta"},
                          {"index", 0},
                          {"delta", {{"type", "thinking_delta"}, {"thinking", piece.toStdString()}}}});
    out += anthropic({{"type", "content_block_delta"},
                      {"index", 0},
                      {"delta", {{"type", "signature_delta"},
                                 {"signature", anthropicSignature(thinkingPieces.join("").toStdString())}}}});
    out += anthropic({{"type", "content_block_stop"}, {"index", 0}});
    int index = 1;
    if (!redactedData.isEmpty()) {
        out += anthropic({{"type", "content_block_start"},
                          {"index", index},
                          {"content_block", {{"type", "redacted_thinking"}, {"data", redactedData.toStdString()}}}});
        out += anthropic({{"type", "content_block_stop"}, {"index", index}});
        ++index;
    }
    out += anthropic({{"type", "content_block_start"},
                      {"index", index},
                      {"content_block",
                       {{"type", "tool_use"}, {"id", id.toStdString()}, {"name", name.toStdString()},
                        {"input", json::object()}}}});
    for (const QString& fragment : inputFragments)
        out += anthropic({{"type", "content_block_delta"},
                          {"index", index},
                          {"delta", {{"type", "input_json_delta"}, {"partial_json", fragment.toStdString()}}}});
    out += anthropic({{"type", "content_block_stop"}, {"index", index}});
    return out + anthropicEnd(stopReason, outputTokens);
}

} // namespace warren::test
