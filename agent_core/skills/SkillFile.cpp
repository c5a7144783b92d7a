#include "agent_core/skills/SkillFile.h"

#include "agent_core/skills/FrontMatter.h"
#include "agent_core/tools/ToolText.h"
#include "common/Utf8.h"

#include <algorithm>

namespace warren::agent {

namespace {

constexpr std::size_t kShownBytes = 80; // of a value quoted back in a message

Error invalid(std::string message) {
    return makeError(ErrorCode::InvalidArgument, std::move(message));
}

std::string_view trimmedText(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\n");
    if (first == std::string_view::npos)
        return {};
    return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

std::size_t characters(std::string_view utf8) {
    return std::size_t(std::count_if(utf8.begin(), utf8.end(),
                                     [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

bool isControl(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7F;
}

Result<std::string> checkedName(const FrontMatter& matter) {
    auto value = matter.text("name");
    if (!value)
        return value.error();
    if (!*value)
        return invalid("no \"name\" in the front matter");
    const std::string& name = **value;
    if (name.empty())
        return invalid("\"name\" is empty");
    if (name.size() > kMaxSkillNameBytes)
        return invalid("\"name\" is longer than " + std::to_string(kMaxSkillNameBytes) + " characters (" +
                       std::to_string(name.size()) + ")");
    if (!isValidSkillName(name))
        return invalid("\"name\" must be lowercase letters, digits and hyphens, got \"" +
                       shortenLine(validUtf8(name), kShownBytes) + "\"");
    return name;
}

Result<std::string> checkedDescription(const FrontMatter& matter) {
    auto value = matter.text("description");
    if (!value)
        return value.error();
    if (!*value)
        return invalid(
            "no \"description\" in the front matter: the model would not know when to use the skill");
    const std::string_view description = trimmedText(**value);
    if (description.empty())
        return invalid("\"description\" is empty");
    if (firstInvalidUtf8(description))
        return invalid("\"description\" is not valid UTF-8");
    if (const auto count = characters(description); count > kMaxSkillDescriptionCharacters)
        return invalid("\"description\" is longer than " + std::to_string(kMaxSkillDescriptionCharacters) +
                       " characters (" + std::to_string(count) + ")");
    if (std::any_of(description.begin(), description.end(), isControl))
        return invalid("\"description\" holds a control character");
    return std::string(description);
}

} // namespace

Result<SkillDocument> parseSkillFile(std::string_view text) {
    if (text.size() > kMaxSkillFileBytes)
        return invalid("larger than " + std::to_string(kMaxSkillFileBytes / 1024) + " KiB (" +
                       std::to_string(text.size()) + " bytes)");
    if (text.find('\0') != std::string_view::npos)
        return invalid("it holds NUL bytes: not a text file");
    auto matter = FrontMatter::read(text);
    if (!matter)
        return matter.error();
    SkillDocument document;
    auto name = checkedName(*matter);
    if (!name)
        return name.error();
    auto description = checkedDescription(*matter);
    if (!description)
        return description.error();
    document.name = std::move(name).value();
    document.description = std::move(description).value();
    document.body = matter->body();
    return document;
}

} // namespace warren::agent
