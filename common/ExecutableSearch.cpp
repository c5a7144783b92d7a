#include "common/ExecutableSearch.h"

#include <algorithm>
#include <system_error>
#include <unistd.h>

namespace warren {

bool isExecutableFile(const std::filesystem::path& file) {
    std::error_code error;
    return std::filesystem::is_regular_file(file, error) && ::access(file.c_str(), X_OK) == 0;
}

std::optional<std::filesystem::path> findExecutableOnPath(std::string_view name,
                                                          std::string_view searchPath) {
    if (name.empty() || name.find('/') != std::string_view::npos)
        return std::nullopt;
    for (std::size_t from = 0; from <= searchPath.size();) {
        const std::size_t end = std::min(searchPath.find(':', from), searchPath.size());
        const std::filesystem::path dir(searchPath.substr(from, end - from));
        from = end + 1;
        if (dir.is_absolute())
            if (const auto candidate = dir / name; isExecutableFile(candidate))
                return candidate;
    }
    return std::nullopt;
}

} // namespace warren
