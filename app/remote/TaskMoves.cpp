#include "app/remote/TaskMoves.h"

#include "app/control/LocalControlPlane.h"
#include "app/remote/RemoteControlPlane.h"
#include "app/remote/RemoteTaskHome.h"

#include <memory>

namespace warren::remote {

using control::Done;
using control::TaskRecord;
using nlohmann::json;

namespace {

// The task's change applied, then recorded here: the last steps of a move home.
void arriveHome(control::LocalControlPlane& local, RemoteControlPlane& server, const std::string& taskId,
                const std::string& workspace, wire::MoveOutAnswer moved, Done<TaskRecord> done) {
    server.events(taskId, 0,
                  [&local, &server, taskId, workspace, moved = std::move(moved),
                   done = std::move(done)](Result<std::vector<json>> events) mutable {
                      if (!events)
                          return done(events.error());
                      std::string lines;
                      for (const auto& event : *events)
                          lines += event.dump() + "\n";
                      server.applyChanges(
                          taskId, workspace,
                          [&local, &server, workspace, lines = std::move(lines), moved = std::move(moved),
                           done = std::move(done)](Result<control::ChangesPlan> applied) {
                              if (!applied)
                                  return done(applied.error());
                              done(local.arrive({moved.task, moved.was, moved.checkpoint, lines, workspace,
                                                 server.server().toStdString()}));
                          });
                  });
}

} // namespace

void moveToServer(control::LocalControlPlane& local, RemoteControlPlane& server, const std::string& taskId,
                  Done<TaskRecord> done) {
    auto leaving = local.leave(taskId);
    if (!leaving)
        return done(leaving.error());
    server.moveIn(std::make_shared<const control::LeavingTask>(std::move(*leaving)),
                  [&local, &server, taskId, done = std::move(done)](Result<TaskRecord> moved) {
                      if (!moved)
                          return done(makeError(moved.error().code,
                                                "task " + taskId + " stays here: " + moved.error().message));
                      if (auto recorded = local.recordMoved(taskId, server.server().toStdString(), moved->id);
                          !recorded)
                          return done(recorded.error());
                      done(std::move(moved));
                  });
}

void moveHome(control::LocalControlPlane& local, RemoteControlPlane& server, const std::string& taskId,
              const std::string& workspace, Done<TaskRecord> done) {
    if (auto here = local.task(taskId); !here || *here)
        return done(
            here ? makeError(ErrorCode::InvalidArgument, "task " + taskId + " is here already (" +
                                                             control::taskStatusName((*here)->status) + ")")
                 : here.error());
    auto home = loadTaskHome(local.dataDir().root, taskId);
    if (!home)
        return done(home.error());
    if (workspace.empty() && !*home)
        return done(
            makeError(ErrorCode::InvalidArgument, "task " + taskId +
                                                      " was not submitted from this data directory: name the "
                                                      "workspace its change goes to (--workspace DIR)"));
    const std::string into = workspace.empty() ? (*home)->workspace : workspace;
    const auto move = [&local, &server, taskId, into, done](bool again) {
        const auto moveOut = [&local, &server, taskId, into, done] {
            server.moveOut(taskId, [&local, &server, taskId, into, done](Result<wire::MoveOutAnswer> moved) {
                if (!moved)
                    return done(makeError(moved.error().code,
                                          "task " + taskId + " stays there: " + moved.error().message));
                arriveHome(local, server, taskId, into, std::move(*moved), done);
            });
        };
        if (again) // an earlier try marked it moved home: its change may be here already
            return moveOut();
        server.planChanges(taskId, into, [taskId, moveOut, done](Result<control::ChangesPlan> plan) {
            if (!plan)
                return done(plan.error());
            if (plan->conflicts.empty())
                return moveOut();
            std::string files;
            for (const auto& conflict : plan->conflicts)
                files += "\n  " + conflict.path + ": " + conflict.reason;
            done(makeError(ErrorCode::InvalidArgument,
                           "task " + taskId +
                               " stays there: files it changed were changed here since its "
                               "upload; move it into a fresh copy (--workspace DIR):" +
                               files));
        });
    };
    server.task(taskId, [taskId, move, done](const Result<std::optional<TaskRecord>>& there) {
        if (there && *there)
            return move((*there)->status == control::TaskStatus::Moved);
        done(there ? makeError(ErrorCode::NotFound, "no task " + taskId + " of yours there") : there.error());
    });
}

} // namespace warren::remote
