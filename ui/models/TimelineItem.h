#pragma once
// One card of the live timeline: what the agent did, as the user reads it. Built from events by
// TimelineModel; painted by TimelineDelegate.

#include "AnsiText.h"
#include "StyledText.h"

#include <QString>
#include <cstdint>
#include <optional>

namespace warren::ui {

struct TimelineItem {
    enum class Kind {
        Task,       // the prompt, at the top
        Step,       // "Step 3": the cards below belong to it
        ModelText,  // the model's reply, streamed
        ToolCall,   // a tool call: "$ command", "edit path", ...; its output, exit code and duration
        FileChange, // a file the agent wrote, with its diff
        Approval,   // a call that waits for the user, then what was decided
        Notice,     // resumed, checkpoint, hook, guard, error, warnings
        Finished,   // how the task ended
    };
    enum class State { Plain, Running, Succeeded, Failed, Waiting, Approved, Denied, Warning };

    Kind kind = Kind::Notice;
    State state = State::Plain;
    std::uint64_t step = 0;
    QString title;  // one line
    QString detail; // a second, quieter line: exit code and duration, reason, token usage
    QString prose;  // the model's text, the prompt, a summary: wrapped, proportional font
    StyledText body; // output or diff: monospace, coloured
    bool expanded = false; // body shown whole instead of its last (or, for a diff, first) lines
    QString callId;        // tool calls and approvals
    QString path;          // file changes
    QString commandPrefix; // approvals of shell calls: what "always allow commands like this" allows
    AnsiParser parser;     // this call's output stream, across chunks
    std::uint64_t firstSeq = 0; // the event that made it
    std::uint32_t version = 0;  // grows with every change after it was shown: views cache by it
};

} // namespace warren::ui
