#pragma once
// One field of /proc/PID/stat, numbered as proc(5) numbers them (3 state, 4 ppid, 20 num_threads,
// 22 starttime), read after the process's name, which may hold spaces and parentheses. The sandbox's process
// edges ask it who a process's parent is, how many threads a uid runs, and when a process started.

#include <optional>
#include <string>
#include <sys/types.h>

namespace warren::sandbox {

// nullopt when the process is gone, its stat cannot be read, or the line has fewer fields.
std::optional<std::string> procStatField(pid_t pid, int field);

} // namespace warren::sandbox
