// ModelProxy over real sockets: a client on its Unix socket as a CLI's bytes arrive there through the agent's
// forwarder, MockLlmServer on this machine's loopback as the provider, real task tokens. What a CLI may do
// reaches the provider with the real key and the body unchanged, and the answer streams back as it comes;
// everything else is refused in the API's own error shape and reaches nothing; the real key never comes back.

#include "agent_core/net/EgressForwarder.h"
#include "app/modelproxy/ModelProxy.h"
#include "app/proxy/TaskToken.h"
#include "tests/support/MockLlmServer.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>
#include <arpa/inet.h>
#include <memory>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>

using namespace warren;
using namespace warren::control;
using warren::test::MockLlmServer;
using warren::test::MockResponse;
using nlohmann::json;

Q_DECLARE_METATYPE(warren::control::ModelCall)

namespace {

const std::string kRealKey = "sk-real-KEY-0123456789abcdef";

struct Answer {
    int status = 0;
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body;                      // de-chunked
    QByteArray raw;
    bool complete = false; // chunked: the last chunk came
    json error() const { return json::parse(body.toStdString(), nullptr, false); }
};

Answer parseAnswer(const QByteArray& raw) {
    Answer answer;
    answer.raw = raw;
    QByteArray rest = raw;
    while (rest.startsWith("HTTP/1.1 100 ")) // an interim answer
        rest = rest.mid(rest.indexOf("\r\n\r\n") + 4);
    const qsizetype end = rest.indexOf("\r\n\r\n");
    if (end < 0)
        return answer;
    const QList<QByteArray> lines = rest.left(end).split('\n');
    answer.status = lines.value(0).split(' ').value(1).toInt();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        answer.headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
    }
    QByteArray body = rest.mid(end + 4);
    if (answer.headers.value("transfer-encoding") != "chunked") {
        answer.body = body;
        answer.complete = true;
        return answer;
    }
    for (;;) {
        const qsizetype lineEnd = body.indexOf("\r\n");
        if (lineEnd < 0)
            break;
        bool ok = false;
        const qsizetype size = body.left(lineEnd).toLongLong(&ok, 16);
        if (!ok || body.size() < lineEnd + 2 + size + 2)
            break;
        if (size == 0) {
            answer.complete = true;
            break;
        }
        answer.body += body.mid(lineEnd + 2, size);
        body = body.mid(lineEnd + 2 + size + 2);
    }
    return answer;
}

// Everything the socket receives until the proxy closes it; the proxy runs on this thread.
QByteArray readToEnd(QLocalSocket& socket) {
    QByteArray all;
    (void)QTest::qWaitFor(
        [&] {
            all += socket.readAll();
            return socket.state() == QLocalSocket::UnconnectedState;
        },
        15000);
    return all + socket.readAll();
}

QByteArray request(const QByteArray& method, const QByteArray& target, const QList<QByteArray>& headers,
                   const QByteArray& body) {
    QByteArray out = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:4000\r\n";
    for (const QByteArray& header : headers)
        out += header + "\r\n";
    if (method == "POST")
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    return out + "\r\n" + body;
}

struct Fixture {
    QTemporaryDir dir;
    MockLlmServer server;
    TaskTokens tokens{"test-secret"};
    std::string token;
    std::unique_ptr<ModelProxy> proxy;
    std::unique_ptr<QSignalSpy> calls;

    bool start(ProviderConfig::Kind kind, std::optional<InsideAccess> access = {}, ModelProxyLimits limits = {},
               std::string baseUrl = {}) {
        if (server.port() == 0 && !server.listen())
            return false;
        token = tokens.issue("task-1", {scope::kLlm}, std::chrono::minutes(5));
        if (baseUrl.empty())
            baseUrl = server.baseUrl().toStdString() + (kind == ProviderConfig::Kind::OpenAi ? "/v1" : "");
        ModelUpstream upstream{kind, baseUrl, kRealKey, std::move(access)};
        auto listening = ModelProxy::listen(
            dir.filePath("model.sock").toStdString(), std::move(upstream),
            [this](const std::string& presented) -> Status {
                auto claims = tokens.verify(presented, scope::kLlm, QDateTime::currentMSecsSinceEpoch());
                if (!claims)
                    return claims.error();
                return Ok{};
            },
            limits);
        if (!listening)
            return false;
        proxy = std::move(*listening);
        calls = std::make_unique<QSignalSpy>(proxy.get(), &ModelProxy::called);
        return true;
    }
    std::unique_ptr<QLocalSocket> client() {
        auto socket = std::make_unique<QLocalSocket>();
        socket->connectToServer(QString::fromStdString(proxy->socketPath()));
        (void)QTest::qWaitFor([&] { return socket->state() != QLocalSocket::ConnectingState; }, 5000);
        return socket->state() == QLocalSocket::ConnectedState ? std::move(socket) : nullptr;
    }
    Answer exchange(const QByteArray& bytes) {
        auto socket = client();
        if (!socket)
            return {};
        socket->write(bytes);
        return parseAnswer(readToEnd(*socket));
    }
    ModelCall call(int index) const { return calls->at(index).at(0).value<ModelCall>(); }
    // Every byte the provider received, to look for what must not be there.
    QByteArray upstreamBytes() const {
        QByteArray all;
        for (const auto& recorded : server.requests()) {
            all += recorded.method + " " + recorded.path + "\n";
            for (auto it = recorded.headers.begin(); it != recorded.headers.end(); ++it)
                all += it.key() + ": " + it.value() + "\n";
            all += recorded.body;
        }
        return all;
    }
};

