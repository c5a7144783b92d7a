#include "app/timeline/CommandPrefix.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace warren::control {

bool hasShellOperators(std::string_view command) {
    for (std::size_t i = 0; i < command.size(); ++i) {
        const char c = command[i];
        if (c == ';' || c == '&' || c == '|' || c == '`' || c == '>' || c == '<')
            return true;
        if (c == '$' && i + 1 < command.size() && (command[i + 1] == '(' || command[i + 1] == '{'))
            return true;
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') // newline, carriage return, NUL, escapes
            return true;
    }
    return false;
}

std::optional<std::string> commandPrefix(std::string_view command) {
    if (hasShellOperators(command))
        return std::nullopt;
    std::vector<std::string_view> tokens;
    for (std::size_t at = 0; at < command.size() && tokens.size() < 2;) {
        const std::size_t start = command.find_first_not_of(" \t", at);
        if (start == std::string_view::npos)
            break;
        const std::size_t end = std::min(command.find_first_of(" \t", start), command.size());
        tokens.push_back(command.substr(start, end - start));
        at = end;
    }
    const auto plain = [](std::string_view token) {
        return std::all_of(token.begin(), token.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) ||
                   std::string_view("._+-/:@%,").find(c) != std::string_view::npos;
        });
    };
    const auto subcommand = [](std::string_view token) {
        return std::islower(static_cast<unsigned char>(token.front())) &&
               std::all_of(token.begin(), token.end(), [](char c) {
                   return std::islower(static_cast<unsigned char>(c)) ||
                          std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '-';
               });
    };
    if (tokens.empty() || !plain(tokens[0]) || tokens[0].front() == '-')
        return std::nullopt;
    std::string prefix(tokens[0]);
    if (tokens.size() == 2 && subcommand(tokens[1]))
        prefix += " " + std::string(tokens[1]);
    return prefix;
}

std::optional<std::string> callCommandPrefix(std::string_view tool, const nlohmann::json& arguments) {
    if (tool != "shell" || !arguments.is_object())
        return std::nullopt;
    const auto command = arguments.find("command");
    if (command == arguments.end() || !command->is_string())
        return std::nullopt;
    return commandPrefix(command->get_ref<const std::string&>());
}

} // namespace warren::control
