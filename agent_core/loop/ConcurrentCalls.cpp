#include "agent_core/loop/ConcurrentCalls.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>

namespace warren::agent {

ConcurrentCalls::ConcurrentCalls(std::vector<Call> calls, std::size_t maxAtOnce) {
    m_slots.reserve(calls.size());
    for (auto& call : calls)
        m_slots.push_back({std::move(call), {}, {}, 0, false, false});
    const std::size_t workers = std::min(std::max<std::size_t>(maxAtOnce, 1), m_slots.size());
    for (std::size_t i = 0; i < workers; ++i)
        m_workers.emplace_back([this] { work(); });
}

ConcurrentCalls::~ConcurrentCalls() {
    {
        std::lock_guard lock(m_mutex);
        m_abandoned = true;
    }
    m_workers.clear(); // joins: the calls already started end (or see the cancellation) first
}

bool ConcurrentCalls::has(const std::string& callId) const {
    return std::any_of(m_slots.begin(), m_slots.end(),
                       [&](const Slot& slot) { return slot.call.id == callId && !slot.taken; });
}

ConcurrentCalls::Taken ConcurrentCalls::take(const std::string& callId, const ToolEnv& live) {
    auto slot =
        std::find_if(m_slots.begin(), m_slots.end(), [&](const Slot& s) { return s.call.id == callId && !s.taken; });
    {
        std::unique_lock lock(m_mutex);
        m_ended.wait(lock, [&] { return slot->done; });
    }
    slot->taken = true;
    for (const auto& report : slot->reports)
        report(live);
    slot->reports.clear();
    return {std::move(slot->outcome), slot->ranMs};
}

void ConcurrentCalls::work() {
    for (;;) {
        Slot* slot = nullptr;
        {
            std::lock_guard lock(m_mutex);
            if (m_abandoned || m_next == m_slots.size())
                return;
            slot = &m_slots[m_next++];
        }
        runSlot(*slot);
        {
            std::lock_guard lock(m_mutex);
            slot->done = true;
        }
        m_ended.notify_all();
    }
}

void ConcurrentCalls::runSlot(Slot& slot) {
    // Only this worker touches the slot's reports until done is set under the mutex.
    ToolEnv env = slot.call.env;
    auto& reports = slot.reports;
    env.onOutput = [&reports](std::string_view stream, std::string_view text) {
        reports.push_back([stream = std::string(stream), text = std::string(text)](const ToolEnv& live) {
            if (live.onOutput)
                live.onOutput(stream, text);
        });
    };
    env.onFileChanged = [&reports](const std::string& path, FileChange change, const FileDiff* diff) {
        std::optional<FileDiff> kept = diff ? std::optional<FileDiff>(*diff) : std::nullopt;
        reports.push_back([path, change, kept = std::move(kept)](const ToolEnv& live) {
            if (live.onFileChanged)
                live.onFileChanged(path, change, kept ? &*kept : nullptr);
        });
    };
    env.onPlanUpdated = [&reports](const protocol::PlanUpdatedData& plan) {
        reports.push_back([plan](const ToolEnv& live) {
            if (live.onPlanUpdated)
                live.onPlanUpdated(plan);
        });
    };
    // A tool never throws (Tool.h), but an exception on this thread would end the agent: it becomes the
    // call's failure instead.
    const auto started = std::chrono::steady_clock::now();
    try {
        slot.outcome = slot.call.tool->run(slot.call.arguments, env);
    } catch (const std::exception& e) {
        slot.outcome = failure(std::string("the tool failed: ") + e.what());
    } catch (...) {
        slot.outcome = failure("the tool failed");
    }
    slot.ranMs = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started)
            .count());
}

} // namespace warren::agent
