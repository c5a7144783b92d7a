#include "app/modelproxy/ModelRequestHead.h"

#include "app/egress/AsciiText.h"

#include <algorithm>

namespace warren::control {

namespace {

using namespace ascii;

constexpr std::string_view kCrlf = "\r\n";
constexpr std::string_view kEndOfHead = "\r\n\r\n";

ModelHeadError fail(int status, std::string message) {
    return ModelHeadError{status, std::move(message)};
}

std::optional<ModelHeadError> findBadByte(std::string_view bytes, bool complete) {
    if (const char* bad = badHeadByte(bytes, complete))
        return fail(400, bad);
    return std::nullopt;
}

} // namespace

std::optional<std::string_view> ModelRequestHead::header(std::string_view name) const {
    for (const ModelRequestHeader& header : headers)
        if (equalsIgnoringCase(header.name, name))
            return std::string_view(header.value);
    return std::nullopt;
}

std::variant<std::nullopt_t, ModelRequestHead, ModelHeadError> parseModelRequestHead(std::string_view buffer,
                                                                                     std::uint64_t maxBody) {
    const std::string_view window = buffer.substr(0, kMaxModelHeadBytes);
    const std::size_t end = window.find(kEndOfHead);
    if (end == std::string_view::npos) {
        if (auto error = findBadByte(window, false))
            return *error;
        if (buffer.size() < kMaxModelHeadBytes)
            return std::nullopt;
        return fail(431, "the request head is longer than " + std::to_string(kMaxModelHeadBytes) + " bytes");
    }
    const std::string_view head = buffer.substr(0, end + kCrlf.size()); // every line with its CRLF
    if (auto error = findBadByte(head, true))
        return *error;

    ModelRequestHead result;
    result.consumed = end + kEndOfHead.size();
    const std::size_t lineEnd = head.find(kCrlf);
    const std::string_view requestLine = head.substr(0, lineEnd);
    const std::size_t firstSpace = requestLine.find(' ');
    const std::size_t lastSpace = requestLine.rfind(' ');
    if (firstSpace == std::string_view::npos || firstSpace == lastSpace)
        return fail(400, "the request line is not METHOD TARGET HTTP/1.1");
    const std::string_view method = requestLine.substr(0, firstSpace);
    const std::string_view target = requestLine.substr(firstSpace + 1, lastSpace - firstSpace - 1);
    const std::string_view version = requestLine.substr(lastSpace + 1);
    if (!isToken(method) || target.empty() || target.find(' ') != std::string_view::npos)
        return fail(400, "the request line is not METHOD TARGET HTTP/1.1");
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
        if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && isDigit(version[5]) && version[6] == '.' &&
            isDigit(version[7]))
            return fail(505, "only HTTP/1.0 and HTTP/1.1 are supported");
        return fail(400, "the request line does not end in HTTP/1.1 or HTTP/1.0");
    }
    if (target.front() != '/')
        return fail(400, "the request target is not a path: send POST /v1/... to this address");
    if (!std::all_of(target.begin(), target.end(), [](char c) { return c > 0x20 && c < 0x7f; }))
        return fail(400, "the request target holds characters outside printable ASCII");
    if (target.find('#') != std::string_view::npos)
        return fail(400, "the request target holds a fragment (#...): a request never sends one");
    result.method = std::string(method);
    result.http10 = version == "HTTP/1.0";
    const std::size_t question = target.find('?');
    result.path = std::string(target.substr(0, question));
    if (question != std::string_view::npos) {
        result.hasQuery = true;
        result.query = std::string(target.substr(question + 1));
    }

    std::optional<std::string_view> length;
    std::size_t position = lineEnd + kCrlf.size();
    while (position < head.size()) {
        const std::size_t next = head.find(kCrlf, position);
        const std::string_view line = head.substr(position, next - position);
        position = next + kCrlf.size();
        if (line.front() == ' ' || line.front() == '\t')
            return fail(400, "a header line starts with whitespace (obsolete line folding); write each header "
                             "on one line");
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos)
            return fail(400, "a header line has no ':'");
        const std::string_view name = line.substr(0, colon);
        if (!isToken(name))
            return fail(400, "the header name \"" + std::string(name) + "\" holds characters a header name cannot have");
        const std::string_view value = trimmed(line.substr(colon + 1));
        if (equalsIgnoringCase(name, "transfer-encoding")) {
            if (result.chunked)
                return fail(400, "Transfer-Encoding is given twice");
            if (!equalsIgnoringCase(value, "chunked"))
                return fail(501, "only \"Transfer-Encoding: chunked\" is understood (no other coding of the "
                                 "request body)");
            result.chunked = true;
        }
        if (equalsIgnoringCase(name, "content-length")) {
            for (std::string_view item : splitList(value)) {
                if (item.empty() || item.size() > 18 || !std::all_of(item.begin(), item.end(), isDigit))
                    return fail(400, "Content-Length is not a decimal number");
                if (length && *length != item)
                    return fail(400, "the request has several differing Content-Length values");
                length = item;
            }
        }
        if (equalsIgnoringCase(name, "expect")) {
            if (!equalsIgnoringCase(value, "100-continue"))
                return fail(417, "only \"Expect: 100-continue\" is understood");
            result.expectContinue = true;
        }
        result.headers.push_back(ModelRequestHeader{std::string(name), std::string(value)});
    }
    if (result.chunked && length)
        return fail(400, "the request has both Transfer-Encoding and Content-Length: send one of them");
    if (result.chunked && result.http10)
        return fail(400, "Transfer-Encoding is not part of HTTP/1.0");
    if (length)
        result.contentLength = std::stoull(std::string(*length));
    if (result.contentLength > maxBody)
        return fail(413, "the request body of " + std::to_string(result.contentLength) + " bytes is larger than the " +
                             std::to_string(maxBody) + " bytes a model call may send");
    return result;
}

} // namespace warren::control