// A body as a CLI writes it, with what a rewriting proxy would change: key order, spacing, escapes,
// non-ASCII text, a trailing newline.
const QByteArray kBody = "{\"model\": \"the-model\",  \"stream\":true, \"max_tokens\":1024,\n"
                         " \"messages\":[{\"role\":\"user\",\"content\":\"caf\xc3\xa9 \\u00e9 \\\"q\\\" \\/\"}]}\n";

} // namespace

class TestModelProxy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<ModelCall>(); }
    void eachWireFormatIsForwardedWithTheRealKey_data();
    void eachWireFormatIsForwardedWithTheRealKey();
    void aJsonAnswerIsPassedAndCounted();
    void theRealKeyNeverComesBack();
    void aBadTokenReachesNothing_data();
    void aBadTokenReachesNothing();
    void otherRoutesAreRefusedAndNotForwarded_data();
    void otherRoutesAreRefusedAndNotForwarded();
    void theProbeIsAnsweredHere();
    void theStreamPassesBeforeItEnds();
    void admissionDecidesEachModelCall();
    void aSlowClientStallsNoOther();
    void anOversizedBodyIsRefused();
    void aChunkedBodyIsForwardedWhole();
    void expectContinueIsAnswered();
    void anUnreachableProviderIsABadGateway();
    void aSilentProviderIsAGatewayTimeout();
    void onAServerAnEndpointInsideIsRefused_data();
    void onAServerAnEndpointInsideIsRefused();
    void aClosedClientEndsTheCall();
    void anAdoptedConnectionIsServedFromWhatWasAlreadyRead();
    void claudeCodeTalksThroughTheProxy();
    void codexTalksThroughTheProxy();
};

void TestModelProxy::eachWireFormatIsForwardedWithTheRealKey_data() {
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<QByteArray>("target");
    QTest::addColumn<QByteArray>("auth"); // the header carrying the token, "%1" for it
    QTest::addColumn<QByteArray>("stream");
    QTest::addColumn<QByteArray>("upstreamPath");
    QTest::addColumn<int>("input");
    QTest::addColumn<int>("output");
    using namespace warren::test;
    QTest::newRow("anthropic messages") << true << QByteArray("/v1/messages?beta=true") << QByteArray("x-api-key: %1")
                                        << anthropicTextStream({"Hel", "lo"}, 25, 9)
                                        << QByteArray("/v1/messages?beta=true") << 25 << 9;
    QTest::newRow("anthropic with a bearer token") << true << QByteArray("/v1/messages") << QByteArray("Authorization: Bearer %1")
                                                   << anthropicTextStream({"x"}, 3, 2) << QByteArray("/v1/messages") << 3 << 2;
    QTest::newRow("openai responses") << false << QByteArray("/v1/responses") << QByteArray("Authorization: Bearer %1")
                                      << openAiResponsesStream({"a", "b"}, 13, 5) << QByteArray("/v1/responses") << 13 << 5;
    QTest::newRow("openai chat completions") << false << QByteArray("/v1/chat/completions")
                                             << QByteArray("authorization: bearer %1") << openAiTextStream({"a"}, 11, 7)
                                             << QByteArray("/v1/chat/completions") << 11 << 7;
}

