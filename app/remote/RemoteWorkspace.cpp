#include "app/remote/RemoteWorkspace.h"

#include "app/remote/PatchApply.h"
#include "app/remote/RemoteClient.h"
#include "app/remote/RemoteTaskHome.h"
#include "app/remote/RemoteTaskJson.h"
#include "app/remote/WorkspacePack.h"

#include <QFile>
#include <QUrl>
#include <QUuid>
#include <filesystem>
#include <optional>

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
    auto answer = client.callJson("GET", path);
    if (!answer)
        return answer.error();
    auto task = taskFromJson(*answer);
    if (!task)
        return task.error();
    if (task->status == control::TaskStatus::Queued || task->status == control::TaskStatus::Running)
        return makeError(ErrorCode::InvalidArgument, "task " + taskId + " is still " +
                                                         control::taskStatusName(task->status) +
                                                         ": its change is final once it has ended");
    auto home = loadTaskHome(dataDir, taskId);
    if (!home)
        return home.error();
    // Submitted from another data directory or computer: the workspace is the user's to name, and the
    // patch's pre-images stand for the upload's manifest.
    if (!*home && workspace.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "task " + taskId + " was submitted from another computer or data directory than " + dataDir +
                             ", so where its change goes is not known here: name the workspace with --workspace DIR");
    std::optional<WorkspaceManifest> manifest;
    if (*home) {
        auto read = WorkspaceManifest::fromJson((*home)->manifest);
        if (!read)
            return read.error();
        manifest = std::move(*read);
    }
    const std::string target = workspace.empty() ? (*home)->workspace : workspace;
    std::error_code error;
    if (!fs::is_directory(target, error))
        return makeError(ErrorCode::InvalidArgument, "the workspace " + target + " is not a directory");
    auto patch = client.call("GET", path + "/patch");
    if (!patch)
        return patch.error();
    const std::string_view text(patch->constData(), static_cast<std::size_t>(patch->size()));
    const bool apply = mode == ApplyMode::Apply;
    auto plan = manifest ? (apply ? applyPatch(text, target, *manifest) : planPatch(text, target, *manifest))
                         : (apply ? applyPatch(text, target) : planPatch(text, target));
    if (!plan)
        return plan.error();
    control::ChangesPlan changes;
    for (const auto& file : plan->apply)
        changes.applied.push_back(file.path);
    for (const auto& conflict : plan->conflicts)
        changes.conflicts.push_back({conflict.path, conflict.reason});
    return changes;
}

} // namespace warren::remote
