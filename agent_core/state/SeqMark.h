#pragma once
// The high-water mark of event seqs, in stateDir/seq. The agent records an event's seq here before it
// emits the event, so a run resumed from an older checkpoint starts after every seq an earlier run emitted
// (seqs must increase across resumes). It only has to survive a killed process, not power loss: record()
// is a pwrite the kernel keeps in its page cache, with no fsync, cheap enough for every event.

#include "common/Result.h"

#include <cstdint>
#include <filesystem>

namespace warren::agent {

class SeqMark {
public:
    // Opens (creating) stateDir/seq and reads the mark; an error names the file.
    static Result<SeqMark> open(const std::filesystem::path& stateDir);

    SeqMark(SeqMark&& other) noexcept;
    SeqMark& operator=(SeqMark&& other) noexcept;
    SeqMark(const SeqMark&) = delete;
    SeqMark& operator=(const SeqMark&) = delete;
    ~SeqMark();

    // 8 bytes at offset 0. Not reported when it fails: open() already wrote that block, so overwriting
    // it cannot hit a full disk, and an I/O error there also fails the next checkpoint, which is reported.
    void record(std::uint64_t seq);

    // The mark as read at open(): 0 when the file was new or empty.
    std::uint64_t last() const { return m_last; }

private:
    SeqMark(int fd, std::uint64_t last) : m_fd(fd), m_last(last) {}

    int m_fd = -1;
    std::uint64_t m_last = 0;
};

} // namespace warren::agent
