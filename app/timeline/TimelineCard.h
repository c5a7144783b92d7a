#pragma once
// One card of a task's timeline: what the agent did, as the user reads it. Built from events by
// TimelineFold; the desktop paints it, a remote window will too. Text is UTF-8; a body is kept raw (tool
// output with its ANSI colours, a diff, a command), for the face to style.

#include <cstddef>
#include <cstdint>
#include <string>

namespace warren::timeline {

struct TimelineCard {
    enum class Kind {
        Task,       // the prompt, at the top
        Step,       // "Step 3": the cards below belong to it
        ModelText,  // the model's reply, streamed
        ToolCall,   // a tool call: "$ command", "edit path", ...; its output, exit code and duration
        FileChange, // a file the agent wrote, with its diff
        Approval,   // a call that waits for the user, then what was decided
        Plan,       // the model's plan as update_plan last sent it, a line per step
        Notice,     // resumed, checkpoint, hook, guard, error, warnings
        Finished,   // how the task ended
        Agent,      // a sub-agent (spawn_agent): role, brief, its live status; its work is folded into it
    };
    enum class State { Plain, Running, Succeeded, Failed, Waiting, Approved, Denied, Warning };
    enum class Body {
        None,
        Output, // a process's output in arrival order, ANSI colours and all
        Diff,   // a unified diff
        Plain,  // text shown as it is (the command an approval is about)
    };

    Kind kind = Kind::Notice;
    State state = State::Plain;
    std::uint64_t step = 0;
    std::uint64_t firstSeq = 0; // the event that made it
    std::string title;          // one line
    std::string detail;         // a second, quieter line: exit code and duration, reason, token usage
    std::string prose;          // the model's text, the prompt, a summary
    Body bodyKind = Body::None;
    std::string body;
    bool diffTruncated = false; // the diff was cut: only its start is kept
    std::string callId;         // tool calls and approvals
    std::string arguments;      // tool calls and approvals: what the call acts on (CallDescription)
    std::string path;           // file changes
    std::string commandPrefix;  // approvals of shell calls: what "always allow commands like this" allows
    std::string networkTarget;  // network questions (--network ask): the host:port asked about
    std::string agent;          // the sub-agent whose work it is; "" for the task's own agent
    std::uint64_t depth = 0;    // how deep that agent nests: 0 the task's own, 1 a sub-agent it started
    std::size_t parentCard = 0; // Agent cards: the card of the spawn_agent call that started it
    // The Agent card of the sub-agent whose work this card is (a nested sub-agent's Agent card: its parent's),
    // where a face folds it in; 0: the task's own agent's work, shown in the task's flow.
    std::size_t agentCard = 0;
    std::size_t members = 0; // Agent cards: how many cards name it as their agentCard
};

} // namespace warren::timeline
