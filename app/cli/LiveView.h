#pragma once
// The terminal face of a task: each stored event becomes zero or more lines for a person watching
// `warren run` (steps, model text as it streams, tool calls with their arguments, output, file changes,
// approvals, tokens, elapsed time). Pure: no I/O, so every event type is tested as data.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::control {

struct LiveViewOptions {
    bool color = false;            // ANSI colours (a terminal that is a tty and NO_COLOR unset)
    std::size_t maxOutputLines = 20; // tool output shown per call before "… N more lines" (0: all)
};

class LiveView {
public:
    explicit LiveView(LiveViewOptions options = {});
    // event: one stored event object (PROTOCOL.md "Events"). Returns the text to print, possibly empty,
    // each line ending in '\n'. model_delta text is printed as it comes (no newline until the reply ends).
    std::string render(const nlohmann::json& event);
    // The closing line: status, steps, tokens in/out, elapsed.
    std::string summary(const std::string& status, std::uint64_t steps, std::uint64_t tokensIn,
                        std::uint64_t tokensOut, std::uint64_t elapsedMs) const;

private:
    LiveViewOptions m_options;
    bool m_inModelText = false;                // a model_delta line is open
    std::string m_openCall;                    // id of the tool call whose output is being shown
    std::size_t m_outputLinesShown = 0;
    std::size_t m_outputLinesHidden = 0;
};

} // namespace warren::control
