#include "app/remote/RemoteWorkspace.h"

#include "app/control/OffThread.h"
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

namespace {

struct Packed {
    fs::path tar;
    nlohmann::json manifest;
};

} // namespace

void uploadWorkspace(RemoteClient& client, const std::string& workspace, const std::string& scratchDir,
                     std::uint64_t maxBytes, QObject* context, control::Done<Uploaded> done) {
    const fs::path tar = fs::path(scratchDir) / ("upload-" + QUuid::createUuid().toString(QUuid::Id128).toStdString() + ".tar");
    auto pack = [workspace, tar, maxBytes]() -> Result<Packed> {
        PackOptions options;
        options.maxBytes = maxBytes;
        auto packed = packWorkspace(workspace, tar, options);
        if (!packed)
            return packed.error();
        return Packed{tar, packed->manifest.toJson()};
    };
    control::offThread<Packed>(context, pack, [&client, context, workspace, done = std::move(done)](Result<Packed> packed) {
        if (!packed)
            return done(packed.error());
        auto body = std::make_unique<QFile>(QString::fromStdString(packed->tar.string()));
        if (!body->open(QIODevice::ReadOnly)) {
            fs::remove(packed->tar);
            return done(makeError(ErrorCode::System, "cannot read back the packed workspace " + packed->tar.string()));
        }
        client.upload("/v1/uploads", std::move(body), context,
                      [workspace, tar = packed->tar, manifest = packed->manifest, done](Result<nlohmann::json> answer, int) {
                          std::error_code ignored;
                          fs::remove(tar, ignored);
                          if (!answer)
                              return done(Error{answer.error().code,
                                                "the upload of " + workspace + " failed: " + answer.error().message});
                          const auto id = answer->find("id");
                          if (id == answer->end() || !id->is_string())
                              return done(makeError(ErrorCode::System, "warrend's answer to the upload has no id"));
                          done(Uploaded{id->get<std::string>(), manifest});
                      });
    });
}

namespace {

// What the task's change would do to target, or does (mode), from the patch the server sent.
// Without the upload's manifest (a task submitted elsewhere) the patch's pre-images stand for it.
Result<control::ChangesPlan> applyHere(const QByteArray& patch, const std::string& target,
                                       const std::optional<WorkspaceManifest>& manifest, ApplyMode mode) {
    const std::string_view text(patch.constData(), static_cast<std::size_t>(patch.size()));
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

// Where the change of a task that has ended goes, and what was uploaded, or why it cannot come home.
struct Destination {
    std::string target;
    std::optional<WorkspaceManifest> manifest; // what was uploaded, when the task was submitted from here
};

Result<Destination> destination(const nlohmann::json& answer, const std::string& dataDir, const std::string& taskId,
                                const std::string& workspace) {
    auto task = taskFromJson(answer);
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
    return Destination{target, std::move(manifest)};
}

} // namespace

void bringChangesHome(RemoteClient& client, const std::string& dataDir, const std::string& taskId,
                      const std::string& workspace, ApplyMode mode, QObject* context,
                      control::Done<control::ChangesPlan> done) {
    const QString path = "/v1/tasks/" + QString::fromUtf8(QUrl::toPercentEncoding(QString::fromStdString(taskId)));
    client.sendJson("GET", path, nullptr, {}, context,
                    [&client, dataDir, taskId, workspace, mode, context, path,
                     done = std::move(done)](Result<nlohmann::json> answer, int) {
                        if (!answer)
                            return done(answer.error());
                        auto where = destination(*answer, dataDir, taskId, workspace);
                        if (!where)
                            return done(where.error());
                        client.send("GET", path + "/patch", {}, {}, context,
                                    [where = std::move(*where), mode, context, done](Result<QByteArray> patch, int) {
                                        if (!patch)
                                            return done(patch.error());
                                        control::offThread<control::ChangesPlan>(
                                            context,
                                            [patch = *patch, where, mode] {
                                                return applyHere(patch, where.target, where.manifest, mode);
                                            },
                                            done);
                                    });
                    });
}

} // namespace warren::remote
