#include "app/tasks/NetworkQuestions.h"

#include "agent_core/protocol/Timestamp.h"
#include "app/egress/NetworkQuestion.h"

#include <QTimer>
#include <algorithm>

namespace warren::control {

namespace {

std::string now() { return protocol::formatTimestamp(std::chrono::system_clock::now()); }

std::string seconds(std::chrono::milliseconds wait) {
    const auto count = std::chrono::duration_cast<std::chrono::seconds>(wait).count();
    return count > 0 ? std::to_string(count) + " s" : std::to_string(wait.count()) + " ms";
}

} // namespace

NetworkQuestions::NetworkQuestions(Settings settings, QObject* parent)
    : QObject(parent), m_settings(std::move(settings)) {}

NetworkQuestions::~NetworkQuestions() { abortAll(); }

void NetworkQuestions::ask(const std::string& host, std::uint16_t port, const std::string& method, Answer answer) {
    const NetworkQuestion question{host, port, method};
    const std::string target = question.target();
    if (m_aborted)
        return answer({false, false, "the task has ended"});
    if (const auto refused = m_refused.find(target); refused != m_refused.end())
        return answer({false, false, refused->second});
    const auto waiting = std::find_if(m_waiting.begin(), m_waiting.end(),
                                      [&](const auto& entry) { return entry.second.target == target; });
    if (waiting != m_waiting.end()) {
        waiting->second.answers.push_back(std::move(answer));
        return;
    }
    if (m_waiting.size() >= kMaxWaiting)
        return answer({false, false,
                       "already " + std::to_string(kMaxWaiting) + " questions about other hosts wait for the user; " +
                           target + " is refused without asking"});
    ApprovalRecord record;
    record.taskId = m_settings.taskId;
    record.callId = networkQuestionId(m_settings.run, ++m_asked);
    record.tool = std::string(kNetworkTool);
    record.arguments = question.toJson().dump();
    record.reason = "the agent asks to reach " + target + " (" + method + "), which this task's --network ask does not list";
    record.requestedAt = now();
    auto* timer = new QTimer(this);
    timer->setSingleShot(true);
    const std::string callId = record.callId;
    connect(timer, &QTimer::timeout, this, [this, callId, target] {
        const std::string why = "no answer about " + target + " within " + seconds(m_settings.wait) +
                                "; refused for the rest of this task (list it in --network ask:HOST,... to "
                                "reach it without asking)";
        settle(callId, false, false, "timeout", "no answer within " + seconds(m_settings.wait), why);
    });
    m_waiting.emplace(callId, Waiting{record, target, {std::move(answer)}, timer});
    timer->start(m_settings.wait);
    emit asked(record);
}

bool NetworkQuestions::answer(const std::string& callId, bool approved, const std::string& note, bool always) {
    const auto waiting = m_waiting.find(callId);
    if (waiting == m_waiting.end())
        return false;
    const std::string why = "the user refused " + waiting->second.target + " for this task" +
                            (note.empty() ? std::string() : ": " + note);
    settle(callId, approved, always, "user", note, why);
    return true;
}

bool NetworkQuestions::isWaiting(const std::string& callId) const { return m_waiting.contains(callId); }

void NetworkQuestions::settle(const std::string& callId, bool approved, bool forTask, const std::string& by,
                              const std::string& note, const std::string& why) {
    const auto found = m_waiting.find(callId);
    if (found == m_waiting.end())
        return;
    Waiting waiting = std::move(found->second);
    m_waiting.erase(found);
    delete waiting.timer;
    if (!approved)
        m_refused[waiting.target] = why;
    waiting.record.approved = approved;
    waiting.record.decidedBy = by;
    waiting.record.note = approved && forTask ? "allowed for the rest of this task" : note;
    waiting.record.decidedAt = now();
    emit decided(waiting.record);
    for (const Answer& answer : waiting.answers)
        answer({approved, approved && forTask, approved ? std::string() : why});
}

void NetworkQuestions::abortAll() {
    if (m_aborted)
        return;
    m_aborted = true;
    auto waiting = std::exchange(m_waiting, {});
    for (auto& [callId, question] : waiting) {
        delete question.timer;
        for (const Answer& answer : question.answers)
            answer({false, false, "the task has ended"});
    }
}

} // namespace warren::control
