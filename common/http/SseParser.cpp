#include "common/http/SseParser.h"

namespace warren {

std::vector<SseEvent> SseParser::feed(std::string_view bytes) {
    std::vector<SseEvent> events;
    for (const char c : bytes) {
        if (m_afterCr) {
            m_afterCr = false;
            if (c == '\n')
                continue; // the LF of a CRLF whose CR ended the line already
        }
        if (c == '\r' || c == '\n') {
            m_afterCr = c == '\r';
            processLine(m_line, events);
            m_line.clear();
        } else {
            m_line.push_back(c);
        }
    }
    return events;
}

std::vector<SseEvent> SseParser::finish() {
    std::vector<SseEvent> events;
    if (!m_line.empty()) {
        processLine(m_line, events);
        m_line.clear();
    }
    dispatch(events);
    return events;
}

void SseParser::processLine(std::string_view line, std::vector<SseEvent>& out) {
    if (!m_started) {
        m_started = true;
        if (line.starts_with("\xEF\xBB\xBF"))
            line.remove_prefix(3);
    }
    if (line.empty()) {
        dispatch(out);
        return;
    }
    if (line.front() == ':')
        return; // a comment: servers send them as keep-alives
    std::string_view field = line;
    std::string_view value;
    if (const auto colon = line.find(':'); colon != std::string_view::npos) {
        field = line.substr(0, colon);
        value = line.substr(colon + 1);
        if (value.starts_with(' '))
            value.remove_prefix(1);
    }
    if (field == "data") {
        if (m_hasData)
            m_data.push_back('\n');
        m_data.append(value);
        m_hasData = true;
    } else if (field == "event") {
        m_event = value;
    }
    // "id" and "retry" matter for reconnecting EventSource clients; a model call is never resumed.
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
    if (m_hasData)
        out.push_back(SseEvent{m_event, m_data});
    m_event.clear();
    m_data.clear();
    m_hasData = false;
}

} // namespace warren
