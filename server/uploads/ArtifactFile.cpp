#include "server/uploads/ArtifactFile.h"

#include "common/FileBeneath.h"

#include <cerrno>
#include <cstring>

namespace warren::uploads {

namespace {

using Outcome = ArtifactRead::Outcome;

ArtifactRead problem(Outcome outcome, std::string message) {
    ArtifactRead read;
    read.outcome = outcome;
    read.message = std::move(message);
    return read;
}

} // namespace

ArtifactRead readArtifact(const std::filesystem::path& outputDir, const std::string& name, std::size_t maxBytes) {
    const std::string quoted = "artifact \"" + name + "\"";
    BeneathRead read = readFileBeneath(outputDir, name, maxBytes);
    switch (read.outcome) {
    case BeneathRead::Outcome::Read: {
        ArtifactRead artifact;
        artifact.outcome = Outcome::Read;
        artifact.data = std::move(read.data);
        return artifact;
    }
    case BeneathRead::Outcome::Missing: {
        std::error_code error;
        return problem(Outcome::Missing,
                       std::filesystem::is_directory(std::filesystem::symlink_status(outputDir, error))
                           ? quoted + " is no longer in the task's output"
                           : "the task left no output");
    }
    case BeneathRead::Outcome::NotRegular:
        if (read.mode != 0)
            return problem(Outcome::NotRegular,
                           quoted + " is " + fileKindName(read.mode) + "; only regular files are served");
        if (read.error == ELOOP)
            return problem(Outcome::NotRegular, quoted + " is (or goes through) a symbolic link; only regular "
                                                         "files are served");
        return problem(Outcome::NotRegular,
                       quoted + " is a socket or a device; only regular files are served");
    case BeneathRead::Outcome::Outside:
        return problem(Outcome::NotRegular,
                       quoted + " leads out of the task's output; only files in it are served");
    case BeneathRead::Outcome::TooLarge:
        return problem(Outcome::TooLarge, quoted + " is larger than the " + std::to_string(maxBytes) +
                                              " bytes this server serves");
    case BeneathRead::Outcome::Failed:
        break;
    }
    return problem(Outcome::Failed, quoted + " cannot be read: " + std::strerror(read.error));
}

} // namespace warren::uploads
