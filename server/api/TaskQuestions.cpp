#include "server/api/TaskQuestions.h"

#include "app/tasks/TaskManager.h"

#include <QTimer>

namespace warren::server {

namespace {

// Calls ready(asked) at each question the task asks until it answers true, or done(false) after
// kQuestionWaitMs; done(true) when it did.
void untilAsked(control::TaskManager& manager, const std::string& taskId, std::function<bool()> ready,
                std::function<void(bool)> done) {
    auto* waiting = new QObject(&manager);
    QObject::connect(&manager, &control::TaskManager::approvalNeeded, waiting,
                     [waiting, taskId, ready, done](const control::ApprovalRecord& asked) {
                         if (asked.taskId != taskId || !ready())
                             return;
                         done(true);
                         waiting->deleteLater();
                     });
    QTimer::singleShot(kQuestionWaitMs, waiting, [waiting, done] {
        done(false);
        waiting->deleteLater();
    });
}

} // namespace

bool Answer::deliver(control::TaskManager& manager) const {
    return manager.answerApproval(taskId, callId, approved, note, always);
}

void deliverWhenAsked(control::TaskManager& manager, const Answer& answer, std::function<void(bool)> done) {
    if (answer.deliver(manager))
        return done(true);
    if (!manager.isActive(answer.taskId))
        return done(false);
    untilAsked(manager, answer.taskId, [&manager, answer] { return answer.deliver(manager); }, std::move(done));
}

void whenWaiting(control::TaskManager& manager, const std::string& taskId, const std::string& callId,
                 std::function<void(bool)> done) {
    if (manager.isWaiting(taskId, callId))
        return done(true);
    if (!manager.isActive(taskId))
        return done(false);
    untilAsked(manager, taskId, [&manager, taskId, callId] { return manager.isWaiting(taskId, callId); },
               std::move(done));
}

void serveReplicaRequest(control::TaskManager& manager, const std::string& taskId, const ReplicaRequest& request,
                         const ReplicaRequests::Done& done) {
    const auto answered = [done](bool yes) { done({yes, {}}); };
    switch (request.kind) {
    case ReplicaRequest::Kind::Answer:
        return deliverWhenAsked(manager, {taskId, request.callId, request.approved, request.note, request.always},
                                answered);
    case ReplicaRequest::Kind::Waiting:
        return whenWaiting(manager, taskId, request.callId, answered);
    case ReplicaRequest::Kind::Cancel:
        if (auto cancelled = manager.cancel(taskId, request.why); !cancelled)
            return done({false, cancelled.error().message});
        return done({true, {}});
    }
}

} // namespace warren::server
