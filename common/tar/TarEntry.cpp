#include "common/tar/TarEntry.h"

namespace warren::tar {

const char* describe(TarEntryType type) {
    switch (type) {
    case TarEntryType::Regular:
        return "a regular file";
    case TarEntryType::Directory:
        return "a directory";
    case TarEntryType::Symlink:
        return "a symbolic link";
    case TarEntryType::Hardlink:
        return "a hard link";
    case TarEntryType::CharDevice:
        return "a character device";
    case TarEntryType::BlockDevice:
        return "a block device";
    case TarEntryType::Fifo:
        return "a FIFO";
    case TarEntryType::Other:
        break;
    }
    return "an entry of an unsupported type";
}

} // namespace warren::tar
