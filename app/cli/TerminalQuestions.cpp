#include "app/cli/TerminalQuestions.h"

#include <iostream>
#include <unistd.h>

namespace warren::control {

TerminalQuestions::TerminalQuestions(int fd, QObject* parent)
    : QObject(parent), m_fd(fd), m_notifier(fd, QSocketNotifier::Read) {
    m_notifier.setEnabled(false);
    connect(&m_notifier, &QSocketNotifier::activated, this, &TerminalQuestions::onReadable);
}

void TerminalQuestions::ask(std::string prompt, Answered answered) {
    m_waiting.push_back({std::move(prompt), std::move(answered)});
    if (!m_open)
        openNext();
}

void TerminalQuestions::askNext(std::string prompt, Answered answered) {
    m_waiting.push_front({std::move(prompt), std::move(answered)});
    if (!m_open)
        openNext();
}

void TerminalQuestions::openNext() {
    if (m_waiting.empty())
        return;
    m_open = std::move(m_waiting.front());
    m_waiting.pop_front();
    if (m_ended) // stdin is gone: every question is answered at once, in order
        return answer(std::nullopt);
    std::cerr << m_open->prompt << std::flush;
    if (auto line = takeLine()) // typed ahead: it answers at once
        return answer(std::move(line));
    m_notifier.setEnabled(true);
}

std::optional<std::string> TerminalQuestions::takeLine() {
    const auto end = m_partial.find('\n');
    if (end == std::string::npos)
        return std::nullopt;
    std::string line = m_partial.substr(0, end);
    m_partial.erase(0, end + 1);
    return line;
}

void TerminalQuestions::onReadable() {
    char buffer[4096];
    const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
    if (n < 0)
        return; // EINTR, EAGAIN: read again when it is readable
    if (n == 0) {
        m_ended = true;
        m_notifier.setEnabled(false);
        return answer(std::nullopt);
    }
    m_partial.append(buffer, std::size_t(n));
    if (m_partial.size() > 64 * 1024) // not an answer anyone types: cut, the line end still ends it
        m_partial.erase(0, m_partial.size() - 64 * 1024);
    if (auto line = takeLine())
        answer(std::move(line));
}

void TerminalQuestions::answer(std::optional<std::string> line) {
    m_notifier.setEnabled(false);
    if (line && !line->empty() && line->back() == '\r')
        line->pop_back();
    Question question = std::move(*m_open);
    m_open.reset();
    question.answered(std::move(line)); // may ask the next part first (askNext)
    if (!m_open)
        openNext();
}

} // namespace warren::control
