#pragma once
// A process named so that another process, later, can tell whether it still lives: "MACHINE:PID:STARTTIME",
// where MACHINE is this machine and boot (a process of an earlier boot is gone by definition) and STARTTIME
// its start in /proc/PID/stat (a pid used again is another process). A container's owner label names its
// launcher so (ContainerLauncher's sweep), and a warrend replica its task leases (server/replicas).

#include <functional>
#include <string>
#include <sys/types.h>

namespace warren::sandbox {

std::string thisMachine();                 // machine-id (else the host name) "." boot_id
std::string processStartTime(pid_t pid);   // empty when no such process
std::string processOwner();                // this process: "MACHINE:PID:STARTTIME"

// Pure: owner ran on machine and is gone (startTimeOf(pid) differs from its STARTTIME; empty: no such
// process). False for another machine's owner and for one that cannot be read: not ours to judge.
bool ownerGone(const std::string& owner, const std::string& machine,
               const std::function<std::string(pid_t)>& startTimeOf);

} // namespace warren::sandbox
