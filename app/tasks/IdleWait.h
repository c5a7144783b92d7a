#pragma once
// Whether a run does nothing but wait for its user: every tool call the agent started and has not ended
// (tool_call without its tool_result, the task's own agent's and its sub-agents') is one whose question
// waits for an answer, at least one question waits, and nothing else is under way (a model call, a
// network question). Such a run's time is not working time (the task's timeout stops meanwhile), and after
// the face's idle time it may sleep (TaskSleep.h). Pure: TaskRunner tells it the events and asks.

#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"

#include <chrono>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>

namespace warren::control {

class IdleWait {
public:
    void observe(const protocol::Event& event, const protocol::EventPayload& payload);
    // waiting: the agent's ids of the calls whose questions wait (approval_requested's data.id).
    bool onlyWaitsForUser(const std::set<std::string>& waiting, bool otherWork) const;
    std::size_t openCalls() const { return m_open.size(); }

private:
    std::set<std::pair<std::string, std::string>> m_open; // (agent, call id); the task's own agent: ""
};

// How long a run that only waits keeps its sandbox before it sleeps: the shortest of the times set, each a
// bound of its own (the face's: warrend serve --idle-sleep-sec, none on the desktop; the owner's quota's
// idle_sleep_sec on warrend; the task's idle_sleep_sec setting). Zero is a bound not set; none set: zero,
// the run never sleeps.
std::chrono::milliseconds idleSleepFor(std::initializer_list<std::chrono::milliseconds> bounds);

} // namespace warren::control
