#include "common/http/RequestHead.h"

namespace warren {

std::string formatRequest(const std::string& method, const std::string& host, const std::string& target,
                          const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body) {
    std::string request = method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
    for (const auto& [name, value] : headers)
        request += name + ": " + value + "\r\n";
    if (!body.empty() || method == "POST" || method == "PUT")
        request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    request += "\r\n";
    request += body;
    return request;
}

} // namespace warren