// The provider gets the body byte for byte, the headers that matter, and the real key in the API's own
// header, never the token; the CLI gets the provider's stream unchanged; the call is reported with its usage.
void TestModelProxy::eachWireFormatIsForwardedWithTheRealKey() {
    QFETCH(bool, anthropic);
    QFETCH(QByteArray, target);
    QFETCH(QByteArray, auth);
    QFETCH(QByteArray, stream);
    QFETCH(QByteArray, upstreamPath);
    QFETCH(int, input);
    QFETCH(int, output);
    Fixture f;
    QVERIFY(f.start(anthropic ? ProviderConfig::Kind::Anthropic : ProviderConfig::Kind::OpenAi));
    f.server.enqueue(MockResponse::sse(warren::test::splitChunks(stream, 37)));
    const QByteArray token = QByteArray::fromStdString(f.token);
    const Answer answer = f.exchange(request(
        "POST", target,
        {QByteArray(auth).replace("%1", token), "anthropic-version: 2023-06-01", "anthropic-beta: a-2025,b-2025",
         "openai-beta: responses=experimental", "Content-Type: application/json", "Accept: text/event-stream",
         "Accept-Encoding: br", "Connection: keep-alive", "Proxy-Authorization: Basic " + token.toBase64(),
         "x-stainless-lang: js", "Cookie: t=" + token},
        kBody));

    QCOMPARE(answer.status, 200);
    QCOMPARE(answer.headers.value("content-type"), QByteArray("text/event-stream"));
    QVERIFY(answer.complete);
    QCOMPARE(answer.body, stream);

    QCOMPARE(f.server.requests().size(), 1u);
    const auto& received = f.server.requests().front();
    QCOMPARE(received.path, upstreamPath);
    QCOMPARE(received.body, kBody);
    if (anthropic) {
        QCOMPARE(received.headers.value("x-api-key"), QByteArray::fromStdString(kRealKey));
        QVERIFY(!received.headers.contains("authorization"));
    } else {
        QCOMPARE(received.headers.value("authorization"), "Bearer " + QByteArray::fromStdString(kRealKey));
        QVERIFY(!received.headers.contains("x-api-key"));
    }
    QCOMPARE(received.headers.value("anthropic-version"), QByteArray("2023-06-01"));
    QCOMPARE(received.headers.value("anthropic-beta"), QByteArray("a-2025,b-2025"));
    QCOMPARE(received.headers.value("openai-beta"), QByteArray("responses=experimental"));
    QCOMPARE(received.headers.value("x-stainless-lang"), QByteArray("js"));
    QVERIFY(!received.headers.contains("proxy-authorization"));
    QVERIFY2(!f.upstreamBytes().contains(token), "the task token reached the provider");
    QVERIFY(!answer.raw.contains(QByteArray::fromStdString(kRealKey)));

    QCOMPARE(f.calls->size(), 1);
    const ModelCall call = f.call(0);
    QCOMPARE(call.status, 200);
    QCOMPARE(call.method, std::string("POST"));
    QCOMPARE(QByteArray::fromStdString(call.path), target.left(target.indexOf('?') < 0 ? target.size() : target.indexOf('?')));
    QCOMPARE(call.model, std::string("the-model"));
    QCOMPARE(call.inputTokens, std::uint64_t(input));
    QCOMPARE(call.outputTokens, std::uint64_t(output));
    QVERIFY(call.firstByteMs >= 0 && call.firstByteMs <= call.durationMs);
    QVERIFY2(call.error.empty(), call.error.c_str());
    // As the task records it: a model_call event that reads back the same.
    const protocol::ModelCallData event = modelCallEvent(call);
    QCOMPARE(event.inputTokens, std::uint64_t(input));
    QVERIFY(event.firstByteMs && !event.error);
    const auto read = protocol::ModelCallData::fromJson(event.toJson());
    QVERIFY(read.ok());
    QVERIFY(*read == event);
}

void TestModelProxy::aJsonAnswerIsPassedAndCounted() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    const QByteArray body = R"({"type":"message","model":"claude-x","usage":{"input_tokens":7,"output_tokens":3}})";
    f.server.enqueue(MockResponse::json(200, "OK", body));
    const Answer answer = f.exchange(request("POST", "/v1/messages", {"x-api-key: " + QByteArray::fromStdString(f.token)},
                                             R"({"model":"claude-x","messages":[]})"));
    QCOMPARE(answer.status, 200);
    QCOMPARE(answer.body, body);
    QCOMPARE(f.calls->size(), 1);
    QCOMPARE(f.call(0).inputTokens, 7u);
    QCOMPARE(f.call(0).outputTokens, 3u);
}

// A provider that echoes the key (in a header, in an error body, split across stream chunks): the CLI sees
// the mask, and so does the call's record.
// A cluster's pod's model call, handed over by warrend's agents' listener (a TCP connection, the start of its
// request already read past the hello): served as a socket's, its token checked; a bad one reaches nothing.
void TestModelProxy::anAdoptedConnectionIsServedFromWhatWasAlreadyRead() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    const QByteArray body =
        R"({"type":"message","model":"claude-x","usage":{"input_tokens":5,"output_tokens":2}})";
    f.server.enqueue(MockResponse::json(200, "OK", body));
    const auto exchangeAdopted = [&](const QByteArray& key) {
        UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        ::bind(listener.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
        ::listen(listener.get(), 1);
        ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length);
        UniqueFd client(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (::connect(client.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
            return Answer{};
        UniqueFd served(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        const QByteArray whole =
            request("POST", "/v1/messages", {"x-api-key: " + key}, R"({"model":"claude-x","messages":[]})");
        const qsizetype split = whole.size() / 2; // the listener read this much past the hello
        f.proxy->adopt(std::move(served), whole.left(split).toStdString());
        const QByteArray rest = whole.mid(split);
        if (::send(client.get(), rest.constData(), std::size_t(rest.size()), MSG_NOSIGNAL) != rest.size())
            return Answer{};
        QByteArray raw;
        bool ended = false;
        (void)QTest::qWaitFor(
            [&] {
                char buffer[4096];
                const ssize_t n = ::recv(client.get(), buffer, sizeof buffer, MSG_DONTWAIT);
                if (n > 0)
                    raw.append(buffer, n);
                ended = n == 0;
                return ended;
            },
            15000);
        return ended ? parseAnswer(raw) : Answer{};
    };
    const Answer answer = exchangeAdopted(QByteArray::fromStdString(f.token));
    QCOMPARE(answer.status, 200);
    QCOMPARE(answer.body, body);
    QCOMPARE(f.calls->size(), 1);
    QCOMPARE(f.call(0).inputTokens, 5u);
    QCOMPARE(f.server.requests().size(), 1);
    QCOMPARE(f.server.requests().front().headers.value("x-api-key"), QByteArray::fromStdString(kRealKey));

    const Answer refused = exchangeAdopted("not-a-token");
    QCOMPARE(refused.status, 401);
    QCOMPARE(f.server.requests().size(), 1); // nothing forwarded
}

void TestModelProxy::theRealKeyNeverComesBack() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::OpenAi));
    const QByteArray key = QByteArray::fromStdString(kRealKey);
    f.server.enqueue(MockResponse::json(401, "Unauthorized " + key,
                                        R"({"error":{"message":"Incorrect API key provided: )" + key + R"("}})",
                                        {{"X-Echo", key}, {"Set-Cookie", "k=" + key}}));
    MockResponse streamed = MockResponse::sse(warren::test::splitChunks("data: {\"echo\":\"" + key + "\"}\n\n", 5));
    streamed.headers.append({"X-Echo", "key=" + key});
    f.server.enqueue(streamed);
    const QByteArray token = "Authorization: Bearer " + QByteArray::fromStdString(f.token);
    const Answer refused = f.exchange(request("POST", "/v1/responses", {token}, "{}"));
    QCOMPARE(refused.status, 401);
    QVERIFY2(!refused.raw.contains(key), refused.raw.constData());
    QVERIFY(refused.body.contains("Incorrect API key provided: [the API key]"));
    QVERIFY(refused.headers.value("x-echo").contains("[the API key]"));
    const Answer echoed = f.exchange(request("POST", "/v1/responses", {token}, "{}"));
    QCOMPARE(echoed.status, 200);
    QVERIFY2(!echoed.raw.contains(key), echoed.raw.constData());
    QCOMPARE(echoed.body, QByteArray("data: {\"echo\":\"[the API key]\"}\n\n"));
    QCOMPARE(f.calls->size(), 2);
    QVERIFY(f.call(0).error.find("[the API key]") != std::string::npos);
    for (int i = 0; i < 2; ++i)
        QVERIFY(f.call(i).error.find(kRealKey) == std::string::npos);
}

