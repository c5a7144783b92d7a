#pragma once
// A model server on 127.0.0.1 for the provider tests, speaking real HTTP/1.1 and the real OpenAI and
// Anthropic stream formats. It records every request and answers each from a queue of scripted
// responses: a plain status with headers and body, or a server-sent-event stream written as chunks with
// a pause between them (so fragments reach the client in separate reads), optionally cut off mid-stream.

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <nlohmann/json.hpp>

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

class QTcpSocket;

namespace warren::test {

struct MockResponse {
    int status = 200;
    QByteArray reason = "OK";
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;          // a plain response: sent whole with Content-Length
    QList<QByteArray> chunks; // a stream: each written as one HTTP chunk (Transfer-Encoding: chunked)
    bool streamed = false;
    bool dropMidStream = false; // close the connection after the chunks, without the final empty chunk
    int chunkIntervalMs = 2;
    // The stream stops before this chunk (0: before the first) until release(); -1: it never stops. The
    // server emits held() when it stops, so a test can check what reached the client meanwhile.
    int holdBeforeChunk = -1;

    static MockResponse json(int status, const QByteArray& reason, const QByteArray& body,
                             QList<QPair<QByteArray, QByteArray>> headers = {});
    static MockResponse sse(QList<QByteArray> chunks);
};

struct RecordedRequest {
    QByteArray method;
    QByteArray path;
    QMap<QByteArray, QByteArray> headers; // names in lower case
    QByteArray body;
    nlohmann::json json() const; // the body parsed, or a discarded value when it is not JSON
};

// Which real API's refusals the server plays (behaveLike). A request that API would refuse is answered
// with its own 400 and takes no scripted response from the queue.
enum class RealApi {
    None,
    // OpenAI's chat completions: a reasoning model (o1, o3, o4-*, gpt-5*, not gpt-5-chat) refuses
    // max_tokens and a temperature other than 1; a model that does not reason refuses reasoning_effort.
    OpenAi,
    // Anthropic's Messages: with thinking enabled, budget_tokens must be >= 1024 and below max_tokens, and
    // the assistant message whose tool_use the last tool results answer must start with its thinking
    // block, unchanged (its signature is anthropicSignature of its text); max_tokens above the output
    // ceiling (setOutputCeiling) is refused in Anthropic's words.
    Anthropic,
};

class MockLlmServer : public QObject {
    Q_OBJECT
public:
    explicit MockLlmServer(QObject* parent = nullptr);
    ~MockLlmServer() override;
    bool listen(); // on 127.0.0.1, a free port
    quint16 port() const;
    QString baseUrl() const; // "http://127.0.0.1:PORT"

    void enqueue(MockResponse response);
    void behaveLike(RealApi api) { m_api = api; }
    void setOutputCeiling(int tokens) { m_outputCeiling = tokens; } // 0: none
    int refusals() const { return m_refusals; }                     // requests answered with a 400 by the rules
    const std::vector<RecordedRequest>& requests() const { return m_requests; }
    int pendingResponses() const { return int(m_queue.size()); }
    void release(); // a held stream goes on (holdBeforeChunk)
    bool holding() const { return bool(m_held); }

signals:
    void requestReceived();
    void held();

private:
    void onNewConnection();
    void onReadyRead(QTcpSocket* socket);
    void respond(QTcpSocket* socket);
    void writeChunks(QTcpSocket* socket, MockResponse response, int next);
    std::optional<MockResponse> refusal(const RecordedRequest& request) const;

    QTcpServer m_server;
    std::deque<MockResponse> m_queue;
    std::vector<RecordedRequest> m_requests;
    QMap<QTcpSocket*, QByteArray> m_buffers;
    std::function<void()> m_held; // the held stream's next step
    RealApi m_api = RealApi::None;
    int m_outputCeiling = 0;
    int m_refusals = 0;
};

// OpenAI's answer to max_tokens for a reasoning model, byte for byte.
QByteArray openAiMaxTokensRefusal();

// Real streams, as the services send them. Each returns SSE text; splitChunks cuts it into raw chunks
// at arbitrary byte positions (inside lines too), as a network may deliver it.
QByteArray openAiTextStream(const QStringList& pieces, int promptTokens = 11, int completionTokens = 7);
// One tool call whose arguments JSON arrives in the given fragments, then finish_reason "tool_calls".
QByteArray openAiToolCallStream(const QString& id, const QString& name, const QStringList& argumentFragments,
                                const QString& leadingText = {});
// One tool call as openAiToolCallStream, ending with finishReason; usage reports reasoningTokens in
// completion_tokens_details. With "length" and fragments that stop mid-JSON it is a call cut by the limit.
QByteArray openAiToolCallStreamEnding(const QString& id, const QString& name, const QStringList& argumentFragments,
                                      const char* finishReason, int completionTokens, int reasoningTokens);
// OpenAI's Responses API (what Codex speaks): response.created, one message item (output_item.added,
// content_part.added, the text as output_text.delta events, their .done events), then response.completed
// with the usage, each "event: NAME" as the service sends them.
QByteArray openAiResponsesStream(const QStringList& pieces, int inputTokens = 13, int outputTokens = 5);
QByteArray anthropicTextStream(const QStringList& pieces, int inputTokens = 25, int outputTokens = 9);
// A text block, a ping, then a tool_use block whose input arrives in the given partial_json fragments.
QByteArray anthropicToolUseStream(const QString& text, const QString& id, const QString& name,
                                  const QStringList& inputFragments, int inputTokens = 40, int outputTokens = 21);
// Extended thinking then a tool call: a thinking block (thinkingPieces as thinking_delta, then its
// signature as signature_delta), a redacted_thinking block when redactedData is set, a tool_use block;
// stopReason "tool_use", or "max_tokens" with input fragments that stop mid-JSON for a cut call.
QByteArray anthropicThinkingToolUseStream(const QStringList& thinkingPieces, const QString& redactedData,
                                          const QString& id, const QString& name, const QStringList& inputFragments,
                                          const char* stopReason = "tool_use", int outputTokens = 300);
// The signature the mock gives a thinking block's text, and checks when it comes back.
std::string anthropicSignature(const std::string& thinking);
// One SSE event ("event: NAME\n" when name is set, then "data: DATA\n\n").
QByteArray sseEvent(const QByteArray& data, const QByteArray& name = {});
QList<QByteArray> splitChunks(const QByteArray& stream, int chunkSize);
// The stream split one chunk per SSE event.
QList<QByteArray> splitEvents(const QByteArray& stream);

} // namespace warren::test
