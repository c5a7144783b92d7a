#include "sandbox/cluster/client/HttpWire.h"

#include <algorithm>
#include <cctype>

namespace warren::kube {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

Error malformed(const std::string& what) {
    return makeError(ErrorCode::Unavailable, "the API server's answer is not HTTP/1.1: " + what);
}

} // namespace

std::string formatRequest(const std::string& method, const std::string& host, const std::string& path,
                          const std::vector<std::pair<std::string, std::string>>& headers,
                          const std::string& body) {
    std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n";
    for (const auto& [name, value] : headers)
        request += name + ": " + value + "\r\n";
    if (!body.empty() || method == "POST" || method == "PUT")
        request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    request += "\r\n";
    request += body;
    return request;
}

Result<ResponseHead> parseResponseHead(std::string_view head) {
    ResponseHead parsed;
    const auto lineEnd = head.find("\r\n");
    const std::string_view statusLine = head.substr(0, lineEnd);
    if (statusLine.size() < 12 || statusLine.substr(0, 7) != "HTTP/1." || statusLine[8] != ' ')
        return malformed("status line \"" + std::string(statusLine.substr(0, 80)) + "\"");
    const std::string_view code = statusLine.substr(9, 3);
    if (!std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return malformed("status \"" + std::string(code) + "\"");
    parsed.status = (code[0] - '0') * 100 + (code[1] - '0') * 10 + (code[2] - '0');
    if (statusLine.size() > 13)
        parsed.reasonPhrase = std::string(statusLine.substr(13));
    std::size_t position = lineEnd == std::string_view::npos ? head.size() : lineEnd + 2;
    while (position < head.size()) {
        auto end = head.find("\r\n", position);
        if (end == std::string_view::npos)
            end = head.size();
        const std::string_view line = head.substr(position, end - position);
        position = end + 2;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return malformed("header line \"" + std::string(line.substr(0, 80)) + "\"");
        parsed.headers[lower(std::string(line.substr(0, colon)))] = std::string(trim(line.substr(colon + 1)));
    }
    if (const auto te = parsed.headers.find("transfer-encoding"); te != parsed.headers.end())
        parsed.chunked = lower(te->second).find("chunked") != std::string::npos;
    if (const auto length = parsed.headers.find("content-length"); length != parsed.headers.end() && !parsed.chunked) {
        const std::string& value = length->second;
        if (value.empty() || value.size() > 12 ||
            !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return malformed("Content-Length \"" + value + "\"");
        parsed.contentLength = static_cast<std::size_t>(std::stoull(value));
    }
    return parsed;
}

Result<bool> ChunkedDecoder::feed(std::string& input, std::string& output) {
    std::size_t used = 0;
    for (;;) {
        if (m_state == State::Done)
            break;
        if (m_state == State::Data) {
            const std::size_t take = std::min(m_remaining, input.size() - used);
            output.append(input, used, take);
            used += take;
            m_remaining -= take;
            if (m_remaining > 0)
                break;
            m_state = State::DataEnd;
            continue;
        }
        const auto end = input.find("\r\n", used);
        if (end == std::string::npos) {
            if (input.size() - used > 4096) {
                input.erase(0, used);
                return malformed("a chunk size line longer than 4096 bytes");
            }
            break;
        }
        const std::string_view line(input.data() + used, end - used);
        used = end + 2;
        if (m_state == State::DataEnd) {
            if (!line.empty())
                return malformed("a chunk not followed by CRLF");
            m_state = State::Size;
        } else if (m_state == State::Size) {
            const std::string_view digits = trim(line.substr(0, line.find(';')));
            if (digits.empty() || digits.size() > 8 ||
                !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
                return malformed("chunk size \"" + std::string(line.substr(0, 40)) + "\"");
            m_remaining = static_cast<std::size_t>(std::stoul(std::string(digits), nullptr, 16));
            m_state = m_remaining == 0 ? State::Trailer : State::Data;
        } else if (m_state == State::Trailer) {
            if (line.empty())
                m_state = State::Done;
        }
    }
    input.erase(0, used);
    return m_state == State::Done;
}

} // namespace warren::kube
