#pragma once
// SecretVolume: the files a kubelet writes for a secret volume, decided without touching the host, for the
// kubelet DOUBLE (tests/support/KubeletDouble). Pure, so its rules are tested row by row.
//
// As a kubelet does: every key of the Secret becomes a file of that name, or, when the volume lists
// `items`, only those keys, each at its `path`; the mode is the item's `mode`, else the volume's
// `defaultMode`, else 0644. The Secret is read as the API server double stored it, which keeps
// `stringData` as sent (a real API server merges it into `data`): both are read, and stringData wins, as
// it does on a real server. Not done: the kubelet's ..data symlink swap, updates, `optional`.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::test {

struct SecretFile {
    std::string path; // relative to the volume's directory
    std::string content;
    int mode = 0644;
};

// `volumeSource` is the volume's "secret" member; `secret` the Secret object.
Result<std::vector<SecretFile>> secretVolumeFiles(const nlohmann::json& volumeSource,
                                                  const nlohmann::json& secret);

} // namespace warren::test
