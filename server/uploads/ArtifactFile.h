#pragma once
// Reads a file a task left in its /output for GET /v1/tasks/{id}/artifacts/NAME. The task wrote that
// directory, and a later run of it may have replaced an artifact the record lists with anything (a FIFO, a
// device, a link to /etc/passwd): it is read by common/FileBeneath (beneath the directory, no symlink on the
// way, only a regular file, no larger than maxBytes), and what was refused is said as a server says it.

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
