#pragma once
// How a control plane answers a call that may wait (on a server, on the disk): later, never inside the call,
// on the thread the plane lives on. The face that asked goes on meanwhile: no nested event loop, no
// re-entry, a slow or dead server never freezes a window.
//
// within(face, f) drops the answer when the face is gone by then (a dialog closed, a window replaced).

#include "common/Result.h"

#include <QPointer>
#include <functional>
#include <utility>

namespace warren::control {

template <typename T> using Done = std::function<void(Result<T>)>;

template <typename F> auto within(QObject* face, F f) {
    return [face = QPointer<QObject>(face), f = std::move(f)](auto result) mutable {
        if (face)
            f(std::move(result));
    };
}

} // namespace warren::control
