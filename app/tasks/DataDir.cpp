#include "app/tasks/DataDir.h"

#include <cstdlib>

namespace warren::control {

std::string DataDir::defaultRoot() {
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/')
        return std::string(xdg) + "/warren";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : "/tmp") + "/.local/share/warren";
}

} // namespace warren::control
