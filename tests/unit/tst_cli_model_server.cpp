// The model double the CLIs talk to (tests/support/CliModelServer) and the socket relay in front of it, over
// real sockets: what it answers on each path, the turns of each wire's script in order, what it records.

#include "tests/support/CliModelServer.h"
#include "tests/support/UnixTcpRelay.h"

#include <QTemporaryDir>
#include <QtTest>
#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace warren::test;
using nlohmann::json;

namespace {

// One request on a new connection; the whole answer, read until the server closes it.
std::string exchange(int fd, const std::string& request) {
    std::string answer;
    if (::write(fd, request.data(), request.size()) != ssize_t(request.size()))
        return answer;
    char buffer[4096];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
        answer.append(buffer, std::size_t(got));
    ::close(fd);
    return answer;
}

std::string overTcp(std::uint16_t port, const std::string& request) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return {};
    }
    return exchange(fd, request);
}

std::string overUnix(const std::string& path, const std::string& request) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return {};
    }
    return exchange(fd, request);
}

std::string post(const std::string& path, const std::string& body, const std::string& extraHeaders = {}) {
    return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extraHeaders +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The data of each SSE event of an answer's body, in order.
std::vector<json> events(const std::string& answer) {
    std::vector<json> out;
    for (std::size_t at = answer.find("data: "); at != std::string::npos; at = answer.find("data: ", at + 1))
        out.push_back(json::parse(answer.substr(at + 6, answer.find('\n', at) - at - 6)));
    return out;
}

} // namespace

class TestCliModelServer : public QObject {
    Q_OBJECT
private slots:
    void answersTheReachabilityCheckAndCountsTokens() {
        CliModelServer model;
        QVERIFY(model.listen());
        QVERIFY(overTcp(model.port(), "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n").starts_with("HTTP/1.1 200"));
        QVERIFY(overTcp(model.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n").starts_with("HTTP/1.1 200"));
        const auto counted = overTcp(model.port(), post("/v1/messages/count_tokens?beta=true", "{}"));
        QVERIFY(counted.find(R"({"input_tokens":10})") != std::string::npos);
        QVERIFY(overTcp(model.port(), post("/v1/other", "{}")).starts_with("HTTP/1.1 404"));
        QVERIFY(model.modelCalls().empty());
        QCOMPARE(model.requests().size(), std::size_t(4));
    }

    void anthropicTurnsInOrder() {
        CliModelServer model;
        QVERIFY(model.listen());
        model.scriptAnthropic({ScriptedTurn::call("Bash", {{"command", "ls"}}), ScriptedTurn::say("done")});
        const auto first =
            events(overTcp(model.port(), post("/v1/messages?beta=true", R"({"n":1})", "x-api-key: k1\r\n")));
        QCOMPARE(first.front()["type"].get<std::string>(), std::string("message_start"));
        QCOMPARE(first[1]["content_block"]["name"].get<std::string>(), std::string("Bash"));
        QCOMPARE(json::parse(first[2]["delta"]["partial_json"].get<std::string>()),
                 (json{{"command", "ls"}}));
        QCOMPARE(first[4]["delta"]["stop_reason"].get<std::string>(), std::string("tool_use"));
        QCOMPARE(first.back()["type"].get<std::string>(), std::string("message_stop"));
        const auto second = events(overTcp(model.port(), post("/v1/messages", "{}")));
        QCOMPARE(second[2]["delta"]["text"].get<std::string>(), std::string("done"));
        QCOMPARE(second[4]["delta"]["stop_reason"].get<std::string>(), std::string("end_turn"));
        // Past the script: a text that ends the CLI's run.
        const auto third = events(overTcp(model.port(), post("/v1/messages", "{}")));
        QCOMPARE(third[2]["delta"]["text"].get<std::string>(), std::string(kScriptEnded));
        const auto calls = model.modelCalls();
        QCOMPARE(calls.size(), std::size_t(3));
        QCOMPARE(calls[0].headers.at("x-api-key"), std::string("k1"));
        QCOMPARE(calls[0].path, std::string("/v1/messages?beta=true"));
        QCOMPARE(calls[0].json(), (json{{"n", 1}}));
    }

    void responsesTurnsInOrder() {
        CliModelServer model;
        QVERIFY(model.listen());
        model.scriptResponses(
            {ScriptedTurn::call("exec_command", {{"cmd", "ls"}}), ScriptedTurn::say("done")});
        const auto first = events(overTcp(model.port(), post("/v1/responses", "{}")));
        QCOMPARE(first.front()["type"].get<std::string>(), std::string("response.created"));
        QCOMPARE(first[1]["item"]["type"].get<std::string>(), std::string("function_call"));
        QCOMPARE(json::parse(first[2]["item"]["arguments"].get<std::string>()), (json{{"cmd", "ls"}}));
        QCOMPARE(first.back()["response"]["usage"]["output_tokens"].get<int>(), 7);
        const auto second = events(overTcp(model.port(), post("/v1/responses", "{}")));
        QCOMPARE(second[2]["item"]["content"][0]["text"].get<std::string>(), std::string("done"));
    }

    // A chunked body is recorded as its bytes.
    void chunkedBody() {
        CliModelServer model;
        QVERIFY(model.listen());
        overTcp(model.port(), "POST /v1/responses HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n");
        QCOMPARE(model.modelCalls().at(0).json(), (json{{"a", 1}}));
    }

    // The relay carries a request and its answer unchanged, as the model proxy's socket would.
    void relayFromUnixSocket() {
        CliModelServer model;
        QVERIFY(model.listen());
        QTemporaryDir dir;
        const std::string socket = dir.path().toStdString() + "/model.sock";
        UnixTcpRelay relay;
        QVERIFY(relay.start(socket, model.port()));
        model.scriptAnthropic({ScriptedTurn::say("through the relay")});
        const auto answer = events(overUnix(socket, post("/v1/messages", "{}", "x-api-key: token\r\n")));
        QCOMPARE(answer[2]["delta"]["text"].get<std::string>(), std::string("through the relay"));
        QCOMPARE(model.modelCalls().at(0).headers.at("x-api-key"), std::string("token"));
    }
};

QTEST_GUILESS_MAIN(TestCliModelServer)
#include "tst_cli_model_server.moc"
