#pragma once
// Reads a file in a directory that someone else writes (a task's output, a workspace the agent writes), by a
// name that someone else chose. The directory may hold anything by then: a FIFO (whose open for reading
// would wait for a writer forever), a device, a socket, a symbolic link to /etc/passwd or to another user's
// file. So the file is opened beneath the directory with no symlink anywhere on the way (openat2
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), O_NOFOLLOW and O_NONBLOCK (so opening a FIFO returns at once), then
// fstat'ed: anything but a regular file is refused without a byte read. A file larger than maxBytes is
// refused by its size, before it is read. Each caller words the outcome for its reader.

#include <cstddef>
#include <filesystem>
#include <string>
#include <sys/types.h>

namespace warren {

struct BeneathRead {
    enum class Outcome {
        Read,       // data holds the file
        Missing,    // no such file (or the directory is missing)
        NotRegular, // mode says what it is; or a link on the way, or a socket or device that cannot be opened
        Outside,    // the name leads out of the directory
        TooLarge,   // larger than maxBytes
        Failed,     // error says why
    };
    Outcome outcome = Outcome::Failed;
    std::string data;
    mode_t mode = 0; // NotRegular after the open: what it is (0 when the open itself was refused)
    int error = 0;   // errno of the failed call
};

BeneathRead readFileBeneath(const std::filesystem::path& dir, const std::string& name, std::size_t maxBytes);

// "a FIFO", "a device", "a socket", "a directory", "a symbolic link", "not a regular file".
const char* fileKindName(mode_t mode);

} // namespace warren
