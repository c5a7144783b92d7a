#pragma once
// Which waiting job a free worker takes next, so that no one owner (a user) takes every worker: each
// owner's jobs wait in a line of their own, free workers serve the owners in turn, and an owner who already
// has perOwner jobs running waits however many jobs it queued. One user's thousand uploads then fill at most
// their share of the workers, and another user's job starts on the next free one. Pure: DiskWork asks it
// from the event loop; tests drive it without threads.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>

namespace warren::server {

class FairQueue {
public:
    // workers ≥ 1; perOwner is clamped to 1..workers.
    FairQueue(std::size_t workers, std::size_t perOwner);

    void push(const std::string& owner, std::uint64_t job);
    // The job to start now, and its owner: none while every worker is busy or every owner who waits has
    // its share running. The owner served goes to the back of the turns.
    struct Started {
        std::string owner;
        std::uint64_t job = 0;
    };
    std::optional<Started> take();
    // A job of owner that take() returned has ended: its worker is free.
    void finished(const std::string& owner);

    std::size_t running() const { return m_running; }
    std::size_t waiting() const;
    std::size_t workers() const { return m_workers; }
    std::size_t perOwner() const { return m_perOwner; }

private:
    struct Owner {
        std::deque<std::uint64_t> waiting;
        std::size_t running = 0;
    };
    std::size_t m_workers, m_perOwner;
    std::size_t m_running = 0;
    std::map<std::string, Owner> m_owners; // those with a job waiting or running
    std::deque<std::string> m_turns;       // owners with a job waiting, next served first
};

} // namespace warren::server
