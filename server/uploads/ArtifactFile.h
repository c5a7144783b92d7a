#pragma once
// Reads a file a task left in its /output for GET /v1/tasks/{id}/artifacts/NAME. The task wrote that
// directory, and a later run of it may have replaced an artifact the record lists with anything: a FIFO
// (whose open for reading would wait for a writer forever, and whose read would hang the reader), a
// device, a socket, a symbolic link to /etc/passwd or to another user's file. So the file is opened
// beneath the output directory with no symlink anywhere on the way (openat2 RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS), O_NOFOLLOW and O_NONBLOCK (so opening a FIFO returns at once), then fstat'ed:
// anything but a regular file is refused without a byte read. A file larger than maxBytes is refused by
// its size, before it is read.

#include <cstddef>
#include <filesystem>
#include <string>

namespace warren::uploads {

struct ArtifactRead {
    enum class Outcome { Read, Missing, NotRegular, TooLarge, Failed };
    Outcome outcome = Outcome::Failed;
    std::string data;    // Read: the file's bytes
    std::string message; // otherwise: what a person is told
};

ArtifactRead readArtifact(const std::filesystem::path& outputDir, const std::string& name, std::size_t maxBytes);

} // namespace warren::uploads
