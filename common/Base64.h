#pragma once
// Standard base64 (RFC 4648 §4, with padding): a kubeconfig's *-data fields, and the tar chunks of the
// protocol's workspace.pull and workspace.push, which carry bytes in JSON strings.

#include <optional>
#include <string>
#include <string_view>

namespace warren {

std::string encodeBase64(std::string_view bytes);

// nullopt on a character outside the alphabet. Padding and line breaks (a kubeconfig's wrapped data) are
// skipped.
std::optional<std::string> decodeBase64(std::string_view text);

} // namespace warren
