#include "app/remote/PlaneChoice.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>

namespace warren::remote {

using control::PlaneChoice;
using control::PlaneKind;
using nlohmann::json;

namespace {

Error unreadable(const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, std::string(kPlaneChoiceFile) + " " + why +
                                                     ": choose Local or Remote again in Settings");
}

std::string path(const std::string& dataDir) {
    return dataDir + "/" + kPlaneChoiceFile;
}

} // namespace

Result<PlaneChoice> parsePlaneChoice(const std::string& text) {
    const json value = json::parse(text, nullptr, false);
    if (!value.is_object())
        return unreadable("is not a JSON object");
    const auto plane = value.find("plane");
    if (plane == value.end() || !plane->is_string())
        return unreadable("names no \"plane\" (\"local\" or \"remote\")");
    PlaneChoice choice;
    if (*plane == "local")
        choice.kind = PlaneKind::Local;
    else if (*plane == "remote")
        choice.kind = PlaneKind::Remote;
    else
        return unreadable("names the plane \"" + plane->get<std::string>() +
                          "\", not \"local\" or \"remote\"");
    if (const auto url = value.find("url"); url != value.end()) {
        if (!url->is_string())
            return unreadable("has a \"url\" that is not text");
        choice.url = url->get<std::string>();
    }
    if (choice.kind == PlaneKind::Remote && choice.url.empty())
        return unreadable("chooses a remote plane without its \"url\"");
    return choice;
}

std::string planeChoiceText(const PlaneChoice& choice) {
    json value{{"plane", choice.kind == PlaneKind::Remote ? "remote" : "local"}};
    if (!choice.url.empty())
        value["url"] = choice.url;
    return value.dump(2) + "\n";
}

Result<PlaneChoice> loadPlaneChoice(const std::string& dataDir) {
    QFile file(QString::fromStdString(path(dataDir)));
    if (!file.exists())
        return PlaneChoice{};
    if (!file.open(QIODevice::ReadOnly))
        return makeError(ErrorCode::System,
                         "cannot read " + path(dataDir) + ": " + file.errorString().toStdString());
    return parsePlaneChoice(file.readAll().toStdString());
}

Status savePlaneChoice(const std::string& dataDir, const PlaneChoice& choice) {
    if (!QDir().mkpath(QString::fromStdString(dataDir)))
        return makeError(ErrorCode::System, "cannot create the data directory " + dataDir);
    QSaveFile file(QString::fromStdString(path(dataDir)));
    const QByteArray text = QByteArray::fromStdString(planeChoiceText(choice));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
        return makeError(ErrorCode::System, "cannot write " + path(dataDir) + ": " +
                                                file.errorString().toStdString() + "; is the disk full?");
    return Ok{};
}

} // namespace warren::remote
