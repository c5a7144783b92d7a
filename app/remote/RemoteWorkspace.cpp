#include "app/remote/RemoteWorkspace.h"

#include "app/remote/PatchApply.h"
#include "app/remote/RemoteClient.h"
#include "app/remote/RemoteTaskHome.h"
#include "app/remote/WorkspacePack.h"

#include <QFile>
#include <QUrl>
#include <QUuid>
#include <filesystem>

namespace warren::remote {

namespace fs = std::filesystem;

Result<Uploaded> uploadWorkspace(RemoteClient& client, const std::string& workspace, const std::string& scratchDir,
                                 std::uint64_t maxBytes) {
    const fs::path tar = fs::path(scratchDir) / ("upload-" + QUuid::createUuid().toString(QUuid::Id128).toStdString() + ".tar");
    PackOptions options;
    options.maxBytes = maxBytes;
    auto packed = packWorkspace(workspace, tar, options);
    if (!packed)
        return packed.error();
    QFile body(QString::fromStdString(tar.string()));
    if (!body.open(QIODevice::ReadOnly)) {
        fs::remove(tar);
        return makeError(ErrorCode::System, "cannot read back the packed workspace " + tar.string());
    }
    auto answer = client.upload("/v1/uploads", &body);
    body.close();
    fs::remove(tar);
    if (!answer)
        return Error{answer.error().code, "the upload of " + workspace + " failed: " + answer.error().message};
    const auto id = answer->find("id");
    if (id == answer->end() || !id->is_string())
        return makeError(ErrorCode::System, "warrend's answer to the upload has no id");
    return Uploaded{id->get<std::string>(), packed->manifest.toJson()};
}

Result<control::ChangesPlan> bringChangesHome(RemoteClient& client, const std::string& dataDir,
                                              const std::string& taskId, const std::string& workspace,
                                              ApplyMode mode) {
    const QString path = "/v1/tasks/" + QString::fromUtf8(QUrl::toPercentEncoding(QString::fromStdString(taskId)));
    auto task = client.callJson("GET", path);
    if (!task)
        return task.error();
    const std::string status = task->value("status", "");
    if (status == "queued" || status == "running")
        return makeError(ErrorCode::InvalidArgument, "task " + taskId + " is still " + status +
                                                         ": its change is final once it has ended");
    auto home = loadTaskHome(dataDir, taskId);
    if (!home)
        return home.error();
    if (workspace.empty() && !*home)
        return makeError(ErrorCode::InvalidArgument,
                         "task " + taskId + " was not submitted from this machine's data directory: name the "
                                            "workspace to apply it to with --workspace DIR");
    const std::string target = workspace.empty() ? (*home)->workspace : workspace;
    WorkspaceManifest manifest;
    if (*home) {
        auto read = WorkspaceManifest::fromJson((*home)->manifest);
        if (!read)
            return read.error();
        manifest = std::move(*read);
    }
    auto patch = client.call("GET", path + "/patch");
    if (!patch)
        return patch.error();
    return bringPatchHome(patch->toStdString(), target, *home ? &manifest : nullptr, mode);
}

} // namespace warren::remote
