#pragma once
// One card of the live timeline as the desktop paints it: a TimelineCard of the fold (app/timeline) in
// Qt's terms, its body styled. Kept by TimelineModel; painted by TimelineDelegate.

#include "app/timeline/TimelineCard.h"
#include "ui/models/StyledText.h"
#include "ui/text/AnsiText.h"

#include <QString>
#include <cstdint>
#include <optional>
#include <string>

namespace warren::ui {

struct TimelineItem {
    using Kind = timeline::TimelineCard::Kind;
    using State = timeline::TimelineCard::State;

    Kind kind = Kind::Notice;
    State state = State::Plain;
    std::uint64_t step = 0;
    std::uint64_t depth = 0; // a sub-agent's cards nest (indented) under the task's: 1 for one it started
    // A sub-agent's work is folded into its Agent card (the row agentRow; 0: the task's own work, always
    // shown) and shown under it while that card is expanded; members: an Agent card's count of such rows.
    std::size_t agentRow = 0;
    std::size_t members = 0;
    QString title;  // one line
    QString detail; // a second, quieter line: exit code and duration, reason, token usage
    QString prose;  // the model's text, the prompt, a summary: wrapped, proportional font
    StyledText body; // output or diff: monospace, coloured
    bool expanded = false; // body shown whole instead of its last (or, for a diff, first) lines; an
                           // Agent card: its work shown under it
    QString callId;        // tool calls and approvals
    QString path;          // file changes
    QString commandPrefix; // approvals of shell calls: what "always allow commands like this" allows
    QString networkTarget; // network questions: the host:port asked about
    std::string approvalBody; // approvals: the body styled, to style it again when it changes
    AnsiParser parser;     // this call's output stream, across chunks
    std::size_t styledBytes = 0; // of the card's body, already in body
    std::uint64_t firstSeq = 0;  // the event that made it
    std::uint32_t version = 0;   // grows with every change after it was shown: views cache by it
};

} // namespace warren::ui
