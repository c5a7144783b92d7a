#include "common/DirectoryNames.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace warren::files {

Result<std::vector<std::string>> directoryNames(int dir) {
    const int copy = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR* stream = copy >= 0 ? ::fdopendir(copy) : nullptr;
    if (stream == nullptr) {
        const int why = errno;
        if (copy >= 0)
            ::close(copy);
        return makeError(ErrorCode::System, std::string("cannot list a directory: ") + std::strerror(why));
    }
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* entry = ::readdir(stream)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..")
            names.push_back(name);
        errno = 0;
    }
    const int why = errno;
    ::closedir(stream);
    if (why != 0)
        return makeError(ErrorCode::System, std::string("cannot list a directory: ") + std::strerror(why));
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace warren::files
