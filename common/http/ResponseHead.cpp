#include "common/http/ResponseHead.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace warren {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

bool isTokenChar(unsigned char c) {
    return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(char(c)) != std::string_view::npos;
}

bool hasControl(std::string_view text) {
    return std::any_of(text.begin(), text.end(), [](unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; });
}

} // namespace

std::optional<std::string> ResponseHead::header(std::string_view name) const {
    for (const auto& [key, value] : headers)
        if (key == name)
            return value;
    return std::nullopt;
}

std::string mediaType(std::string_view contentType) {
    return lower(trimmed(contentType.substr(0, contentType.find(';'))));
}

std::variant<std::nullopt_t, ResponseHead, std::string> parseResponseHead(std::string_view buffer) {
    const std::size_t end = buffer.find("\r\n\r\n");
    if (end == std::string_view::npos) {
        if (buffer.size() >= kMaxResponseHeadBytes)
            return std::string("the answer's head is longer than ") + std::to_string(kMaxResponseHeadBytes) + " bytes";
        return std::nullopt;
    }
    if (end + 4 > kMaxResponseHeadBytes)
        return std::string("the answer's head is longer than ") + std::to_string(kMaxResponseHeadBytes) + " bytes";
    ResponseHead head;
    head.consumed = end + 4;
    std::string_view rest = buffer.substr(0, end + 2);
    const auto nextLine = [&]() -> std::optional<std::string_view> {
        const std::size_t crlf = rest.find("\r\n");
        if (crlf == std::string_view::npos)
            return std::nullopt;
        const std::string_view line = rest.substr(0, crlf);
        rest.remove_prefix(crlf + 2);
        return line;
    };
    const std::string_view statusLine = *nextLine();
    // "HTTP/1.x SSS reason"
    const auto digit = [&](std::size_t at) { return statusLine[at] >= '0' && statusLine[at] <= '9'; };
    if (statusLine.size() < 12 || !statusLine.starts_with("HTTP/1.") || (statusLine[7] != '0' && statusLine[7] != '1') ||
        statusLine[8] != ' ' || !digit(9) || !digit(10) || !digit(11) ||
        (statusLine.size() > 12 && statusLine[12] != ' ') || hasControl(statusLine))
        return std::string("the answer does not start with an HTTP/1.x status line");
    head.status = (statusLine[9] - '0') * 100 + (statusLine[10] - '0') * 10 + (statusLine[11] - '0');
    if (head.status < 100)
        return std::string("the answer's status is not a status code");
    head.reason = statusLine.size() > 13 ? std::string(statusLine.substr(13)) : std::string();

    std::optional<std::uint64_t> length;
    bool chunked = false;
    while (auto line = nextLine()) {
        if (line->empty())
            break;
        if (line->front() == ' ' || line->front() == '\t')
            return std::string("the answer's head folds a header line");
        const std::size_t colon = line->find(':');
        if (colon == 0 || colon == std::string_view::npos ||
            !std::all_of(line->begin(), line->begin() + std::ptrdiff_t(colon), [](unsigned char c) { return isTokenChar(c); }))
            return std::string("the answer's head has a line that is not a header");
        const std::string_view value = trimmed(line->substr(colon + 1));
        if (hasControl(value) || value.find('\r') != std::string_view::npos || value.find('\n') != std::string_view::npos)
            return std::string("a header of the answer holds a control character");
        std::string name = lower(line->substr(0, colon));
        if (name == "content-length") {
            std::uint64_t parsed = 0;
            const auto [at, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
            if (value.empty() || error != std::errc() || at != value.data() + value.size())
                return std::string("the answer's Content-Length is not a number");
            if (length && *length != parsed)
                return std::string("the answer gives two different Content-Length values");
            length = parsed;
        } else if (name == "transfer-encoding") {
            if (lower(value) != "chunked" || chunked)
                return std::string("the answer's Transfer-Encoding is not chunked (\"") + std::string(value) + "\")";
            chunked = true;
        }
        head.headers.emplace_back(std::move(name), std::string(value));
    }
    if (head.status < 200 || head.status == 204 || head.status == 304)
        head.framing = ResponseHead::Framing::None;
    else if (chunked)
        head.framing = ResponseHead::Framing::Chunked; // it overrides Content-Length (RFC 9112 §6.3)
    else if (length) {
        head.framing = ResponseHead::Framing::Length;
        head.contentLength = *length;
    } else
        head.framing = ResponseHead::Framing::UntilClose;
    return head;
}

} // namespace warren
