#pragma once
// The terminal face of a task: each stored event becomes zero or more lines for a person watching
// `warren run` (steps, model text as it streams, tool calls with their arguments, output, file changes,
// approvals, tokens, elapsed time). Pure: no I/O, so every event type is tested as data.
//
// Everything that came from the agent, the model or a tool is untrusted text: it passes through
// sanitizeForTerminal() before it is printed, so it cannot move the cursor, clear the screen, set the
// window title or overwrite a line it printed before. Colour, when on, is only ever added by LiveView.

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"
#include "app/timeline/TimelineFold.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <string_view>

namespace warren::control {

struct LiveViewOptions {
    bool color = false;              // ANSI colours (a terminal that is a tty and NO_COLOR unset)
    std::size_t maxOutputLines = 20; // tool output shown per call before "… N more lines" (0: all)
    std::string taskId;              // for "warren show TASK"; task_started's task_id replaces it
};

// text with every terminal control removed: ESC and the whole CSI/OSC/DCS/SOS/PM/APC sequence it starts,
// C0 controls but \t and \n, DEL, C1 controls (raw bytes and U+0080..U+009F, a C1 CSI/OSC with its body),
// bidi overrides (text that reads differently than it runs). A lone \r becomes \n (the overwrite trick
// shows both texts instead of hiding one); \r\n becomes \n; bytes that are not UTF-8 become U+FFFD.
std::string sanitizeForTerminal(std::string_view text);

class LiveView {
public:
    explicit LiveView(LiveViewOptions options = {});
    // event: one stored event object (PROTOCOL.md "Events"). Returns the text to print, possibly empty,
    // each line ending in '\n'. model_delta text is printed as it comes (no newline until the reply ends).
    // Never throws: an event the protocol's readers refuse renders as "(unreadable event: why)", why naming
    // the key ("tool_call data.arguments: missing").
    std::string render(const nlohmann::json& event);
    // The closing line: status, steps, tokens in/out, elapsed; ends in '\n'.
    std::string summary(const std::string& status, std::uint64_t steps, std::uint64_t tokensIn,
                        std::uint64_t tokensOut, std::uint64_t elapsedMs) const;

private:
    std::string renderEvent(const nlohmann::json& event);
    std::string unreadable(const std::string& why);
    std::string closeModelText();
    // What each type prints; those not listed here end the streamed text and the open call's output,
    // then print their line().
    std::string renderData(const protocol::Event& envelope, const protocol::ModelDeltaData& data);
    std::string renderData(const protocol::Event& envelope, const protocol::CheckpointData& data);
    std::string renderData(const protocol::Event& envelope, const protocol::ResourceSampleData& data);
    std::string renderData(const protocol::Event& envelope, const protocol::ToolOutputData& data);
    std::string renderData(const protocol::Event& envelope, const protocol::ToolResultData& data);
    std::string renderData(const protocol::Event& envelope, const auto& data);
    std::string line(const protocol::Event& envelope, const protocol::TaskStartedData& data);
    std::string line(const protocol::Event& envelope, const protocol::ProjectInstructionsData& data);
    std::string line(const protocol::Event& envelope, const protocol::TaskResumedData& data);
    std::string line(const protocol::Event& envelope, const protocol::UserMessageData& data);
    std::string line(const protocol::Event& envelope, const protocol::StepStartedData& data);
    std::string line(const protocol::Event& envelope, const protocol::ModelResponseData& data);
    std::string line(const protocol::Event& envelope, const protocol::ToolCallData& data);
    std::string line(const protocol::Event& envelope, const protocol::FileChangedData& data);
    std::string line(const protocol::Event& envelope, const protocol::ApprovalRequestedData& data);
    std::string line(const protocol::Event& envelope, const protocol::ApprovalResolvedData& data);
    std::string line(const protocol::Event& envelope, const protocol::HookData& data);
    std::string line(const protocol::Event& envelope, const protocol::PlanUpdatedData& data);
    std::string line(const protocol::Event& envelope, const protocol::GuardData& data);
    std::string line(const protocol::Event& envelope, const protocol::ErrorData& data);
    std::string line(const protocol::Event& envelope, const protocol::LogData& data);
    std::string line(const protocol::Event& envelope, const protocol::NetworkRequestData& data);
    std::string line(const protocol::Event& envelope, const protocol::ModelCallData& data);
    std::string line(const protocol::Event& envelope, const protocol::LimitsAppliedData& data);
    std::string line(const protocol::Event& envelope, const protocol::TaskSleptData& data);
    std::string line(const protocol::Event& envelope, const protocol::TaskFinishedData& data);
    std::string line(const protocol::Event& envelope, const protocol::AgentStartedData& data);
    std::string line(const protocol::Event& envelope, const protocol::AgentFinishedData& data);
    // A sub-agent's lines nest under the task's: indented by its depth, each starting with its id.
    std::string nested(const protocol::Event& envelope, const std::string& text);
    std::string toolOutput(const protocol::ToolOutputData& data);
    std::string outputLine(bool stderrStream, std::string_view rawLine);
    std::string flushOutput(); // pending partial lines and the "… N more lines" note of the open call
    std::string toolResult(const protocol::Event& envelope, const protocol::ToolResultData& data);
    std::string paint(std::string_view code, const std::string& text) const;
    std::string callArguments() const;

    LiveViewOptions m_options;
    // Every event goes through the fold first, which reads its payload once: a call's line prints what it
    // acts on from the card the fold made of it (one description for every face); the other lines print
    // from the payload the fold read, since the terminal shows what a card does not keep (an output
    // chunk's stream, a change's mark, output it never had a call for).
    timeline::TimelineFold m_fold;
    bool m_inModelText = false; // a model_delta line is open
    bool m_modelTextAtLineStart = true;
    bool m_deltasShown = false; // this model call's text was streamed: its model_response is not reprinted
    std::string m_openCall;     // id of the tool call whose output is being shown
    std::size_t m_outputLinesShown = 0;
    std::size_t m_outputLinesHidden = 0;
    std::string m_partialStdout; // raw output after the last newline, completed by the next chunk
    std::string m_partialStderr;
    bool m_atLineStart = true;                    // the last text printed ended a line
    std::map<std::string, std::uint64_t> m_depth; // sub-agent -> its depth (agent_started)
};

} // namespace warren::control
