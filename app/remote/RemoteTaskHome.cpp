#include "app/remote/RemoteTaskHome.h"

#include "common/FileText.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace warren::remote {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path homeFile(const std::string& dataDir, const std::string& taskId) {
    return fs::path(dataDir) / "remote" / (taskId + ".json");
}

bool plainTaskId(const std::string& taskId) {
    return !taskId.empty() && taskId.size() <= 64 &&
           taskId.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
}

} // namespace

std::string taskScriptFile(const std::string& dataDir, const std::string& taskId) {
    return (fs::path(dataDir) / "remote" / (taskId + ".script.json")).string();
}

Status saveTaskHome(const std::string& dataDir, const std::string& taskId, const RemoteTaskHome& home) {
    if (!plainTaskId(taskId))
        return makeError(ErrorCode::InvalidArgument, "the server named a task \"" + taskId + "\", which is not a task id");
    const fs::path file = homeFile(dataDir, taskId);
    std::error_code error;
    fs::create_directories(file.parent_path(), error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + file.parent_path().string() + ": " + error.message());
    if (!home.script.is_null())
        if (auto written = writeFileText(taskScriptFile(dataDir, taskId), home.script.dump()); !written)
            return written.error();
    const fs::path temporary = file.string() + ".tmp";
    const json record = {{"server", home.server},     {"workspace", home.workspace}, {"upload", home.uploadId},
                         {"manifest", home.manifest}, {"script", home.script},       {"demo", home.demo}};
    if (auto written = writeFileText(temporary, record.dump()); !written)
        return written.error();
    fs::rename(temporary, file, error);
    if (error)
        return makeError(ErrorCode::System, "cannot write " + file.string() + ": " + error.message());
    return Ok{};
}

Result<std::optional<RemoteTaskHome>> loadTaskHome(const std::string& dataDir, const std::string& taskId) {
    if (!plainTaskId(taskId))
        return std::optional<RemoteTaskHome>();
    const auto text = readFileText(homeFile(dataDir, taskId));
    if (!text)
        return std::optional<RemoteTaskHome>();
    const json stored = json::parse(*text, nullptr, false);
    if (!stored.is_object() || !stored.value("workspace", json()).is_string())
        return makeError(ErrorCode::System, "the record of task " + taskId + " in " +
                                                homeFile(dataDir, taskId).string() +
                                                " does not read; remove it and apply with --workspace DIR");
    RemoteTaskHome home;
    home.server = stored.value("server", "");
    home.workspace = stored.value("workspace", "");
    home.uploadId = stored.value("upload", "");
    home.manifest = stored.value("manifest", json());
    home.script = stored.value("script", json());
    home.demo = stored.value("demo", false);
    return std::optional<RemoteTaskHome>(std::move(home));
}

} // namespace warren::remote
