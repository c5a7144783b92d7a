#pragma once
// Disk work a plane's call needs (packing a workspace, applying a patch) run on Qt's thread pool, its result
// handed to done on context's thread: the event loop the faces live on goes on meanwhile. work must touch
// nothing the calling thread uses at the same time.

#include "app/control/Done.h"

#include <QMetaObject>
#include <QThreadPool>
#include <memory>

namespace warren::control {

template <typename T, typename Work> void offThread(QObject* context, Work work, Done<T> done) {
    QThreadPool::globalInstance()->start([context = QPointer<QObject>(context), work = std::move(work),
                                          done = std::move(done)]() mutable {
        auto result = std::make_shared<Result<T>>(work());
        QObject* target = context.data();
        if (!target)
            return;
        // Queued onto context's thread; dropped there if context went meanwhile.
        QMetaObject::invokeMethod(target, [result, done = std::move(done)]() mutable { done(std::move(*result)); },
                                  Qt::QueuedConnection);
    });
}

} // namespace warren::control
