#pragma once
// A whole file read or written in one call: the one way the parts read a record, a script or a profile
// layer and write a small file. No locking and no atomic replacement (agent_core/state/AtomicFile does
// that, over these errors).

#include "common/Result.h"
#include "common/UniqueFd.h"

#include <cstdint>

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

// A file only its owner may read or write (a secret an operator gives a server, chmod 600), opened. The
// checks are of the opened file (fstat): through a symbolic link, of its target. The error says what is
// wrong, for the caller to name the file and its flag: "cannot open it (...)", "not a regular file", "group
// or others may read or write it (run chmod 600 on it)".
struct PrivateFile {
    UniqueFd fd;
    std::uint64_t size = 0;
};
Result<PrivateFile> openPrivateFile(const std::filesystem::path& path);

// "what: strerror(error)" and the hint for the errors a user can act on; NotFound for ENOENT, else System.
Error fileError(const std::string& what, int error);

} // namespace warren
