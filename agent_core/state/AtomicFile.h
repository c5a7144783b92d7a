#pragma once
// Files that survive a killed process: the new content is written whole to a temp file in the same
// directory and renamed over the target, so a reader sees the old content or the new, never a mix. Used by
// the checkpoint store and by the filesystem memory backend.

#include "common/Result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace warren::agent {

// Writes bytes to target atomically and returns the number written. durable also fdatasyncs the temp file
// before the rename and fsyncs the directory after it: rename alone is atomic against a killed process,
// the syncs are for power loss. mode applies when the target is created. On any error the temp file is
// removed and the target keeps its previous content; the message names the file and the reason, with what
// to do when the disk is full or the file size limit is reached.
Result<std::uint64_t> writeFileAtomically(const std::filesystem::path& target, std::string_view bytes,
                                          bool durable, mode_t mode = 0600);

// Whether name is a temp file of writeFileAtomically(dir / target), e.g. ".checkpoint.json.tmp-1f2e3d4c".
bool isTempFileOf(std::string_view name, std::string_view target);

// Removes the temp files a killed writer of target left behind; returns how many were removed.
std::size_t removeLeftoverTemps(const std::filesystem::path& target);

} // namespace warren::agent
