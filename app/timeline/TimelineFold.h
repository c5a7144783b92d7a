#pragma once
// A task's events folded into its timeline (TimelineCard) and its counters (TaskCounters), one event at a
// time in seq order: a run of output chunks grows one card, a streamed reply grows another, a result or a
// decision changes the card of its call. Pure and Qt-free: the desktop's TimelineModel adapts it to Qt
// (it is told which cards each event changed, so it can notify precisely), and a remote window can too.

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"
#include "app/timeline/ApprovalPreview.h"
#include "app/timeline/TaskCounters.h"
#include "app/timeline/TimelineCard.h"

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warren::timeline {

// One stored event, read: its envelope (Event; its data is in payload, not in envelope.data) and its typed
// data.
struct ReadEvent {
    protocol::Event envelope;
    protocol::EventPayload payload;
};

// An event as a face gets it (stored, or built in code), read strictly by the protocol's readers; the
// error names the key that is wrong ("event.step: ...", "tool_call data.arguments: missing").
Result<ReadEvent> readEvent(const nlohmann::json& event);

// How a plan step's status is marked, for every face: "✓" completed, "▸" in progress, "○" pending.
std::string_view planMark(protocol::PlanStatus status);

class TimelineFold {
public:
    // A fold of a task whose first card is its prompt.
    explicit TimelineFold(std::string prompt = {});

    // A fold may start in the middle of a task (a window shows the latest events first): an event whose
    // earlier context it has not seen still shows. Output or a result of a call it never saw make that
    // call's card ("earlier call"), an answer to a question it never saw makes an approval card, and a
    // model_delta starts a reply card as at any step's start.
    // Takes one event; returns the cards that were there before it and that it changed (new cards are
    // those past the previous size of cards()).
    std::vector<std::size_t> apply(const ReadEvent& event);

    // deque: a card stays where it is while others are added.
    const std::deque<TimelineCard>& cards() const { return m_cards; }
    const TaskCounters& counters() const { return m_counters; }
    // The card of the last change of path (its latest diff).
    std::optional<std::size_t> lastChangeOf(const std::string& path) const;

    // An approval card shows its edit against the text the call replaces (ApprovalPreview). A face that can
    // read the workspace shows the cards still waiting against the file as it is now, after each batch of
    // events it applied (a card answered in the batch keeps the former: the file has moved on since).
    // Returns the cards it changed.
    std::vector<std::size_t> previewWaitingApprovals(const FileReader& readFile);

private:
    TimelineCard& newCard(TimelineCard::Kind kind, const protocol::Event& envelope);
    TimelineCard& notice(const protocol::Event& envelope, TimelineCard::State state, std::string title,
                         std::string detail = {});
    std::optional<std::size_t> callCard(const std::string& key) const;
    std::size_t callCardOrEarlier(const protocol::Event& e, const std::string& id);

    // One per event type that makes or changes cards.
    void take(const protocol::Event& e, const protocol::StepStartedData&);
    void take(const protocol::Event& e, const protocol::ModelDeltaData& data);
    void take(const protocol::Event& e, const protocol::ModelResponseData& data);
    void take(const protocol::Event& e, const protocol::ToolCallData& data);
    void take(const protocol::Event& e, const protocol::ToolOutputData& data);
    void take(const protocol::Event& e, const protocol::ToolResultData& data);
    void take(const protocol::Event& e, const protocol::FileChangedData& data);
    void take(const protocol::Event& e, const protocol::ApprovalRequestedData& data);
    void take(const protocol::Event& e, const protocol::ApprovalResolvedData& data);
    void take(const protocol::Event& e, const protocol::ProjectInstructionsData& data);
    void take(const protocol::Event& e, const protocol::TaskResumedData& data);
    void take(const protocol::Event& e, const protocol::UserMessageData& data);
    void take(const protocol::Event& e, const protocol::CheckpointData& data);
    void take(const protocol::Event& e, const protocol::HookData& data);
    void take(const protocol::Event& e, const protocol::PlanUpdatedData& data);
    void take(const protocol::Event& e, const protocol::GuardData& data);
    void take(const protocol::Event& e, const protocol::ErrorData& data);
    void take(const protocol::Event& e, const protocol::LogData& data);
    void take(const protocol::Event& e, const protocol::NetworkRequestData& data);
    void take(const protocol::Event& e, const protocol::ModelCallData& data);
    void take(const protocol::Event& e, const protocol::LimitsAppliedData& data);
    void take(const protocol::Event& e, const protocol::TaskSleptData& data);
    void take(const protocol::Event& e, const protocol::TaskFinishedData& data);
    void take(const protocol::Event& e, const protocol::AgentStartedData& data);
    void take(const protocol::Event& e, const protocol::AgentFinishedData& data);
    void take(const protocol::Event&, const protocol::TaskStartedData&) {}    // the prompt card is there
    void take(const protocol::Event&, const protocol::ResourceSampleData&) {} // counted only
    void touch(std::size_t index);
    void joinAgent(TimelineCard& card, std::size_t agentCard); // card is agentCard's work
    void showProgress(const std::string& agent);                // its Agent card's detail while it runs

    // What an Agent card says while its agent runs: "running · step 3 · 5 calls · last: $ pytest".
    struct AgentProgress {
        std::uint64_t step = 0;
        std::uint64_t calls = 0;
        std::string lastCall;
    };

    std::deque<TimelineCard> m_cards;
    std::vector<std::size_t> m_changed;             // of the event being taken
    // Call ids are the model's, so each agent's are its own: keyed by agent and id (callKey).
    std::map<std::string, std::size_t> m_calls;     // tool call -> its card
    std::map<std::string, std::size_t> m_approvals; // call -> its approval card
    // The approvals still waiting: call -> its tool and arguments.
    std::map<std::string, std::pair<std::string, nlohmann::json>> m_waitingCalls;
    std::map<std::string, std::size_t> m_lastChange;
    std::map<std::string, std::size_t> m_streaming; // agent -> the reply it streams in its current step
    std::map<std::string, std::size_t> m_agents;    // sub-agent -> its Agent card
    std::map<std::string, AgentProgress> m_progress; // sub-agent -> what it has done so far
    TaskCounters m_counters;
};

} // namespace warren::timeline
