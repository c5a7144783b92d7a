#include "app/remote/PlaneOpener.h"

#include "app/remote/PlaneChoice.h"
#include "app/remote/RemoteControlPlane.h"
#include "app/tasks/DataDir.h"

namespace warren::remote {

using control::OpenedPlane;
using control::PlaneKind;

Result<OpenedPlane> openLocalPlane(const control::LocalOptions& local) {
    auto plane = control::LocalControlPlane::open(local);
    if (!plane)
        return plane.error();
    OpenedPlane opened;
    if (const std::size_t recovered = (*plane)->recovered().size(); recovered > 0)
        opened.notice = std::to_string(recovered) + (recovered == 1 ? " task was" : " tasks were") +
                        " running when Warren last stopped; marked interrupted, they can be resumed.";
    opened.plane = std::move(*plane);
    return opened;
}

Result<OpenedPlane> openChosenPlane(const control::LocalOptions& local) {
    const std::string dataDir = local.dataDir.empty() ? control::DataDir::defaultRoot() : local.dataDir;
    auto choice = loadPlaneChoice(dataDir);
    std::string why;
    if (!choice) {
        why = choice.error().message;
    } else if (choice->kind == PlaneKind::Remote) {
        RemoteOptions options;
        options.url = QString::fromStdString(choice->url);
        options.dataDir = dataDir;
        options.useKeychain = local.useKeychain;
        auto plane = RemoteControlPlane::open(std::move(options));
        if (plane)
            return OpenedPlane{std::move(*plane), {}, PlaneKind::Remote, choice->url};
        why = plane.error().message;
    }
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

} // namespace warren::remote
