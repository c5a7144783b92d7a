// SnapshotRules: which directories are dependency directories, what is large, and each path said to git as
// a pattern that matches exactly it.

#include "app/snapshots/SnapshotRules.h"

#include <QTest>

using namespace warren::snapshots;

class SnapshotRulesTest : public QObject {
    Q_OBJECT
private slots:
    void dependencyDirs_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("skipped");
        QTest::newRow("node_modules") << "node_modules" << true;
        QTest::newRow("python venv") << ".venv" << true;
        QTest::newRow("cargo target") << "target" << true;
        QTest::newRow("build") << "build" << true;
        QTest::newRow("pycache") << "__pycache__" << true;
        QTest::newRow("source") << "src" << false;
        QTest::newRow("a prefix of one is not one") << "node_modules2" << false;
        QTest::newRow("case matters") << "Build" << false;
    }
    void dependencyDirs() {
        QFETCH(QString, name);
        QFETCH(bool, skipped);
        QCOMPARE(SnapshotRules{}.isDependencyDir(name.toStdString()), skipped);
    }

    void held() {
        SnapshotRules rules;
        rules.heldPaths = {".envrc", ".vscode"};
        QVERIFY(rules.isHeld(".vscode"));
        QVERIFY(!rules.isHeld(".vscode/settings.json")); // never reached: the walk does not enter .vscode
        QVERIFY(!rules.isHeld("src/.envrc"));
        const std::string text = excludeFileText(rules, {}, {});
        QVERIFY(text.find("\n/.envrc\n") != std::string::npos);
        QVERIFY(text.find("\n/.vscode\n") != std::string::npos);
    }

    void large() {
        SnapshotRules rules;
        rules.largeFileBytes = 100;
        QVERIFY(!rules.isLarge(100));
        QVERIFY(rules.isLarge(101));
    }

    void literalPattern_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("directory");
        QTest::addColumn<QString>("pattern");
        QTest::newRow("plain") << "data/big.bin" << false << "/data/big.bin";
        QTest::newRow("directory") << "vendor/repo" << true << "/vendor/repo/";
        QTest::newRow("globs escaped") << "a*b?[c].bin" << false << "/a\\*b\\?\\[c\\].bin";
        QTest::newRow("leading hash and bang") << "#x/!y" << false << "/\\#x/\\!y";
        QTest::newRow("trailing space kept") << "name " << false << "/name\\ ";
        QTest::newRow("backslash") << "a\\b" << false << "/a\\\\b";
        QTest::newRow("newline cannot be said") << "a\nb" << false << "";
    }
    void literalPattern() {
        QFETCH(QString, path);
        QFETCH(bool, directory);
        QFETCH(QString, pattern);
        auto got = warren::snapshots::literalPattern(path.toStdString(), directory);
        QCOMPARE(got ? QString::fromStdString(*got) : QString(), pattern);
    }

    void excludeFile() {
        const std::string text = excludeFileText(SnapshotRules{}, {"big.iso"}, {"empty-repo"});
        QVERIFY(text.find("\nnode_modules/\n") != std::string::npos);
        QVERIFY(text.find("\n/big.iso\n") != std::string::npos);
        QVERIFY(text.find("\n/empty-repo/\n") != std::string::npos);
    }

    void attributes() {
        // No filter, no end-of-line conversion, no encoding: the bytes as they are.
        QCOMPARE(QString::fromStdString(attributesFileText()),
                 QString("* -text -filter -ident -working-tree-encoding\n"));
    }
};

QTEST_APPLESS_MAIN(SnapshotRulesTest)
#include "tst_snapshot_rules.moc"