void TestModelProxy::aBadTokenReachesNothing_data() {
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<QByteArray>("auth"); // "" for none
    QTest::newRow("none, anthropic") << true << QByteArray();
    QTest::newRow("none, openai") << false << QByteArray();
    QTest::newRow("the real key itself") << true << QByteArray("x-api-key: ") + QByteArray::fromStdString(kRealKey);
    QTest::newRow("forged") << false << QByteArray("Authorization: Bearer eyJ0YXNrIjoieCJ9.AAAA");
    QTest::newRow("expired") << true << QByteArray("x-api-key: EXPIRED");
    QTest::newRow("another scope") << false << QByteArray("Authorization: Bearer MEMORY");
    QTest::newRow("revoked") << true << QByteArray("x-api-key: REVOKED");
    QTest::newRow("basic auth") << false << QByteArray("Authorization: Basic TOKEN64");
}

void TestModelProxy::aBadTokenReachesNothing() {
    QFETCH(bool, anthropic);
    QFETCH(QByteArray, auth);
    Fixture f;
    QVERIFY(f.start(anthropic ? ProviderConfig::Kind::Anthropic : ProviderConfig::Kind::OpenAi));
    f.server.enqueue(MockResponse::sse({"data: {}\n\n"}));
    const std::string revoked = f.tokens.issue("task-1", {scope::kLlm}, std::chrono::minutes(5));
    f.tokens.revoke(revoked);
    auth.replace("EXPIRED", QByteArray::fromStdString(f.tokens.issue("task-1", {scope::kLlm}, std::chrono::milliseconds(-1000))))
        .replace("MEMORY", QByteArray::fromStdString(f.tokens.issue("task-1", {scope::kMemory}, std::chrono::minutes(5))))
        .replace("REVOKED", QByteArray::fromStdString(revoked))
        .replace("TOKEN64", QByteArray::fromStdString(f.token).toBase64());
    QList<QByteArray> headers;
    if (!auth.isEmpty())
        headers.append(auth);
    const Answer answer = f.exchange(request("POST", anthropic ? "/v1/messages" : "/v1/responses", headers, kBody));
    QCOMPARE(answer.status, 401);
    const json error = answer.error();
    if (anthropic) {
        QCOMPARE(error.value("type", ""), std::string("error"));
        QCOMPARE(error["error"].value("type", ""), std::string("authentication_error"));
    } else {
        QCOMPARE(error["error"].value("code", ""), std::string("invalid_api_key"));
    }
    QVERIFY(!error["error"].value("message", "").empty());
    QCOMPARE(f.server.requests().size(), 0u);
    QCOMPARE(f.calls->size(), 0);
}

void TestModelProxy::otherRoutesAreRefusedAndNotForwarded_data() {
    QTest::addColumn<bool>("anthropic");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("target");
    QTest::newRow("models list") << true << QByteArray("GET") << QByteArray("/v1/models");
    QTest::newRow("batches") << true << QByteArray("POST") << QByteArray("/v1/messages/batches");
    QTest::newRow("the other api") << true << QByteArray("POST") << QByteArray("/v1/responses");
    QTest::newRow("files") << false << QByteArray("POST") << QByteArray("/v1/files");
    QTest::newRow("messages on openai") << false << QByteArray("POST") << QByteArray("/v1/messages");
    QTest::newRow("delete") << false << QByteArray("DELETE") << QByteArray("/v1/responses");
    QTest::newRow("dot segments") << false << QByteArray("POST") << QByteArray("/v1/files/../responses");
    QTest::newRow("post to the root") << true << QByteArray("POST") << QByteArray("/");
}

