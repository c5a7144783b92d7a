#pragma once
// OpenSSL's error queue as one line ("error:...; error:..."), emptied; empty when it holds nothing. Header
// only: whoever includes it links OpenSSL's libcrypto already.

#include <openssl/err.h>
#include <string>

namespace warren {

inline std::string openSslErrors() {
    std::string text;
    while (const unsigned long code = ERR_get_error()) {
        char buffer[256];
        ERR_error_string_n(code, buffer, sizeof buffer);
        if (!text.empty())
            text += "; ";
        text += buffer;
    }
    return text;
}

} // namespace warren
