// The model proxy's parsers of bytes from outside (app/modelproxy), the first byte picking one:
//   0: a CLI's request head from the sandbox (parseModelRequestHead). An accepted head must be what the proxy
//      can forward without a second reading: a token method, a path target of printable ASCII, header names
//      that are tokens, values without CR, LF or NUL, a body within the cap, chunked framing only alone (no
//      Content-Length beside it, not in HTTP/1.0); and every prefix of the head must either wait for more
//      bytes or fail, never parse as another head.
//   1: a provider's answer through KeyMask in pieces of the size the first byte picks: the output is what
//      masking it whole gives, and never holds the key.
//   2: a provider's answer through ModelUsageReader, as a stream and as JSON, whole and in pieces: the same
//      usage both ways; and the request's model read from the same bytes.
//   3: a chunked request body through IncomingBody, whole and in pieces: the same outcome, the same bytes
//      taken, a body within the cap; a decoded body written again as one chunk decodes to itself.
// Nothing may crash, leak or trip a sanitizer. Built and run like the other targets (docs/PROTOCOL.md,
// "Fuzzing"):  build-fuzz/tests/fuzz/fuzz_model_proxy -max_total_time=60 tests/fuzz/corpus-model-proxy

#include "FuzzInput.h"

#include "app/modelproxy/IncomingBody.h"
#include "app/modelproxy/KeyMask.h"
#include "app/modelproxy/ModelRequestHead.h"
#include "app/modelproxy/ModelUsage.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

using namespace warren;
using warren::fuzz::require;

namespace {

constexpr std::uint64_t kMaxBody = 1 << 20;

bool isTokenChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

void head(std::string_view bytes) {
    const auto parsed = control::parseModelRequestHead(bytes, kMaxBody);
    const auto* result = std::get_if<control::ModelRequestHead>(&parsed);
    if (result == nullptr)
        return;
    require(result->consumed <= bytes.size() && result->consumed <= control::kMaxModelHeadBytes);
    require(!result->method.empty() && std::all_of(result->method.begin(), result->method.end(), isTokenChar));
    require(!result->path.empty() && result->path.front() == '/');
    for (const char c : result->path + result->query)
        require(c > 0x20 && c < 0x7f && c != '#');
    require(result->contentLength <= kMaxBody);
    for (const auto& header : result->headers) {
        require(!header.name.empty() && std::all_of(header.name.begin(), header.name.end(), isTokenChar));
        for (const char c : header.value)
            require(c != '\r' && c != '\n' && c != '\0');
        std::string name = header.name;
        std::transform(name.begin(), name.end(), name.begin(), [](char c) { return char(std::tolower(c)); });
        require(name != "transfer-encoding" || result->chunked);
        require(name != "content-length" || !result->chunked);
    }
    require(!result->chunked || (!result->http10 && result->contentLength == 0));
    const std::string_view whole = bytes.substr(0, result->consumed);
    for (std::size_t cut = 0; cut + 1 < whole.size(); cut += 1 + cut / 8)
        require(!std::holds_alternative<control::ModelRequestHead>(control::parseModelRequestHead(whole.substr(0, cut), kMaxBody)));
}

void mask(std::string_view bytes, std::size_t piece) {
    const std::string key = "sk-key-AAA";
    control::KeyMask mask(key);
    std::string out;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
        out += mask.feed(bytes.substr(at, piece));
    out += mask.finish();
    require(out == control::KeyMask::masked(std::string(bytes), key));
    require(out.find(key) == std::string::npos);
}

control::ModelUsage usage(std::string_view bytes, bool stream, std::size_t piece) {
    control::ModelUsageReader reader(stream);
    for (std::size_t at = 0; at < bytes.size(); at += piece)
        reader.feed(bytes.substr(at, piece));
    reader.finish();
    return reader.usage();
}

void usages(std::string_view bytes, std::size_t piece) {
    for (const bool stream : {true, false}) {
        const control::ModelUsage whole = usage(bytes, stream, bytes.size() + 1);
        const control::ModelUsage pieces = usage(bytes, stream, piece);
        require(whole.inputTokens == pieces.inputTokens && whole.outputTokens == pieces.outputTokens &&
                whole.model == pieces.model);
    }
    (void)control::requestModel(bytes);
}

struct Decoded {
    bool complete = false;
    std::optional<int> status;
    std::string body;
    std::size_t taken = 0;
};

Decoded decode(std::string_view bytes, std::size_t piece) {
    control::ModelRequestHead chunked;
    chunked.chunked = true;
    control::IncomingBody reader(chunked, kMaxBody);
    Decoded out;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
        const std::string_view part = bytes.substr(at, piece);
        const std::size_t used = reader.feed(part);
        require(used <= part.size());
        out.taken += used;
        if (used < part.size())
            break;
    }
    out.complete = reader.complete();
    if (reader.error())
        out.status = reader.error()->status;
    out.body = reader.body();
    return out;
}

void chunkedBody(std::string_view bytes, std::size_t piece) {
    const Decoded whole = decode(bytes, bytes.size() + 1);
    const Decoded pieces = decode(bytes, piece);
    require(whole.complete == pieces.complete && whole.status == pieces.status && whole.body == pieces.body);
    require(whole.body.size() <= kMaxBody && !(whole.complete && whole.status));
    if (whole.complete) {
        require(whole.taken == pieces.taken && whole.taken <= bytes.size());
        char size[32];
        std::snprintf(size, sizeof size, "%zx\r\n", whole.body.size());
        const std::string again = whole.body.empty() ? "0\r\n\r\n" : size + whole.body + "\r\n0\r\n\r\n";
        require(decode(again, again.size() + 1).body == whole.body);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = warren::fuzz::FuzzInput::from(data, size);
    switch (input.pick(4)) {
    case 0: head(input.body); break;
    case 1: mask(input.body, input.pieceSize()); break;
    case 2: usages(input.body, input.pieceSize()); break;
    default: chunkedBody(input.body, input.pieceSize()); break;
    }
    return 0;
}
