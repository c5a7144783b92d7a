#pragma once
// SHA-256 in lowercase hex: how the account store keeps API keys and request bodies it only compares.

#include <string>
#include <string_view>

namespace warren::accounts {

std::string sha256Hex(std::string_view bytes);

} // namespace warren::accounts
