#include "app/control/Demo.h"

#include "common/FileText.h"

#include <filesystem>
#include <string_view>
#include <sys/stat.h>

// resources/demo, embedded by control/CMakeLists.txt.
namespace warren::resources {
extern const std::string_view demoScriptText;
extern const std::string_view demoGreetText;
extern const std::string_view demoTestText;
extern const std::string_view demoReadmeText;
} // namespace warren::resources

namespace warren::control {

using namespace warren::resources;

Status writeDemo(const std::string& directory) {
    const std::filesystem::path root(directory);
    std::error_code error;
    std::filesystem::create_directories(root / "workspace", error);
    if (error)
        return makeError(ErrorCode::System, "cannot create " + (root / "workspace").string() + ": " + error.message());
    for (auto [name, text, mode] : {std::tuple{"script.json", demoScriptText, 0644},
                                    std::tuple{"workspace/greet.sh", demoGreetText, 0755},
                                    std::tuple{"workspace/test.sh", demoTestText, 0755},
                                    std::tuple{"workspace/README.md", demoReadmeText, 0644}})
        if (auto written = writeFileText(root / name, text, static_cast<mode_t>(mode)); !written)
            return written;
    return Ok{};
}

} // namespace warren::control
