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

class MockLlmServer : public QObject {
    Q_OBJECT
public:
    explicit MockLlmServer(QObject* parent = nullptr);
    ~MockLlmServer() override;
    bool listen(); // on 127.0.0.1, a free port
    quint16 port() const;
    QString baseUrl() const; // "http://127.0.0.1:PORT"

    void enqueue(MockResponse response);
    const std::vector<RecordedRequest>& requests() const { return m_requests; }
    int pendingResponses() const { return int(m_queue.size()); }

signals:
    void requestReceived();

private:
    void onNewConnection();
    void onReadyRead(QTcpSocket* socket);
    void respond(QTcpSocket* socket);
    void writeChunks(QTcpSocket* socket, MockResponse response, int next);

    QTcpServer m_server;
    std::deque<MockResponse> m_queue;
    std::vector<RecordedRequest> m_requests;
    QMap<QTcpSocket*, QByteArray> m_buffers;
};

// Real streams, as the services send them. Each returns SSE text; splitChunks cuts it into raw chunks
// at arbitrary byte positions (inside lines too), as a network may deliver it.
QByteArray openAiTextStream(const QStringList& pieces, int promptTokens = 11, int completionTokens = 7);
// One tool call whose arguments JSON arrives in the given fragments, then finish_reason "tool_calls".
QByteArray openAiToolCallStream(const QString& id, const QString& name, const QStringList& argumentFragments,
                                const QString& leadingText = {});
QByteArray anthropicTextStream(const QStringList& pieces, int inputTokens = 25, int outputTokens = 9);
// A text block, a ping, then a tool_use block whose input arrives in the given partial_json fragments.
QByteArray anthropicToolUseStream(const QString& text, const QString& id, const QString& name,
                                  const QStringList& inputFragments, int inputTokens = 40, int outputTokens = 21);
// One SSE event ("event: NAME\n" when name is set, then "data: DATA\n\n").
QByteArray sseEvent(const QByteArray& data, const QByteArray& name = {});
QList<QByteArray> splitChunks(const QByteArray& stream, int chunkSize);
// The stream split one chunk per SSE event.
QList<QByteArray> splitEvents(const QByteArray& stream);

} // namespace warren::test
