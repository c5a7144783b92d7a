#include "agent_core/loop/EventLog.h"

#include "agent_core/protocol/EventTypes.h"
#include "common/WriteAll.h"

#include <cerrno>
#include <chrono>
#include <unistd.h>

namespace warren::agent {

bool LineEventSink::write(const protocol::Event& event) {
    // Tool output is arbitrary bytes: invalid UTF-8 is replaced rather than sent.
    return writeAll(m_fd, protocol::toJson(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                              '\n');
}

namespace {
// Before the task starts only the control plane's mistakes can produce events; past this many, they are
// counted rather than kept.
constexpr std::size_t kMaxWaiting = 256;

// What a resumed run sends again of what its predecessor could not: what the agent did and was told, not
// how its run ended (the resumed run goes on) nor what only measured it.
bool keptWhenUnsent(std::string_view type) {
    namespace et = protocol::event_type;
    return type == et::kToolCall || type == et::kToolResult || type == et::kFileChanged ||
           type == et::kApprovalResolved || type == et::kGuard || type == et::kError;
}
} // namespace

EventLog::EventLog(EventLog& task, std::string agent) : m_task(&task), m_agent(std::move(agent)) {
    std::lock_guard lock(task.m_mutex);
    m_level = task.m_level;
    m_format = task.m_format;
    m_begun = true;
}

void EventLog::begin(std::uint64_t firstSeq, std::function<void(std::uint64_t)> recordSeq) {
    if (m_task)
        return; // a sub-agent's events are numbered by the task's log
    std::lock_guard lock(m_mutex);
    m_nextSeq = firstSeq;
    m_recordSeq = std::move(recordSeq);
    m_begun = true;
    auto waiting = std::move(m_waiting);
    m_waiting.clear();
    for (auto& event : waiting)
        send(std::move(event));
    if (m_dropped) {
        protocol::Event event;
        const protocol::ErrorData dropped{
            std::to_string(m_dropped) + " more problems before the task started were not kept", false};
        event.type = std::string(protocol::ErrorData::kType);
        event.data = dropped.toJson();
        send(std::move(event));
    }
}

void EventLog::configureLogging(LogLevel level, LogFormat format) {
    std::lock_guard lock(m_mutex);
    m_level = level;
    m_format = format;
}

void EventLog::setStep(std::uint64_t step) {
    std::lock_guard lock(m_mutex);
    m_step = step;
}

std::uint64_t EventLog::nextSeq() const {
    if (m_task)
        return m_task->nextSeq();
    std::lock_guard lock(m_mutex);
    return m_nextSeq;
}

void EventLog::emit(std::string_view type, nlohmann::json data, EventExtras extras) {
    protocol::Event event;
    event.ts = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
    event.type = std::string(type);
    event.tool = std::move(extras.tool);
    event.tokenUsage = extras.tokenUsage;
    event.durationMs = extras.durationMs;
    event.data = std::move(data);
    {
        std::lock_guard lock(m_mutex);
        event.step = m_step;
    }
    event.agent = m_agent;
    if (m_task)
        m_task->deliver(std::move(event));
    else
        deliver(std::move(event));
}

void EventLog::deliver(protocol::Event event) {
    std::lock_guard lock(m_mutex);
    if (m_begun)
        send(std::move(event));
    else if (m_waiting.size() < kMaxWaiting)
        m_waiting.push_back(std::move(event));
    else
        m_dropped++;
}

void EventLog::send(protocol::Event event) {
    event.seq = m_nextSeq++;
    if (event.ts == 0)
        event.ts = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
    if (m_recordSeq)
        m_recordSeq(event.seq);
    if (!m_sink->write(event) && m_unsent.size() < kMaxUnsent && keptWhenUnsent(event.type))
        m_unsent.push_back(std::move(event));
}

std::vector<protocol::Event> EventLog::unsent() const {
    if (m_task)
        return m_task->unsent();
    std::lock_guard lock(m_mutex);
    return m_unsent;
}

void EventLog::resend(protocol::Event event) {
    if (m_task)
        return m_task->resend(std::move(event));
    std::lock_guard lock(m_mutex);
    if (m_begun)
        send(std::move(event));
}

void EventLog::log(LogLevel level, const std::string& message) {
    LogFormat format;
    {
        std::lock_guard lock(m_mutex);
        if (level < m_level)
            return;
        format = m_format;
    }
    if (format == LogFormat::Json)
        emit(protocol::LogData{level, message});
    else
        writeAll(STDERR_FILENO, "warren-agent: " + std::string(toString(level)) + ": " + message + "\n");
}

void EventLog::notice(LogLevel level, const std::string& message) {
    {
        std::lock_guard lock(m_mutex);
        if (level < m_level)
            return;
    }
    emit(protocol::LogData{level, message});
}

void EventLog::error(const std::string& message, bool fatal) {
    emit(protocol::ErrorData{message, fatal});
}

} // namespace warren::agent
