// What the agent sends the model per step: the system prompt, the tool specs and the conversation so far,
// in estimated tokens (agent_core's estimate, four bytes a token), for the demo task (resources/demo: six
// steps) run in-process with the scripted model, side by side with the same conversation under a minimal
// baseline prompt (the three sentences the agent had before resources/prompts). The difference per step is
// what the instructions cost; the tool specs are sent either way. Also each model family's prompt alone.
//   bench_agent_prompt RESOURCES_DIR (the repository's resources/)

#include "agent_core/context/TokenEstimate.h"
#include "agent_core/llm/ScriptedLlm.h"
#include "agent_core/loop/Agent.h"
#include "agent_core/prompt/SystemPrompt.h"
#include "agent_core/protocol/Script.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace warren;
using namespace warren::agent;
namespace fs = std::filesystem;

constexpr const char* kBaselinePrompt =
    "You are a software agent working in the workspace /workspace, inside a sandbox. Use the tools to "
    "inspect and change files and to run commands; paths are relative to /workspace. When the task is "
    "done, call finish with a short summary of what you did.";

// The scripted model, recording what each call was sent.
class RecordingLlm : public Llm {
public:
    explicit RecordingLlm(protocol::Script script) : m_scripted(std::move(script)) {}
    std::vector<protocol::LlmChatParams> sent;
    Result<protocol::LlmChatResult> chat(const protocol::LlmChatParams& params, std::chrono::steady_clock::time_point deadline,
                                         const Cancellation& cancellation) override {
        sent.push_back(params);
        return m_scripted.chat(params, deadline, cancellation);
    }

private:
    ScriptedLlm m_scripted;
};

class NullSink : public EventSink {
public:
    bool write(const protocol::Event&) override { return true; }
};

std::uint64_t toolTokens(const std::vector<protocol::ToolSpec>& tools) {
    std::uint64_t bytes = 0;
    for (const auto& tool : tools)
        bytes += protocol::toJson(tool).dump().size();
    return (bytes + kBytesPerToken - 1) / kBytesPerToken;
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_agent_prompt RESOURCES_DIR\n");
        return 2;
    }
    const fs::path resources = argv[1];
    auto script = protocol::parseScript(readFile(resources / "demo" / "script.json"), "demo/script.json");
    if (!script) {
        std::fprintf(stderr, "%s\n", script.error().message.c_str());
        return 1;
    }
    const fs::path workspace = fs::temp_directory_path() / ("bench-agent-prompt-" + std::to_string(::getpid()));
    fs::create_directories(workspace);
    fs::copy(resources / "demo" / "workspace", workspace, fs::copy_options::recursive);

    auto agent = createAgent({}, nlohmann::json::object());
    if (!agent) {
        std::fprintf(stderr, "%s\n", agent.error().message.c_str());
        return 1;
    }
    auto model = std::make_unique<RecordingLlm>(std::move(script).value());
    RecordingLlm* recorded = model.get();
    (*agent)->setModel(std::move(model));
    (*agent)->setRunFacts({"bwrap", "none", "openai", "gpt-5"});
    NullSink sink;
    EventLog events(sink);
    Cancellation cancellation;
    const auto outcome = (*agent)->run({workspace, std::nullopt, std::nullopt}, "bench", "Make the test pass", events,
                                       cancellation);
    fs::remove_all(workspace);
    if (outcome.reason != ExitReason::Finished) {
        std::fprintf(stderr, "the demo task did not finish: %s\n", outcome.summary.c_str());
        return 1;
    }

    std::printf("# tokens sent per model call (estimated, 4 bytes a token), demo task, openai family\n");
    std::printf("%-6s %10s %10s %10s %10s %10s\n", "step", "tools", "messages", "total", "baseline", "extra");
    std::uint64_t sumTotal = 0;
    std::uint64_t sumBaseline = 0;
    std::string rows;
    for (std::size_t i = 0; i < recorded->sent.size(); ++i) {
        const auto& params = recorded->sent[i];
        const std::uint64_t tools = toolTokens(params.tools);
        const std::uint64_t messages = estimateTokens(params.messages);
        auto baselineMessages = params.messages;
        baselineMessages[0].content = kBaselinePrompt;
        const std::uint64_t baseline = tools + estimateTokens(baselineMessages);
        const std::uint64_t total = tools + messages;
        sumTotal += total;
        sumBaseline += baseline;
        std::printf("%-6zu %10llu %10llu %10llu %10llu %10llu\n", i + 1, static_cast<unsigned long long>(tools),
                    static_cast<unsigned long long>(messages), static_cast<unsigned long long>(total), static_cast<unsigned long long>(baseline),
                    static_cast<unsigned long long>(total - baseline));
        rows += (rows.empty() ? "" : ",") + std::string("{\"step\":") + std::to_string(i + 1) +
                ",\"tools\":" + std::to_string(tools) + ",\"total\":" + std::to_string(total) +
                ",\"baseline\":" + std::to_string(baseline) + "}";
    }
    const std::size_t steps = recorded->sent.size();
    std::printf("%-6s %10s %10s %10llu %10llu %10llu  (ratio %.2f)\n", "mean", "", "",
                static_cast<unsigned long long>(sumTotal / steps), static_cast<unsigned long long>(sumBaseline / steps),
                static_cast<unsigned long long>((sumTotal - sumBaseline) / steps), static_cast<double>(sumTotal) / static_cast<double>(sumBaseline));

    std::printf("# the system prompt alone, per model family (default settings, all tools)\n");
    std::string families;
    const std::vector<std::string> tools{"shell", "read_file", "write_file", "edit_file", "list_files", "search",
                                         "memory_save", "memory_load", "memory_search", "finish"};
    for (const auto& [provider, modelName] : std::vector<std::pair<std::string, std::string>>{
             {"openai", "gpt-5"}, {"anthropic", "claude-sonnet-4-5"}, {"ollama", "qwen2.5-coder"}}) {
        const auto prompt = renderSystemPrompt(AgentConfig{}, {"bwrap", "none", provider, modelName}, tools);
        const auto tokens = (prompt.text.size() + kBytesPerToken - 1) / kBytesPerToken;
        std::printf("%-10s %6zu bytes %6llu tokens (baseline %zu tokens)\n", std::string(toString(prompt.family)).c_str(),
                    prompt.text.size(), static_cast<unsigned long long>(tokens),
                    (std::string(kBaselinePrompt).size() + kBytesPerToken - 1) / kBytesPerToken);
        families += (families.empty() ? "" : ",") + std::string("\"") + std::string(toString(prompt.family)) +
                    "\":" + std::to_string(tokens);
    }
    std::printf("{\"bench\":\"agent_prompt\",\"steps\":%zu,\"mean_total\":%llu,\"mean_baseline\":%llu,"
                "\"per_step\":[%s],\"prompt_tokens\":{%s}}\n",
                steps, static_cast<unsigned long long>(sumTotal / steps), static_cast<unsigned long long>(sumBaseline / steps), rows.c_str(),
                families.c_str());
    return 0;
}