void TestModelProxy::otherRoutesAreRefusedAndNotForwarded() {
    QFETCH(bool, anthropic);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, target);
    Fixture f;
    QVERIFY(f.start(anthropic ? ProviderConfig::Kind::Anthropic : ProviderConfig::Kind::OpenAi));
    const QByteArray token = QByteArray::fromStdString(f.token);
    const Answer answer = f.exchange(request(method, target, {"x-api-key: " + token, "Authorization: Bearer " + token}, "{}"));
    QCOMPARE(answer.status, 404);
    const json error = answer.error();
    if (anthropic)
        QCOMPARE(error["error"].value("type", ""), std::string("not_found_error"));
    else
        QCOMPARE(error["error"].value("code", ""), std::string("unknown_url"));
    QCOMPARE(f.server.requests().size(), 0u);
}

void TestModelProxy::theProbeIsAnsweredHere() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    QCOMPARE(f.exchange(request("HEAD", "/", {}, {})).status, 200);
    QCOMPARE(f.exchange(request("GET", "/", {"x-api-key: whatever"}, {})).status, 200);
    QCOMPARE(f.server.requests().size(), 0u);
    QCOMPARE(f.calls->size(), 0);
}

// The first event reaches the CLI while the provider still holds back the rest of its answer.
void TestModelProxy::theStreamPassesBeforeItEnds() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    const QList<QByteArray> events = warren::test::splitEvents(warren::test::anthropicTextStream({"a", "b", "c"}));
    MockResponse response = MockResponse::sse(events);
    response.holdBeforeChunk = 1;
    f.server.enqueue(response);
    auto socket = f.client();
    QVERIFY(socket);
    socket->write(request("POST", "/v1/messages", {"x-api-key: " + QByteArray::fromStdString(f.token)}, kBody));
    QByteArray received;
    QVERIFY(QTest::qWaitFor(
        [&] {
            received += socket->readAll();
            return f.server.holding() && received.contains("message_start");
        },
        10000));
    QVERIFY(!received.contains("message_stop"));
    QCOMPARE(f.calls->size(), 0); // the call is still going
    f.server.release();
    const Answer answer = parseAnswer(received + readToEnd(*socket));
    QVERIFY(answer.complete);
    QCOMPARE(answer.body, events.join());
    QCOMPARE(f.calls->size(), 1);
}

// The admission is asked before a model call goes, and the call waits for its answer; count_tokens does not
// ask; a refusal is answered in the API's shape and forwards nothing.
void TestModelProxy::admissionDecidesEachModelCall() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    std::vector<ModelCallInfo> asked;
    ModelProxy::Done pending;
    f.proxy->setAdmission([&](const ModelCallInfo& call, ModelProxy::Done done) {
        asked.push_back(call);
        pending = std::move(done);
    });
    const QByteArray key = "x-api-key: " + QByteArray::fromStdString(f.token);

    f.server.enqueue(MockResponse::json(200, "OK", R"({"input_tokens":12})"));
    QCOMPARE(f.exchange(request("POST", "/v1/messages/count_tokens", {key}, kBody)).status, 200);
    QVERIFY(asked.empty());

    f.server.enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::anthropicTextStream({"x"}))));
    auto socket = f.client();
    QVERIFY(socket);
    socket->write(request("POST", "/v1/messages?beta=true", {key}, kBody));
    QVERIFY(QTest::qWaitFor([&] { return bool(pending); }, 10000));
    QCOMPARE(asked.size(), 1u);
    QCOMPARE(asked[0].path, std::string("/v1/messages"));
    QCOMPARE(asked[0].model, std::string("the-model"));
    QCOMPARE(f.server.requests().size(), 1u); // only count_tokens so far: the call waits
    std::exchange(pending, {})(Ok{});
    QCOMPARE(parseAnswer(readToEnd(*socket)).status, 200);
    QCOMPARE(f.server.requests().size(), 2u);

    f.proxy->setAdmission([](const ModelCallInfo&, ModelProxy::Done done) {
        done(makeError(ErrorCode::InvalidArgument, "the task's token budget of 1000 is spent"));
    });
    const Answer refused = f.exchange(request("POST", "/v1/messages", {key}, kBody));
    QCOMPARE(refused.status, 403);
    QCOMPARE(refused.error()["error"].value("type", ""), std::string("permission_error"));
    QVERIFY(refused.error()["error"].value("message", "").find("token budget of 1000 is spent") != std::string::npos);
    f.proxy->setAdmission([](const ModelCallInfo&, ModelProxy::Done done) {
        done(makeError(ErrorCode::Unavailable, "the workspace snapshot is still being taken"));
    });
    QCOMPARE(f.exchange(request("POST", "/v1/messages", {key}, kBody)).status, 503);
    QCOMPARE(f.server.requests().size(), 2u);
    QCOMPARE(f.calls->size(), 4);
    QCOMPARE(f.call(2).status, 403);
    QVERIFY(!f.call(2).error.empty());
}

