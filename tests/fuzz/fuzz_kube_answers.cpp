// What a Kubernetes API server answers the cluster client (sandbox/cluster/client), as bytes, through the reader the
// first byte picks:
//  0. a watch's line (parseWatchEvent) and what is read of its object: resource version, name, pod and
//     Sandbox state, an ERROR's meaning;
//  1. a failed call's body (describeApiFailure), with a status from the next two bytes;
//  2. a response head (parseResponseHead);
//  3. a chunked body (ChunkedDecoder), fed whole and in pieces: the same data, or an error both ways;
//  4. a list's answer: its items and their names, as KubeCluster reads them;
//  5. YAML (parseYaml, the kubeconfig's reader).
// Nothing may crash, leak or trip a sanitizer; an event's object is nested no deeper than the cap.

#include "FuzzInput.h"

#include "common/JsonFields.h"
#include "common/http/ChunkedDecoder.h"
#include "common/http/ResponseHead.h"
#include "sandbox/cluster/client/ApiStatus.h"
#include "sandbox/cluster/client/WatchEvents.h"
#include "sandbox/cluster/client/YamlDocument.h"

#include <algorithm>
#include <cctype>

using namespace warren;
using warren::fuzz::require;

namespace {

std::size_t depth(const nlohmann::json& value) {
    std::size_t deepest = 0;
    if (value.is_structured())
        for (const auto& item : value)
            deepest = std::max(deepest, depth(item));
    return value.is_structured() ? deepest + 1 : 0;
}

void readObject(const nlohmann::json& object) {
    (void)kube::resourceVersionOf(object);
    (void)kube::nameOf(object);
    (void)kube::describePodState(kube::podState(object));
    (void)kube::describePodState(kube::sandboxState(object));
}

void watchLine(std::string_view line) {
    auto event = kube::parseWatchEvent(line);
    if (!event)
        return;
    require(event->object.is_object() && depth(event->object) < json_fields::kMaxJsonDepth);
    readObject(event->object);
    (void)kube::isResourceVersionExpired(*event);
    (void)kube::watchErrorMessage(*event);
}

void failure(std::string_view bytes) {
    if (bytes.size() < 2)
        return;
    const int status = (static_cast<unsigned char>(bytes[0]) << 8 | static_cast<unsigned char>(bytes[1])) % 1000;
    const auto described = kube::describeApiFailure(status, bytes.substr(2), "creating Pod p", "https://k");
    require(described.status == status && !described.error.message.empty());
}

void responseHead(std::string_view bytes) {
    const auto parsed = parseResponseHead(bytes);
    const auto* head = std::get_if<ResponseHead>(&parsed);
    if (!head)
        return;
    require(head->status >= 100 && head->status <= 999);
    require(head->consumed <= bytes.size() && head->consumed <= kMaxResponseHeadBytes);
    for (const auto& [name, value] : head->headers) {
        require(!name.empty() && std::none_of(name.begin(), name.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)); }));
        require(value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos);
    }
    // No shorter prefix reads as a head: the answer is read one way.
    for (std::size_t cut = 0; cut < head->consumed; cut += 1 + cut / 8)
        require(!std::holds_alternative<ResponseHead>(parseResponseHead(bytes.substr(0, cut))));
}

struct Decoded {
    bool failed = false;
    bool done = false;
    std::string data;
};

Decoded decodeChunked(std::string_view body, std::size_t piece) {
    ChunkedDecoder decoder(1 << 20, kMaxResponseHeadBytes);
    Decoded out;
    for (std::size_t at = 0; at < body.size() && !out.done; at += piece) {
        const std::string_view part = body.substr(at, piece);
        const std::size_t used = decoder.feed(part, out.data);
        require(used <= part.size());
        if (decoder.refused()) {
            out.failed = true;
            return out;
        }
        out.done = decoder.complete();
        require(out.done || used == part.size());
    }
    require(out.data.size() <= (1u << 20));
    return out;
}

void chunked(std::string_view body, std::size_t piece) {
    const Decoded whole = decodeChunked(body, std::max<std::size_t>(body.size(), 1));
    const Decoded pieces = decodeChunked(body, piece);
    require(whole.failed == pieces.failed);
    if (!whole.failed) {
        require(whole.done == pieces.done);
        require(whole.data == pieces.data);
    }
}

void list(std::string_view body) {
    const auto answer = nlohmann::json::parse(body, nullptr, false);
    for (const auto& item : kube::itemsOf(answer))
        readObject(item);
    readObject(answer);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto input = fuzz::FuzzInput::from(data, size);
    switch (input.pick(6)) {
    case 0:
        watchLine(input.body);
        break;
    case 1:
        failure(input.body);
        break;
    case 2:
        responseHead(input.body);
        break;
    case 3:
        chunked(input.body, input.pieceSize());
        break;
    case 4:
        list(input.body);
        break;
    default:
        (void)kube::parseYaml(input.body);
        break;
    }
    return 0;
}
