#pragma once
// Numbers, stamps and sends the task's events (protocol/Event.h), from any thread. Every event's seq is
// recorded (SeqMark) before it leaves, so a run resumed after a kill never reuses a seq an earlier run
// already emitted. Diagnostics go through log(): as log events on stdout with log_format json, as text on
// stderr with log_format text, either way filtered by log_level.

#include "agent_core/config/AgentConfig.h"
#include "agent_core/protocol/Event.h"
#include "agent_core/protocol/EventPayloads.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

// Where events go: one line each on stdout, as JSON-RPC notifications (serve) or bare objects (run).
class EventSink {
public:
    virtual ~EventSink() = default;
    virtual bool write(const protocol::Event& event) = 0; // false: the reader is gone
};

// Bare event objects, one JSON line each, to a file descriptor.
class LineEventSink : public EventSink {
public:
    explicit LineEventSink(int fd) : m_fd(fd) {}
    bool write(const protocol::Event& event) override;

private:
    int m_fd;
};

struct EventExtras {
    std::optional<std::string> tool;
    std::optional<protocol::TokenUsage> tokenUsage;
    std::optional<std::uint64_t> durationMs;
};

class EventLog {
public:
    explicit EventLog(EventSink& sink) : m_sink(&sink) {}
    // A sub-agent's log: its events carry agent and its own step, and go out through the task's log (one
    // numbering, one sink), which must outlive it. Logging is configured as the task's is now.
    EventLog(EventLog& task, std::string agent);

    // Numbering starts once the task's state is read (the first seq follows the checkpoint's). Events
    // emitted before, such as a bad line from the control plane, wait and go out first.
    void begin(std::uint64_t firstSeq, std::function<void(std::uint64_t seq)> recordSeq);

    void configureLogging(LogLevel level, LogFormat format);
    void setStep(std::uint64_t step);

    // Every event goes out through its typed data (EventPayloads.h): one writer per field.
    template <typename Payload> void emit(const Payload& payload, EventExtras extras = {}) {
        emit(Payload::kType, payload.toJson(), std::move(extras));
    }
    void log(LogLevel level, const std::string& message);
    // A log event whatever log_format says: what the user should see of the run's setup (the MCP servers and
    // skills found, and what was left out of them). Below log_level, nothing.
    void notice(LogLevel level, const std::string& message);
    void error(const std::string& message, bool fatal);

    std::uint64_t nextSeq() const;

    // What the agent did that its sink could not take (the control plane went away): its tool calls and
    // their results, files changed, approvals resolved, guards and errors, at most kMaxUnsent, oldest first.
    // Kept in the checkpoint and sent again by the run that resumes from it (TaskRun::resume), so that the
    // timeline shows what the model was told, such as a call interrupted as the control plane went.
    static constexpr std::size_t kMaxUnsent = 64;
    std::vector<protocol::Event> unsent() const;
    // event again, as it was (its time, step, tool, agent), with this run's next seq.
    void resend(protocol::Event event);

private:
    EventSink* m_sink = nullptr;     // the task's log only
    EventLog* m_task = nullptr;      // a sub-agent's log only
    std::optional<std::string> m_agent;
    void deliver(protocol::Event event); // numbers and sends, or keeps it until begin()
    std::function<void(std::uint64_t)> m_recordSeq;
    mutable std::mutex m_mutex;
    void emit(std::string_view type, nlohmann::json data, EventExtras extras);
    void send(protocol::Event event); // m_mutex held

    std::uint64_t m_nextSeq = 1;
    bool m_begun = false;
    std::vector<protocol::Event> m_waiting; // emitted before begin(), at most kMaxWaiting
    std::vector<protocol::Event> m_unsent;  // the sink refused them: unsent()
    std::uint64_t m_dropped = 0;
    std::uint64_t m_step = 0;
    LogLevel m_level = LogLevel::Info;
    LogFormat m_format = LogFormat::Text;
};

} // namespace warren::agent
