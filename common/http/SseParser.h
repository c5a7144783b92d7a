#pragma once
// Server-sent events (the WHATWG "text/event-stream" format) as both model APIs stream them: bytes in, in
// whatever pieces the network delivers, whole events out. Pure: no I/O, so a line split across two reads,
// a CRLF split between them, multi-line data and comments are all tested without a socket.

#include <string>
#include <string_view>
#include <vector>

namespace warren {

struct SseEvent {
    std::string event; // the `event:` name; empty when the server gave none (the spec's "message")
    std::string data;  // the `data:` lines joined with '\n'
    friend bool operator==(const SseEvent&, const SseEvent&) = default;
};

class SseParser {
public:
    // Appends bytes and returns the events they completed, in order.
    std::vector<SseEvent> feed(std::string_view bytes);
    // The stream ended: returns an event left without its closing blank line. The spec drops it, but
    // some local servers end with "data: [DONE]\n" and no blank line, and losing their last event would
    // turn a complete reply into an error.
    std::vector<SseEvent> finish();

private:
    void processLine(std::string_view line, std::vector<SseEvent>& out);
    void dispatch(std::vector<SseEvent>& out);

    std::string m_line;          // the current line, not yet terminated
    bool m_afterCr = false;      // the last byte was CR: a following LF belongs to the same line break
    bool m_started = false;      // past a possible UTF-8 byte order mark
    std::string m_event;
    std::string m_data;
    bool m_hasData = false;
};

} // namespace warren
