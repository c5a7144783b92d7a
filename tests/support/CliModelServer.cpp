#include "tests/support/CliModelServer.h"

#include "common/UniqueFd.h"
#include "common/WriteAll.h"
#include "tests/support/ConnectionThreads.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cctype>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace warren::test {

using nlohmann::json;

namespace {

std::string sse(const std::string& name, const json& data) {
    return "event: " + name + "\ndata: " + data.dump() + "\n\n";
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

} // namespace

json ModelRequest::json() const {
    return json::parse(body, nullptr, false);
}

std::string anthropicTurnStream(const ScriptedTurn& turn, int index) {
    const std::string n = std::to_string(index);
    std::string out = sse("message_start", {{"type", "message_start"},
                                            {"message",
                                             {{"id", "msg_" + n},
                                              {"type", "message"},
                                              {"role", "assistant"},
                                              {"model", "double"},
                                              {"content", json::array()},
                                              {"stop_reason", nullptr},
                                              {"stop_sequence", nullptr},
                                              {"usage", {{"input_tokens", 20}, {"output_tokens", 1}}}}}});
    if (turn.tool.empty()) {
        out += sse("content_block_start", {{"type", "content_block_start"},
                                           {"index", 0},
                                           {"content_block", {{"type", "text"}, {"text", ""}}}});
        out += sse("content_block_delta", {{"type", "content_block_delta"},
                                           {"index", 0},
                                           {"delta", {{"type", "text_delta"}, {"text", turn.text}}}});
    } else {
        out += sse(
            "content_block_start",
            {{"type", "content_block_start"},
             {"index", 0},
             {"content_block",
              {{"type", "tool_use"}, {"id", "toolu_" + n}, {"name", turn.tool}, {"input", json::object()}}}});
        out += sse("content_block_delta",
                   {{"type", "content_block_delta"},
                    {"index", 0},
                    {"delta", {{"type", "input_json_delta"}, {"partial_json", turn.arguments.dump()}}}});
    }
    out += sse("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}});
    out += sse("message_delta",
               {{"type", "message_delta"},
                {"delta",
                 {{"stop_reason", turn.tool.empty() ? "end_turn" : "tool_use"}, {"stop_sequence", nullptr}}},
                {"usage", {{"output_tokens", 7}}}});
    out += sse("message_stop", {{"type", "message_stop"}});
    return out;
}

std::string responsesTurnStream(const ScriptedTurn& turn, int index) {
    const std::string n = std::to_string(index);
    const json item =
        turn.tool.empty()
            ? json{{"type", "message"},
                   {"id", "msg_" + n},
                   {"role", "assistant"},
                   {"status", "completed"},
                   {"content",
                    {{{"type", "output_text"}, {"text", turn.text}, {"annotations", json::array()}}}}}
            : json{{"type", "function_call"},
                   {"id", "fc_" + n},
                   {"call_id", "call_" + n},
                   {"name", turn.tool},
                   {"arguments", turn.arguments.dump()},
                   {"status", "completed"}};
    const std::string id = "resp_" + n;
    std::string out =
        sse("response.created",
            {{"type", "response.created"},
             {"response",
              {{"id", id}, {"object", "response"}, {"status", "in_progress"}, {"output", json::array()}}}});
    out += sse("response.output_item.added",
               {{"type", "response.output_item.added"}, {"output_index", 0}, {"item", item}});
    out += sse("response.output_item.done",
               {{"type", "response.output_item.done"}, {"output_index", 0}, {"item", item}});
    out += sse("response.completed", {{"type", "response.completed"},
                                      {"response",
                                       {{"id", id},
                                        {"object", "response"},
                                        {"status", "completed"},
                                        {"output", {item}},
                                        {"usage",
                                         {{"input_tokens", 20},
                                          {"input_tokens_details", {{"cached_tokens", 0}}},
                                          {"output_tokens", 7},
                                          {"output_tokens_details", {{"reasoning_tokens", 0}}},
                                          {"total_tokens", 27}}}}}});
    return out;
}

struct CliModelServer::State {
    std::uint16_t port = 0;
    mutable std::mutex mutex;
    std::vector<ScriptedTurn> anthropic, responses;
    std::size_t anthropicNext = 0, responsesNext = 0;
    std::vector<ModelRequest> requests;
    std::unique_ptr<ConnectionThreads> connections; // last: stopped first

    void serve(int fd);
    std::string answer(const ModelRequest& request);
};

namespace {

// Reads one request: the head up to the blank line, then a Content-Length or chunked body.
bool readRequest(int fd, ModelRequest& request) {
    std::string data;
    char buffer[65536];
    auto more = [&]() {
        const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
        if (got <= 0)
            return false;
        data.append(buffer, std::size_t(got));
        return true;
    };
    std::size_t headEnd;
    while ((headEnd = data.find("\r\n\r\n")) == std::string::npos)
        if (!more())
            return false;
    const std::string head = data.substr(0, headEnd);
    std::size_t lineEnd = head.find("\r\n");
    const std::string requestLine = head.substr(0, lineEnd);
    const auto firstSpace = requestLine.find(' ');
    const auto secondSpace = requestLine.find(' ', firstSpace + 1);
    request.method = requestLine.substr(0, firstSpace);
    request.path = requestLine.substr(firstSpace + 1, secondSpace - firstSpace - 1);
    while (lineEnd != std::string::npos) {
        const auto next = head.find("\r\n", lineEnd + 2);
        const std::string line =
            head.substr(lineEnd + 2, next == std::string::npos ? std::string::npos : next - lineEnd - 2);
        if (const auto colon = line.find(':'); colon != std::string::npos) {
            std::string value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            request.headers[lower(line.substr(0, colon))] = value;
        }
        lineEnd = next;
    }
    std::size_t pos = headEnd + 4;
    if (lower(request.headers["transfer-encoding"]) == "chunked") {
        for (;;) {
            std::size_t sizeEnd;
            while ((sizeEnd = data.find("\r\n", pos)) == std::string::npos)
                if (!more())
                    return false;
            const std::size_t size = std::stoul(data.substr(pos, sizeEnd - pos), nullptr, 16);
            while (data.size() < sizeEnd + 2 + size + 2)
                if (!more())
                    return false;
            if (size == 0)
                return true;
            request.body += data.substr(sizeEnd + 2, size);
            pos = sizeEnd + 2 + size + 2;
        }
    }
    const std::size_t length =
        request.headers.contains("content-length") ? std::stoul(request.headers["content-length"]) : 0;
    while (data.size() < pos + length)
        if (!more())
            return false;
    request.body = data.substr(pos, length);
    return true;
}

} // namespace

std::string CliModelServer::State::answer(const ModelRequest& request) {
    const std::string path = request.path.substr(0, request.path.find('?'));
    auto plain = [](int status, const std::string& body) {
        return "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Not Found") +
               "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
               "\r\nConnection: close\r\n\r\n" + body;
    };
    if (request.method == "HEAD")
        return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    if (request.method == "GET" && path == "/")
        return plain(200, "{}");
    if (request.method != "POST")
        return plain(404, R"({"error":"not found"})");
    if (path == "/v1/messages/count_tokens")
        return plain(200, R"({"input_tokens":10})");
    std::string stream;
    {
        std::lock_guard lock(mutex);
        if (path == "/v1/messages") {
            const std::size_t index = anthropicNext++;
            stream = anthropicTurnStream(
                index < anthropic.size() ? anthropic[index] : ScriptedTurn::say(kScriptEnded), int(index));
        } else if (path == "/v1/responses") {
            const std::size_t index = responsesNext++;
            stream = responsesTurnStream(
                index < responses.size() ? responses[index] : ScriptedTurn::say(kScriptEnded), int(index));
        } else {
            return plain(404, R"({"error":"not found"})");
        }
    }
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: "
           "no-cache\r\nContent-Length: " +
           std::to_string(stream.size()) + "\r\nConnection: close\r\n\r\n" + stream;
}

void CliModelServer::State::serve(int fd) {
    ModelRequest request;
    if (!readRequest(fd, request))
        return;
    {
        std::lock_guard lock(mutex);
        requests.push_back(request);
    }
    writeAll(fd, answer(request));
}

CliModelServer::CliModelServer() : m_state(std::make_shared<State>()) {}

CliModelServer::~CliModelServer() = default;

bool CliModelServer::listen() {
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (!fd.valid() || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd.get(), 64) != 0 ||
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
        return false;
    m_state->port = ntohs(address.sin_port);
    m_state->connections =
        std::make_unique<ConnectionThreads>(std::move(fd), [state = m_state.get()](int client, ConnectionThreads&) { state->serve(client); });
    return true;
}

std::uint16_t CliModelServer::port() const {
    return m_state->port;
}

std::string CliModelServer::baseUrl() const {
    return "http://127.0.0.1:" + std::to_string(m_state->port);
}

void CliModelServer::scriptAnthropic(std::vector<ScriptedTurn> turns) {
    std::lock_guard lock(m_state->mutex);
    m_state->anthropic = std::move(turns);
    m_state->anthropicNext = 0;
}

void CliModelServer::scriptResponses(std::vector<ScriptedTurn> turns) {
    std::lock_guard lock(m_state->mutex);
    m_state->responses = std::move(turns);
    m_state->responsesNext = 0;
}

std::vector<ModelRequest> CliModelServer::requests() const {
    std::lock_guard lock(m_state->mutex);
    return m_state->requests;
}

std::vector<ModelRequest> CliModelServer::modelCalls() const {
    std::vector<ModelRequest> out;
    for (auto& request : requests()) {
        const std::string path = request.path.substr(0, request.path.find('?'));
        if (request.method == "POST" && (path == "/v1/messages" || path == "/v1/responses"))
            out.push_back(std::move(request));
    }
    return out;
}

void scriptCommandThenNotes(CliModelServer& model, bool claude, const std::string& command,
                            const std::string& content) {
    if (claude)
        model.scriptAnthropic({ScriptedTurn::call("Bash", {{"command", command}, {"description", "look around"}}),
                               ScriptedTurn::call("Write", {{"file_path", "/workspace/notes.txt"}, {"content", content}}),
                               ScriptedTurn::say("Done: looked around and wrote notes.txt.")});
    else
        model.scriptResponses({ScriptedTurn::call("exec_command", {{"cmd", command}}),
                               ScriptedTurn::call("exec_command", {{"cmd", "cat > notes.txt <<'EOF'\n" + content + "EOF"}}),
                               ScriptedTurn::say("Done: looked around and wrote notes.txt.")});
}

void scriptCodexCommandThenPatch(CliModelServer& model, const std::string& command,
                                 const std::string& content) {
    std::string added;
    std::stringstream lines(content);
    for (std::string line; std::getline(lines, line);)
        added += "+" + line + "\n";
    model.scriptResponses(
        {ScriptedTurn::call("exec_command", {{"cmd", command}}),
         ScriptedTurn::call("exec_command",
                            {{"cmd", "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n" +
                                         added + "*** End Patch\nEOF"}}),
         ScriptedTurn::say("Done: looked around and wrote notes.txt.")});
}

} // namespace warren::test
