// SecretVolume: the files of a secret volume (see the header).
#include "tests/support/SecretVolume.h"

#include "common/Base64.h"

#include <map>

namespace warren::test {

using nlohmann::json;

Result<std::vector<SecretFile>> secretVolumeFiles(const json& volumeSource, const json& secret) {
    std::map<std::string, std::string> values;
    if (secret.contains("data") && secret["data"].is_object()) {
        for (const auto& [key, encoded] : secret["data"].items()) {
            const auto decoded =
                encoded.is_string() ? decodeBase64(encoded.get<std::string>()) : std::nullopt;
            if (!decoded)
                return makeError(ErrorCode::InvalidArgument, "the Secret's data." + key + " is not base64");
            values[key] = *decoded;
        }
    }
    if (secret.contains("stringData") && secret["stringData"].is_object())
        for (const auto& [key, text] : secret["stringData"].items())
            if (text.is_string())
                values[key] = text.get<std::string>();

    const int defaultMode = volumeSource.value("defaultMode", 0644);
    std::vector<SecretFile> files;
    if (!volumeSource.contains("items")) {
        for (const auto& [key, content] : values)
            files.push_back({key, content, defaultMode});
        return files;
    }
    for (const auto& item : volumeSource["items"]) {
        const std::string key = item.value("key", "");
        const std::string path = item.value("path", "");
        const auto value = values.find(key);
        if (value == values.end())
            return makeError(ErrorCode::NotFound, "couldn't find key " + key + " in Secret " +
                                                      secret["metadata"].value("namespace", "") + "/" +
                                                      secret["metadata"].value("name", ""));
        // The API server refuses these; the double does not validate, so the kubelet double does.
        if (path.empty() || path.starts_with('/') || path == ".." || path.starts_with("../") ||
            path.find("/../") != std::string::npos || path.ends_with("/.."))
            return makeError(ErrorCode::InvalidArgument, "item path \"" + path +
                                                             "\" is not a relative path "
                                                             "inside the volume");
        files.push_back({path, value->second, item.value("mode", defaultMode)});
    }
    return files;
}

} // namespace warren::test
