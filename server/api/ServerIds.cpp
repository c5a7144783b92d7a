#include "server/api/ServerIds.h"

#include <QRandomGenerator>

namespace warren::server {

std::string newUploadId() {
    static const char* digits = "0123456789abcdef";
    std::string id = "u-";
    for (int i = 0; i < 16; ++i)
        id += digits[QRandomGenerator::system()->bounded(16)];
    return id;
}

} // namespace warren::server
