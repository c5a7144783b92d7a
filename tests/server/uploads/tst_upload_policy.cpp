// UploadPolicy: each row is an attack (or a harmless shape that looks like one) as a sequence of entries;
// the last entry is refused with a reason naming it, or everything is admitted as the row says.

#include "common/tar/UploadPolicy.h"

#include <QTest>

using namespace warren::tar;

using Entries = std::vector<TarEntry>;
Q_DECLARE_METATYPE(Entries)

namespace {

TarEntry make(TarEntryType type, std::string path, std::string link = {}, std::uint64_t size = 0,
              std::uint32_t mode = 0644, char flag = '0') {
    TarEntry entry;
    entry.type = type;
    entry.path = std::move(path);
    entry.linkTarget = std::move(link);
    entry.size = size;
    entry.mode = mode;
    entry.typeFlag = flag;
    entry.offset = 512 * 7;
    return entry;
}
TarEntry fileEntry(std::string path, std::uint64_t size = 1, std::uint32_t mode = 0644) {
    return make(TarEntryType::Regular, std::move(path), {}, size, mode);
}
TarEntry dirEntry(std::string path, std::uint32_t mode = 0755) {
    return make(TarEntryType::Directory, std::move(path), {}, 0, mode, '5');
}
TarEntry symlinkEntry(std::string path, std::string target) {
    return make(TarEntryType::Symlink, std::move(path), std::move(target), 0, 0777, '2');
}

UploadLimits smallLimits() {
    UploadLimits limits;
    limits.maxEntries = 5;
    limits.maxPathBytes = 64;
    limits.maxNameBytes = 40;
    limits.maxTotalBytes = 100;
    return limits;
}

} // namespace

class UploadPolicyTest : public QObject {
    Q_OBJECT
private slots:
    void refuses_data();
    void refuses();
    void refusesChainsAtTheEnd_data();
    void refusesChainsAtTheEnd();
    void admits_data();
    void admits();
};

