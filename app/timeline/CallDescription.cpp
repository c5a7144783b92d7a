#include "app/timeline/CallDescription.h"

namespace warren::timeline {

using nlohmann::json;

namespace {

std::string firstLine(const std::string& text) {
    const auto end = text.find('\n');
    return end == std::string::npos ? text : text.substr(0, end) + " \xE2\x80\xA6"; // …
}

} // namespace

std::string stringArgument(const json& arguments, const char* name) {
    const auto it = arguments.find(name);
    return it != arguments.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string describeCall(const std::string& tool, const json& arguments) {
    const std::string path = stringArgument(arguments, "path");
    if (tool == "shell")
        return "$ " + firstLine(stringArgument(arguments, "command"));
    if (tool == "write_file")
        return "write " + path;
    if (tool == "edit_file")
        return "edit " + path;
    if (tool == "read_file")
        return "read " + path;
    if (tool == "list_files")
        return "list " + (path.empty() ? std::string(".") : path);
    if (tool == "search")
        return "search " + stringArgument(arguments, "pattern") + (path.empty() ? "" : " in " + path);
    if (tool == "memory_save")
        return "remember " + stringArgument(arguments, "key");
    if (tool == "memory_load")
        return "recall " + stringArgument(arguments, "key");
    if (tool == "memory_search")
        return "search memory for " + stringArgument(arguments, "query");
    return tool + " " + firstLine(arguments.dump(-1, ' ', false, json::error_handler_t::replace));
}

} // namespace warren::timeline
