#include "app/control/Demo.h"

#include <filesystem>
#include <fstream>
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

namespace {

Status writeFile(const std::filesystem::path& path, std::string_view text, mode_t mode) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    file.close();
    if (!file || chmod(path.c_str(), mode) != 0)
        return makeError(ErrorCode::System, "cannot write the demo file " + path.string());
    return Ok{};
}

} // namespace

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
        if (auto written = writeFile(root / name, text, static_cast<mode_t>(mode)); !written)
            return written;
    return Ok{};
}

} // namespace warren::control