void UploadPolicyTest::refuses_data() {
    QTest::addColumn<Entries>("entries");
    QTest::addColumn<QString>("reason");
    const std::string longPath(65, 'p');
    QTest::newRow("dotdot_component") << Entries{fileEntry("a/../../etc/passwd")} << "\"..\" component";
    QTest::newRow("dotdot_leading") << Entries{fileEntry("../outside")} << "\"..\" component";
    QTest::newRow("dotdot_alone_as_directory") << Entries{dirEntry("..")} << "\"..\" component";
    QTest::newRow("dotdot_trailing") << Entries{dirEntry("a/b/..")} << "\"..\" component";
    QTest::newRow("absolute_path") << Entries{fileEntry("/etc/passwd")} << "absolute name";
    QTest::newRow("absolute_double_slash") << Entries{fileEntry("//etc/cron.d/x")} << "absolute name";
    QTest::newRow("empty_name") << Entries{fileEntry("")} << "empty name";
    QTest::newRow("nul_in_name") << Entries{fileEntry(std::string("ok\0/../../x", 11))} << "NUL byte";
    QTest::newRow("root_as_file") << Entries{fileEntry("./")} << "root but is not a directory";
    QTest::newRow("char_device") << Entries{make(TarEntryType::CharDevice, "dev/mem", {}, 0, 0666, '3')}
                                 << "character device";
    QTest::newRow("block_device") << Entries{make(TarEntryType::BlockDevice, "sda", {}, 0, 0660, '4')}
                                  << "block device";
    QTest::newRow("fifo") << Entries{make(TarEntryType::Fifo, "pipe", {}, 0, 0644, '6')} << "FIFO";
    QTest::newRow("hardlink_to_etc_passwd")
        << Entries{make(TarEntryType::Hardlink, "passwd", "/etc/passwd", 0, 0644, '1')} << "hard link";
    QTest::newRow("hardlink_inside") << Entries{fileEntry("a"),
                                                make(TarEntryType::Hardlink, "b", "a", 0, 0644, '1')}
                                     << "hard link";
    QTest::newRow("gnu_sparse_type") << Entries{make(TarEntryType::Other, "s", {}, 0, 0644, 'S')}
                                     << "unsupported tar type 'S'";
    QTest::newRow("symlink_absolute") << Entries{symlinkEntry("etc", "/etc")} << "absolute link target";
    QTest::newRow("symlink_dotdot_out") << Entries{symlinkEntry("up", "..")} << "outside the tree";
    QTest::newRow("symlink_dotdot_out_from_subdir")
        << Entries{symlinkEntry("d/e/up", "../../../x")} << "outside the tree";
    QTest::newRow("symlink_down_then_out")
        << Entries{symlinkEntry("l", "a/b/../../../x")} << "outside the tree";
    QTest::newRow("symlink_empty_target") << Entries{symlinkEntry("l", "")} << "empty link target";
    QTest::newRow("symlink_nul_target")
        << Entries{symlinkEntry("l", std::string("a\0/../..", 8))} << "NUL byte";
    QTest::newRow("symlink_dotdot_name") << Entries{symlinkEntry("../l", "x")} << "\"..\" component";
    QTest::newRow("file_through_symlink") << Entries{dirEntry("d"), symlinkEntry("l", "d"), fileEntry("l/x")}
                                          << "goes through \"l\", a symbolic link";
    QTest::newRow("file_through_symlink_to_dot")
        << Entries{symlinkEntry("l", "."), fileEntry("l/x")} << "goes through \"l\", a symbolic link";
    QTest::newRow("directory_through_symlink")
        << Entries{symlinkEntry("l", "."), dirEntry("l/sub/")} << "a symbolic link";
    QTest::newRow("symlink_through_symlink")
        << Entries{symlinkEntry("l", "."), symlinkEntry("l/m", "x")} << "a symbolic link";
    QTest::newRow("file_under_file") << Entries{fileEntry("f"), fileEntry("f/x")}
                                     << "goes through \"f\", a file";
    QTest::newRow("directory_replaced_by_file")
        << Entries{dirEntry("d"), fileEntry("d")} << "would replace a directory with a file";
    QTest::newRow("directory_replaced_by_link")
        << Entries{dirEntry("d/"), symlinkEntry("d", "x")} << "would replace a directory with a link";
    QTest::newRow("implicit_directory_replaced_by_link")
        << Entries{fileEntry("d/x"), symlinkEntry("d", ".")} << "would replace a directory with a link";
    QTest::newRow("file_twice") << Entries{fileEntry("f"), fileEntry("./f")} << "appears twice";
    QTest::newRow("file_replaced_by_link")
        << Entries{fileEntry("f"), symlinkEntry("f", "g")} << "appears twice";
    QTest::newRow("file_replaced_by_directory") << Entries{fileEntry("f"), dirEntry("f")} << "appears twice";
    QTest::newRow("link_replaced_by_file")
        << Entries{symlinkEntry("l", "x"), fileEntry("l")} << "appears twice";
    QTest::newRow("too_many_entries") << Entries{fileEntry("1"), fileEntry("2"), fileEntry("3"),
                                                 dirEntry("4"),  dirEntry("5"),  fileEntry("6")}
                                      << "one entry more than the 5 allowed";
    QTest::newRow("too_many_directories_on_the_way")
        << Entries{fileEntry("a/b/c/d/e/f")} << "needs one directory more than the 5 entries allowed";
    QTest::newRow("path_too_long") << Entries{fileEntry(longPath)} << "longer than the 64 bytes";
    // A name no file system holds (NAME_MAX) is the archive's fault, refused before anything is written.
    QTest::newRow("name_too_long") << Entries{fileEntry(std::string(41, 'n'))} << "at most 40 bytes";
    QTest::newRow("directory_name_too_long")
        << Entries{fileEntry(std::string(41, 'd') + "/f")} << "a name of 41 bytes";
    QTest::newRow("link_name_too_long") << Entries{symlinkEntry(std::string(41, 'l'), "x")} << "at most 40 bytes";
    QTest::newRow("link_target_too_long")
        << Entries{symlinkEntry("l", longPath)} << "longer than the 64 bytes";
    QTest::newRow("total_size_exceeded")
        << Entries{fileEntry("a", 60), fileEntry("b", 41)} << "past the 100 bytes";
    QTest::newRow("huge_declared_size") << Entries{fileEntry("a", ~std::uint64_t{0})} << "past the 100 bytes";
    QTest::newRow("sizes_that_would_overflow")
        << Entries{fileEntry("a", 100), fileEntry("b", ~std::uint64_t{0} - 50)} << "past the 100 bytes";
}

void UploadPolicyTest::refuses() {
    QFETCH(Entries, entries);
    QFETCH(QString, reason);
    UploadPolicy policy(smallLimits());
    for (std::size_t i = 0; i + 1 < entries.size(); ++i) {
        auto admitted = policy.admit(entries[i]);
        QVERIFY2(admitted.ok(), admitted.ok() ? "" : admitted.error().message.c_str());
    }
    auto last = policy.admit(entries.back());
    QVERIFY(!last.ok());
    const QString message = QString::fromStdString(last.error().message);
    QVERIFY2(message.contains(reason), qPrintable(message));
    QVERIFY2(message.contains("\"" + QString::fromStdString(
                                         entries.back().path.substr(0, entries.back().path.find('\0')))),
             qPrintable(message)); // names the entry
    QVERIFY2(message.contains("offset 3584"), qPrintable(message));
}

