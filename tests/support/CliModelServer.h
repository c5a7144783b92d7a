#pragma once
// A model server for the coding-agent CLIs (Claude Code, Codex), on 127.0.0.1: real HTTP/1.1 and the real
// stream formats, served from threads of its own so a test may block (waiting for warren-agent) while a CLI
// talks to it. It answers
//   HEAD / and GET /                 200 (Claude Code's reachability check)
//   POST /v1/messages[?beta=true]    the next Anthropic turn as a Messages stream (message_start,
//                                    content_block_start/delta/stop, message_delta with stop_reason and
//                                    usage, message_stop)
//   POST /v1/messages/count_tokens   {"input_tokens": N}
//   POST /v1/responses               the next OpenAI Responses turn (response.created,
//                                    response.output_item.added/done, response.completed with usage)
// Each wire has its own script: a list of turns, each a text or one tool call with its arguments. Past the
// end of its script a wire answers with kScriptEnded as text, so a CLI ends its run rather than waiting.
// Every request is recorded (method, path, headers, body), so a test can check what the CLI sent and the key
// it sent it with. Connections close after each answer.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::test {

struct ScriptedTurn {
    std::string text;                                    // a text answer, when tool is empty
    std::string tool;                                    // a tool call's name
    nlohmann::json arguments = nlohmann::json::object(); // its arguments
    static ScriptedTurn say(std::string text) { return {std::move(text), {}, nlohmann::json::object()}; }
    static ScriptedTurn call(std::string tool, nlohmann::json arguments) {
        return {{}, std::move(tool), std::move(arguments)};
    }
};

struct ModelRequest {
    std::string method;
    std::string path;                           // with its query
    std::map<std::string, std::string> headers; // names in lower case
    std::string body;
    nlohmann::json json() const; // the body parsed; discarded when it is not JSON
};

inline constexpr const char* kScriptEnded = "(the model double has no more turns)";

class CliModelServer {
public:
    CliModelServer();
    ~CliModelServer(); // stops serving, closes every connection
    CliModelServer(const CliModelServer&) = delete;
    CliModelServer& operator=(const CliModelServer&) = delete;

    bool listen(); // on 127.0.0.1, a free port
    std::uint16_t port() const;
    std::string baseUrl() const; // "http://127.0.0.1:PORT"

    void scriptAnthropic(std::vector<ScriptedTurn> turns); // POST /v1/messages
    void scriptResponses(std::vector<ScriptedTurn> turns); // POST /v1/responses

    std::vector<ModelRequest> requests() const; // every request so far, in arrival order
    // The model calls only (POST /v1/messages and /v1/responses), in order.
    std::vector<ModelRequest> modelCalls() const;

private:
    struct State;
    std::shared_ptr<State> m_state;
};

// A CLI's task in three turns, in its own tool names: run command with its shell tool, write notes.txt in
// the workspace holding content, say it is done. claude: Claude Code's (Anthropic), else Codex's (Responses).
void scriptCommandThenNotes(CliModelServer& model, bool claude, const std::string& command,
                            const std::string& content);

// Codex's task in three turns: run command, write notes.txt holding content with apply_patch (as Codex's
// models do: a file change, not a command), say it is done.
void scriptCodexCommandThenPatch(CliModelServer& model, const std::string& command,
                                 const std::string& content);

// The Anthropic and Responses streams one turn becomes (SSE text), for tests that check a wire alone.
std::string anthropicTurnStream(const ScriptedTurn& turn, int index);
std::string responsesTurnStream(const ScriptedTurn& turn, int index);

} // namespace warren::test
