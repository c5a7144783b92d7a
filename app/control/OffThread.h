#pragma once
// Disk work a plane's call needs (packing a workspace, applying a patch, git in a task's shadow repository)
// run on a thread pool (Qt's, or one the plane owns and waits for when it goes), its result handed to done
// on the main thread, unless context (which lives there) is gone by then: the event loop the faces live on
// goes on meanwhile. work must touch nothing the calling thread uses at the same time. When context is gone,
// the result is dropped on the main thread (whatever it holds is released there).

#include "app/control/Done.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QThreadPool>
#include <memory>

namespace warren::control {

template <typename T, typename Work> void offThread(QThreadPool& pool, QObject* context, Work work, Done<T> done) {
    // The answer crosses back through the application object, on the thread the context lives on (the
    // main thread, where the planes live), and the context is looked at only there: a QPointer read on the
    // pool's thread could race the context's deletion.
    pool.start([context = QPointer<QObject>(context), work = std::move(work), done = std::move(done)]() mutable {
        auto result = std::make_shared<Result<T>>(work());
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [context, result = std::move(result), done = std::move(done)]() mutable {
                if (context)
                    done(std::move(*result));
            },
            Qt::QueuedConnection);
    });
}

template <typename T, typename Work> void offThread(QObject* context, Work work, Done<T> done) {
    offThread<T>(*QThreadPool::globalInstance(), context, std::move(work), std::move(done));
}

} // namespace warren::control