void UploadPolicyTest::refusesChainsAtTheEnd_data() {
    QTest::addColumn<Entries>("entries");
    QTest::addColumn<QString>("reason"); // empty: finish() admits
    // d/l2 -> ".." is the root; d/l1 -> "l2/../.." looks like d/.. lexically, but through l2 it is root/..
    QTest::newRow("chain_escapes_through_parent_link")
        << Entries{symlinkEntry("d/l2", ".."), symlinkEntry("d/l1", "l2/../..")} << "leads outside the tree";
    QTest::newRow("chain_escapes_link_defined_later")
        << Entries{symlinkEntry("d/l1", "l2/../.."), symlinkEntry("d/l2", "..")} << "leads outside the tree";
    QTest::newRow("chain_through_deep_target")
        << Entries{symlinkEntry("a/b/c/up", "../../.."), symlinkEntry("a/b/c/x", "up/..")}
        << "leads outside the tree";
    QTest::newRow("loop") << Entries{symlinkEntry("a", "b"), symlinkEntry("b", "a")} << "loop of links";
    QTest::newRow("self_loop") << Entries{symlinkEntry("a", "a/x")} << "loop of links";
    QTest::newRow("chain_stays_inside")
        << Entries{symlinkEntry("d/l2", ".."), symlinkEntry("d/l1", "l2/d/x")} << "";
    QTest::newRow("link_to_link") << Entries{fileEntry("f"), symlinkEntry("a", "b"), symlinkEntry("b", "f")}
                                  << "";
    QTest::newRow("link_into_missing_dir") << Entries{symlinkEntry("a", "no/such/../thing")} << "";
}

void UploadPolicyTest::refusesChainsAtTheEnd() {
    QFETCH(Entries, entries);
    QFETCH(QString, reason);
    UploadPolicy policy(UploadLimits{});
    for (const auto& entry : entries) {
        auto admitted = policy.admit(entry);
        QVERIFY2(admitted.ok(), admitted.ok() ? "" : admitted.error().message.c_str());
    }
    const auto finished = policy.finish();
    if (reason.isEmpty()) {
        QVERIFY2(finished.ok(), finished.ok() ? "" : finished.error().message.c_str());
        return;
    }
    QVERIFY(!finished.ok());
    const QString message = QString::fromStdString(finished.error().message);
    QVERIFY2(message.contains(reason) && message.contains("symbolic link \""), qPrintable(message));
}

void UploadPolicyTest::admits_data() {
    QTest::addColumn<Entries>("entries");
    QTest::addColumn<QString>("path"); // of the last entry, normalised
    QTest::addColumn<int>("mode");
    QTest::newRow("plain_file") << Entries{fileEntry("src/a.c")} << "src/a.c" << 0644;
    QTest::newRow("setuid_setgid_sticky_dropped") << Entries{fileEntry("bin/x", 1, 07755)} << "bin/x" << 0755;
    QTest::newRow("owner_gets_read_write") << Entries{fileEntry("locked", 1, 0)} << "locked" << 0600;
    QTest::newRow("directory_owner_gets_all") << Entries{dirEntry("d", 0)} << "d" << 0700;
    QTest::newRow("sticky_directory_dropped") << Entries{dirEntry("tmp/", 01777)} << "tmp" << 0777;
    QTest::newRow("dot_and_empty_components") << Entries{fileEntry("./a//b/./c")} << "a/b/c" << 0644;
    QTest::newRow("root_directory_entry") << Entries{dirEntry("./"), fileEntry("./x")} << "x" << 0644;
    QTest::newRow("root_directory_alone") << Entries{dirEntry(".")} << "" << 0755;
    QTest::newRow("dots_inside_names")
        << Entries{fileEntry("a..b/...c/.hidden")} << "a..b/...c/.hidden" << 0644;
    QTest::newRow("directory_twice") << Entries{dirEntry("d"), dirEntry("d/")} << "d" << 0755;
    QTest::newRow("directory_after_its_child") << Entries{fileEntry("d/x"), dirEntry("d")} << "d" << 0755;
    QTest::newRow("symlink_sibling") << Entries{symlinkEntry("d/l", "../x")} << "d/l" << 0;
    QTest::newRow("symlink_to_dot") << Entries{symlinkEntry("l", ".")} << "l" << 0;
    QTest::newRow("symlink_to_dir_with_trailing_slash") << Entries{symlinkEntry("l", "a/b/")} << "l" << 0;
    const std::string longestPath = std::string(40, 'e') + "/" + std::string(23, 'e'); // 64 bytes
    QTest::newRow("exactly_the_limits") << Entries{fileEntry("a", 50), fileEntry("b", 50), dirEntry("c"),
                                                   fileEntry(longestPath, 0)}
                                        << QString::fromStdString(longestPath) << 0644;
}

void UploadPolicyTest::admits() {
    QFETCH(Entries, entries);
    QFETCH(QString, path);
    QFETCH(int, mode);
    UploadPolicy policy(smallLimits());
    AdmittedEntry last;
    for (const auto& entry : entries) {
        auto admitted = policy.admit(entry);
        QVERIFY2(admitted.ok(), admitted.ok() ? "" : admitted.error().message.c_str());
        last = *admitted;
    }
    QCOMPARE(QString::fromStdString(last.path), path);
    QCOMPARE(static_cast<int>(last.mode), mode);
    QCOMPARE(last.type, entries.back().type);
    QCOMPARE(last.linkTarget, entries.back().linkTarget);
    const auto finished = policy.finish();
    QVERIFY2(finished.ok(), finished.ok() ? "" : finished.error().message.c_str());
}

QTEST_APPLESS_MAIN(UploadPolicyTest)
#include "tst_upload_policy.moc"
