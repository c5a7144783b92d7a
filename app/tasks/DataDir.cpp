#include "app/tasks/DataDir.h"

#include <QSaveFile>
#include <cstdlib>
#include <filesystem>

namespace warren::control {

namespace fs = std::filesystem;

Status DataDir::keepTaskFile(const std::string& taskId, const std::string& name, std::string_view text) const {
    const std::string path = taskFile(taskId, name);
    std::error_code error;
    fs::create_directories(taskDir(taskId), error);
    QSaveFile file(QString::fromStdString(path));
    if (error || !file.open(QIODevice::WriteOnly) ||
        file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()) ||
        !file.commit())
        return makeError(ErrorCode::System, "cannot write " + path + ": " +
                                                (error ? error.message() : file.errorString().toStdString()) +
                                                "; is the disk full?");
    return Ok{};
}

void DataDir::forgetTaskFile(const std::string& taskId, const std::string& name) const {
    std::error_code ignored;
    fs::remove(taskFile(taskId, name), ignored);
}

std::string DataDir::defaultRoot() {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/')
        return std::string(xdg) + "/warren";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : "/tmp") + "/.local/share/warren";
}

Result<DataDir> DataDir::prepare(const std::string& path, const std::vector<std::string>& subdirs) {
    std::error_code error;
    fs::create_directories(fs::path(path) / "tasks", error);
    for (const auto& subdir : subdirs)
        if (!error)
            fs::create_directories(fs::path(path) / subdir, error);
    if (error)
        return makeError(ErrorCode::System, "cannot create the data directory " + path + ": " + error.message() +
                                                "; pass another --data-dir");
    fs::permissions(path, fs::perms::owner_all, error);
    const std::string root = fs::canonical(path, error).string();
    if (error)
        return makeError(ErrorCode::System, "cannot resolve the data directory: " + error.message());
    return DataDir{root};
}

} // namespace warren::control
