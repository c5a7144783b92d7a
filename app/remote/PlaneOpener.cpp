#include "app/remote/PlaneOpener.h"

#include "app/remote/PlaneChoice.h"
#include "app/remote/RemoteControlPlane.h"
#include "app/tasks/DataDir.h"

#include <QTimer>

namespace warren::remote {

using control::OpenedPlane;
using control::PlaneKind;

namespace {

// "1 task was" / "3 tasks were" and what, after the notice so far (none for count 0).
void addTasksNotice(std::string& notice, std::size_t count, const std::string& what) {
    if (count == 0)
        return;
    notice += (notice.empty() ? "" : " ") + std::to_string(count) + (count == 1 ? " task was " : " tasks were ") +
              what;
}

} // namespace

Result<OpenedPlane> openLocalPlane(const control::LocalOptions& local) {
    auto plane = control::LocalControlPlane::open(local);
    if (!plane)
        return plane.error();
    OpenedPlane opened;
    addTasksNotice(opened.notice, (*plane)->recovered().size(),
                   "running when Warren last stopped; marked interrupted, they can be resumed.");
    addTasksNotice(opened.notice, (*plane)->takenUp().size(),
                   "still queued when Warren last stopped; they start as slots free up.");
    opened.plane = std::move(*plane);
    return opened;
}

namespace {

// This machine's plane in place of the server's, saying why (why is empty when Local was chosen).
Result<OpenedPlane> openLocalInstead(const control::LocalOptions& local, const std::string& why) {
    auto opened = openLocalPlane(local);
    if (!opened || why.empty())
        return opened;
    // Working here, and saying so: the status bar's plane reads "local" too, so no task goes to this
    // machine thinking it went to the server.
    opened->notice = "Working on this computer: the server could not be used (" + why +
                     "). Settings → Control plane switches back." +
                     (opened->notice.empty() ? std::string() : " " + opened->notice);
    return opened;
}

} // namespace

void openChosenPlane(const control::LocalOptions& local, control::Done<OpenedPlane> done) {
    const std::string dataDir = local.dataDir.empty() ? control::DataDir::defaultRoot() : local.dataDir;
    auto choice = loadPlaneChoice(dataDir);
    if (!choice || choice->kind != PlaneKind::Remote) {
        const std::string why = choice ? std::string() : choice.error().message;
        QTimer::singleShot(0, [local, why, done] { done(openLocalInstead(local, why)); });
        return;
    }
    RemoteOptions options;
    options.url = QString::fromStdString(choice->url);
    options.dataDir = dataDir;
    options.useKeychain = local.useKeychain;
    RemoteControlPlane::open(std::move(options), [local, url = choice->url, done](auto plane) {
        if (plane)
            return done(OpenedPlane{std::move(*plane), {}, PlaneKind::Remote, url});
        done(openLocalInstead(local, plane.error().message));
    });
}

} // namespace warren::remote
