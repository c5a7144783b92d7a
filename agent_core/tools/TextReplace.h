#pragma once
// edit_file's change to a text, as data: where old_string occurs and the text with new_string in its place.
// The tool makes it on the file; an approval card shows it before (app/timeline/ApprovalPreview). Pure.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warren::agent {

struct TextReplace {
    std::vector<std::size_t> found; // where old occurs, without overlaps (as replace_all replaces them)
    std::string edited;             // text with replacement at each of them
    bool tooLarge = false;          // edited would be larger than maxBytes: it is left empty
};

TextReplace replaceText(std::string_view text, std::string_view old, std::string_view replacement,
                        std::size_t maxBytes = std::string::npos);

} // namespace warren::agent