// A client that sends part of its head and stops holds nothing up; it is cut off at the request timeout.
void TestModelProxy::aSlowClientStallsNoOther() {
    Fixture f;
    ModelProxyLimits limits;
    limits.requestTimeout = std::chrono::milliseconds(500);
    QVERIFY(f.start(ProviderConfig::Kind::OpenAi, {}, limits));
    auto slow = f.client();
    QVERIFY(slow);
    slow->write("POST /v1/responses HTTP/1.1\r\nAuthorization: Bearer ");
    QVERIFY(slow->waitForBytesWritten(5000));
    f.server.enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::openAiResponsesStream({"x"}))));
    const Answer answer =
        f.exchange(request("POST", "/v1/responses", {"Authorization: Bearer " + QByteArray::fromStdString(f.token)}, kBody));
    QCOMPARE(answer.status, 200);
    QVERIFY(slow->state() == QLocalSocket::ConnectedState);
    const Answer cut = parseAnswer(readToEnd(*slow));
    QCOMPARE(cut.status, 408);
    QCOMPARE(f.server.requests().size(), 1u);
}

void TestModelProxy::anOversizedBodyIsRefused() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    const QByteArray head = "POST /v1/messages HTTP/1.1\r\nx-api-key: " + QByteArray::fromStdString(f.token) +
                            "\r\nContent-Length: " + QByteArray::number(32 * 1024 * 1024 + 1) + "\r\n\r\n";
    const Answer answer = f.exchange(head + "{\"model\":");
    QCOMPARE(answer.status, 413);
    QCOMPARE(answer.error()["error"].value("type", ""), std::string("request_too_large"));
    QCOMPARE(f.server.requests().size(), 0u);
    // A chunked body over the cap is refused as it arrives, before its end.
    const QByteArray chunkedHead = "POST /v1/messages HTTP/1.1\r\nx-api-key: " + QByteArray::fromStdString(f.token) +
                                   "\r\nTransfer-Encoding: chunked\r\n\r\n";
    const Answer chunked = f.exchange(chunkedHead + QByteArray::number(32 * 1024 * 1024 + 1, 16) + "\r\n{");
    QCOMPARE(chunked.status, 413);
    QCOMPARE(f.server.requests().size(), 0u);
}

// A chunked body (Node's fetch sends one for a stream) is read whole and forwarded with its length.
void TestModelProxy::aChunkedBodyIsForwardedWhole() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    f.server.enqueue(MockResponse::json(200, "OK", R"({"type":"message","content":[]})"));
    const Answer answer = f.exchange("POST /v1/messages HTTP/1.1\r\nx-api-key: " + QByteArray::fromStdString(f.token) +
                                     "\r\nTransfer-Encoding: chunked\r\n\r\n6;x=1\r\n{\"mode\r\n7\r\nl\":\"m\"}\r\n"
                                     "0\r\nX-Trailer: dropped\r\n\r\n");
    QCOMPARE(answer.status, 200);
    QCOMPARE(f.server.requests().size(), 1u);
    const auto& received = f.server.requests().front();
    QCOMPARE(received.body, QByteArray("{\"model\":\"m\"}"));
    QCOMPARE(received.headers.value("content-length"), QByteArray("13"));
    QVERIFY(!received.headers.contains("transfer-encoding") && !received.headers.contains("x-trailer"));
    // Framing that lies is refused, nothing forwarded.
    const Answer lying = f.exchange("POST /v1/messages HTTP/1.1\r\nx-api-key: " + QByteArray::fromStdString(f.token) +
                                    "\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{\"model\"}\r\n0\r\n\r\n");
    QCOMPARE(lying.status, 400);
    QCOMPARE(f.server.requests().size(), 1u);
}

void TestModelProxy::expectContinueIsAnswered() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::OpenAi));
    f.server.enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::openAiResponsesStream({"x"}))));
    auto socket = f.client();
    QVERIFY(socket);
    socket->write("POST /v1/responses HTTP/1.1\r\nAuthorization: Bearer " + QByteArray::fromStdString(f.token) +
                  "\r\nExpect: 100-continue\r\nContent-Length: " + QByteArray::number(kBody.size()) + "\r\n\r\n");
    QByteArray received;
    QVERIFY(QTest::qWaitFor([&] { return (received += socket->readAll()).contains("\r\n\r\n"); }, 10000));
    QVERIFY(received.startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
    socket->write(kBody);
    QCOMPARE(parseAnswer(received + readToEnd(*socket)).status, 200);
    QCOMPARE(f.server.requests().front().body, kBody);
}

void TestModelProxy::anUnreachableProviderIsABadGateway() {
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic, {}, {}, "http://127.0.0.1:" + std::to_string(port)));
    const Answer answer = f.exchange(request("POST", "/v1/messages", {"x-api-key: " + QByteArray::fromStdString(f.token)}, kBody));
    QCOMPARE(answer.status, 502);
    QCOMPARE(answer.error()["error"].value("type", ""), std::string("api_error"));
    QVERIFY(answer.error()["error"].value("message", "").find("could not reach the model server") != std::string::npos);
    QCOMPARE(f.calls->size(), 1);
    QCOMPARE(f.call(0).status, 502);
    QVERIFY(!f.call(0).error.empty());
}

