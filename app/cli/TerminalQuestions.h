#pragma once
// Questions asked on the terminal while a task runs (`warren run`'s approvals and network questions): one at
// a time, in the order asked, each answered by a line of stdin read as it arrives, so the event loop (the
// task's events, its proxies, a question's own deadline) never waits on the user. stdin is read only while
// a question is open; its end answers every open question with nullopt.

#include <QObject>
#include <QSocketNotifier>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace warren::control {

class TerminalQuestions : public QObject {
public:
    // line: the answer without its line end; nullopt when stdin ended.
    using Answered = std::function<void(std::optional<std::string> line)>;

    explicit TerminalQuestions(int fd, QObject* parent = nullptr);

    // prompt is printed (to stderr) when the question's turn comes.
    void ask(std::string prompt, Answered answered);
    // Asked before any other that waits: the second part of the question being answered (a note).
    void askNext(std::string prompt, Answered answered);

private:
    struct Question {
        std::string prompt;
        Answered answered;
    };

    void openNext();
    void onReadable();
    void answer(std::optional<std::string> line);
    std::optional<std::string> takeLine(); // the next whole line that arrived, without its end

    int m_fd;
    QSocketNotifier m_notifier;
    std::deque<Question> m_waiting;
    std::optional<Question> m_open;
    std::string m_partial; // what arrived of the next line
    bool m_ended = false;
};

} // namespace warren::control
