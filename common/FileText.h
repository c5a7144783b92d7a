#pragma once
// A whole file read or written in one call: the one way the parts read a record, a script or a profile
// layer and write a small file. No locking and no atomic replacement (agent_core/state/AtomicFile does
// that, over these errors).

#include "common/Result.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <sys/types.h>

namespace warren {

// The whole file. ErrorCode::NotFound when it does not exist; the message names the file.
Result<std::string> readFileText(const std::filesystem::path& path);

// path created with mode (or truncated, its mode set to mode), text written whole. The message names the
// file and what to do when the disk is full, the file system read-only or the directory not writable.
Status writeFileText(const std::filesystem::path& path, std::string_view text, mode_t mode = 0644);

// "what: strerror(error)" and the hint for the errors a user can act on; NotFound for ENOENT, else System.
Error fileError(const std::string& what, int error);

} // namespace warren