void TestModelProxy::aSilentProviderIsAGatewayTimeout() {
    QTcpServer silent; // accepts and never answers
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    Fixture f;
    ModelProxyLimits limits;
    limits.idleTimeout = std::chrono::milliseconds(300);
    QVERIFY(f.start(ProviderConfig::Kind::OpenAi, {}, limits, "http://127.0.0.1:" + std::to_string(silent.serverPort()) + "/v1"));
    const Answer answer =
        f.exchange(request("POST", "/v1/responses", {"Authorization: Bearer " + QByteArray::fromStdString(f.token)}, kBody));
    QCOMPARE(answer.status, 504);
    QCOMPARE(answer.error()["error"].value("type", ""), std::string("server_error"));
}

// warrend's rule for an endpoint a user names (ModelUpstream::access): resolved and checked when the call
// connects; an address inside the server's host or networks the operator did not allow gets no connection.
void TestModelProxy::onAServerAnEndpointInsideIsRefused_data() {
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("allowed"); // the operator's --allow-internal; empty: none
    QTest::addColumn<bool>("reached");
    QTest::newRow("loopback address, nothing allowed") << "127.0.0.1" << "" << false;
    QTest::newRow("localhost, nothing allowed") << "localhost" << "" << false;
    QTest::newRow("loopback, another port allowed") << "127.0.0.1" << "127.0.0.1:1" << false;
    QTest::newRow("loopback address allowed") << "127.0.0.1" << "127.0.0.1:PORT" << true;
    QTest::newRow("localhost, its address allowed") << "localhost" << "127.0.0.1:PORT" << true;
}

void TestModelProxy::onAServerAnEndpointInsideIsRefused() {
    QFETCH(QString, host);
    QFETCH(QString, allowed);
    QFETCH(bool, reached);
    Fixture f;
    QVERIFY(f.server.listen());
    const QString port = QString::number(f.server.port());
    InsideAccess access{true, {}};
    if (!allowed.isEmpty())
        access.allowed = *parseInsideDestinations(QString(allowed).replace("PORT", port).toStdString());
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic, access, {}, ("http://" + host + ":" + port).toStdString()));
    f.server.enqueue(MockResponse::sse(warren::test::splitEvents(warren::test::anthropicTextStream({"x"}))));
    const Answer answer = f.exchange(request("POST", "/v1/messages", {"x-api-key: " + QByteArray::fromStdString(f.token)}, kBody));
    if (!reached) {
        QCOMPARE(answer.status, 403);
        QVERIFY(answer.error()["error"].value("message", "").find("--allow-internal") != std::string::npos);
        QCOMPARE(f.server.requests().size(), 0u);
        return;
    }
    QCOMPARE(answer.status, 200);
    QCOMPARE(f.server.requests().size(), 1u);
    QCOMPARE(f.server.requests().front().headers.value("host"), (host + ":" + port).toUtf8());

    // The allowed endpoint redirects elsewhere inside: the redirect goes back to the CLI, nothing follows it.
    MockLlmServer other;
    QVERIFY(other.listen());
    f.server.enqueue(MockResponse::json(307, "Temporary Redirect", "{}",
                                        {{"Location", other.baseUrl().toUtf8() + "/v1/messages"}}));
    QCOMPARE(f.exchange(request("POST", "/v1/messages", {"x-api-key: " + QByteArray::fromStdString(f.token)}, kBody)).status,
             307);
    QCOMPARE(other.requests().size(), 0u);
}

// The CLI goes away mid-answer: the call to the provider is dropped and reported as cut.
void TestModelProxy::aClosedClientEndsTheCall() {
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    MockResponse response = MockResponse::sse(warren::test::splitEvents(warren::test::anthropicTextStream({"a", "b"})));
    response.holdBeforeChunk = 1;
    f.server.enqueue(response);
    auto socket = f.client();
    QVERIFY(socket);
    socket->write(request("POST", "/v1/messages", {"x-api-key: " + QByteArray::fromStdString(f.token)}, kBody));
    QByteArray received;
    QVERIFY(QTest::qWaitFor([&] { return (received += socket->readAll()).contains("message_start"); }, 10000));
    socket->abort();
    QVERIFY(QTest::qWaitFor([&] { return f.calls->size() == 1; }, 10000));
    QVERIFY(f.call(0).error.find("closed its connection") != std::string::npos);
    QCOMPARE(f.call(0).inputTokens, 25u);
    f.server.release();
}

