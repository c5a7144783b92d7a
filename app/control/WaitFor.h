#pragma once
// For the command line and tests, which have nothing else to do while a plane answers: the answer of one of
// ControlPlane's calls, waited for in an event loop run at the top level. Inside a running event loop (a
// window, `warren run` following its task) the process stops with a message instead: a face waits by
// continuation (Done), never by re-entering its own loop.

#include "app/control/Done.h"

#include <QEventLoop>
#include <QThread>
#include <optional>

namespace warren::control {

// call receives the Done to pass on: waitFor<Ok>([&](auto done) { plane.cancel(id, done); }).
template <typename T, typename Call> Result<T> waitFor(Call&& call) {
    if (QThread::currentThread()->loopLevel() > 0)
        qFatal("waitFor inside a running event loop: answer through a continuation instead");
    std::optional<Result<T>> result;
    QEventLoop loop;
    call(Done<T>([&](Result<T> answer) {
        result.emplace(std::move(answer));
        loop.quit();
    }));
    if (!result)
        loop.exec();
    return std::move(*result);
}

} // namespace warren::control