// The real Claude Code, as a task runs it: its base URL the forwarder on 127.0.0.1 (as warren-agent serves it
// in the sandbox), its key the task token. It probes, calls, and prints the model's answer; the model server
// sees only the real key, and Claude Code's home holds no trace of it.
void TestModelProxy::claudeCodeTalksThroughTheProxy() {
    const QString claude = qEnvironmentVariable("WARREN_TEST_CLAUDE");
    if (claude.isEmpty())
        QSKIP("WARREN_TEST_CLAUDE is not set (the path of Claude Code's claude binary)");
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::Anthropic));
    for (int i = 0; i < 4; ++i) // any further call it makes answers the same
        f.server.enqueue(MockResponse::sse(warren::test::splitEvents(
            warren::test::anthropicTextStream({"Hello from ", "the proxied model."}, 30, 8))));
    auto forwarder = agent::EgressForwarder::start(f.proxy->socketPath(), 0);
    QVERIFY2(forwarder.ok(), forwarder.ok() ? "" : forwarder.error().message.c_str());
    QTemporaryDir home;
    QProcess process;
    QProcessEnvironment environment;
    environment.insert("PATH", "/usr/bin:/bin");
    environment.insert("HOME", home.path());
    environment.insert("ANTHROPIC_BASE_URL", "http://127.0.0.1:" + QString::number((*forwarder)->port()));
    environment.insert("ANTHROPIC_API_KEY", QString::fromStdString(f.token));
    environment.insert("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(home.path());
    process.setStandardInputFile(QProcess::nullDevice());
    process.start(claude, {"-p", "Say hello", "--max-turns", "1"});
    QVERIFY(process.waitForStarted());
    QVERIFY(QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 60000));
    const QByteArray output = process.readAllStandardOutput();
    QVERIFY2(output.contains("Hello from the proxied model."), (output + process.readAllStandardError()).constData());
    QVERIFY(f.server.requests().size() >= 1);
    for (const auto& received : f.server.requests()) {
        QCOMPARE(received.headers.value("x-api-key"), QByteArray::fromStdString(kRealKey));
        QVERIFY(received.path.startsWith("/v1/messages"));
    }
    QVERIFY(!f.upstreamBytes().contains(QByteArray::fromStdString(f.token)));
    QVERIFY(f.calls->size() >= 1);
    QCOMPARE(f.call(0).inputTokens, 30u);
    QCOMPARE(f.call(0).outputTokens, 8u);
    // Nothing Claude Code wrote holds the real key.
    QProcess grep;
    grep.start("grep", {"-r", "-l", QString::fromStdString(kRealKey), home.path()});
    QVERIFY(grep.waitForFinished());
    QCOMPARE(grep.readAllStandardOutput(), QByteArray());
}

// The real Codex the same way, over the Responses API: its model provider's base_url the forwarder, its
// env_key the task token.
void TestModelProxy::codexTalksThroughTheProxy() {
    const QString codex = qEnvironmentVariable("WARREN_TEST_CODEX");
    if (codex.isEmpty())
        QSKIP("WARREN_TEST_CODEX is not set (the path of Codex's codex binary)");
    Fixture f;
    QVERIFY(f.start(ProviderConfig::Kind::OpenAi));
    for (int i = 0; i < 4; ++i)
        f.server.enqueue(MockResponse::sse(warren::test::splitEvents(
            warren::test::openAiResponsesStream({"Hello from ", "the proxied model."}, 40, 6))));
    auto forwarder = agent::EgressForwarder::start(f.proxy->socketPath(), 0);
    QVERIFY2(forwarder.ok(), forwarder.ok() ? "" : forwarder.error().message.c_str());
    QTemporaryDir home;
    QVERIFY(QDir(home.path()).mkpath(".codex"));
    QFile config(home.filePath(".codex/config.toml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("model = \"gpt-5\"\nmodel_provider = \"warren\"\n[model_providers.warren]\nname = \"warren\"\n"
                 "base_url = \"http://127.0.0.1:" + QByteArray::number((*forwarder)->port()) + "/v1\"\n"
                 "wire_api = \"responses\"\nenv_key = \"WARREN_TASK_TOKEN\"\n");
    config.close();
    QProcess process;
    QProcessEnvironment environment;
    environment.insert("PATH", QFileInfo(codex).absolutePath() + "/../codex-path:/usr/bin:/bin");
    environment.insert("HOME", home.path());
    environment.insert("CODEX_HOME", home.filePath(".codex"));
    environment.insert("WARREN_TASK_TOKEN", QString::fromStdString(f.token));
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(home.path());
    process.setStandardInputFile(QProcess::nullDevice());
    process.start(codex, {"exec", "-c", "analytics.enabled=false", "--disable", "plugins", "--skip-git-repo-check",
                          "Say hello"});
    QVERIFY(process.waitForStarted());
    QVERIFY(QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 60000));
    const QByteArray output = process.readAllStandardOutput();
    QVERIFY2(output.contains("Hello from the proxied model."), (output + process.readAllStandardError()).constData());
    QVERIFY(f.server.requests().size() >= 1);
    for (const auto& received : f.server.requests()) {
        QCOMPARE(received.headers.value("authorization"), "Bearer " + QByteArray::fromStdString(kRealKey));
        QCOMPARE(received.path, QByteArray("/v1/responses"));
    }
    QVERIFY(!f.upstreamBytes().contains(QByteArray::fromStdString(f.token)));
    QVERIFY(f.calls->size() >= 1);
    QCOMPARE(f.call(0).inputTokens, 40u);
    QCOMPARE(f.call(0).outputTokens, 6u);
}

QTEST_MAIN(TestModelProxy)
#include "tst_model_proxy.moc"
