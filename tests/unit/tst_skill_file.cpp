// A SKILL.md read (FrontMatter, parseSkillFile; pure): the front matter between "---" lines read by the small
// strict reader (plain, quoted, multi-line plain and simple block values; the keys nobody reads left unread,
// whatever YAML they hold; CRLF line ends and a byte-order mark accepted), the name and description checked
// as the Agent Skills format says, and each malformed file refused with a message naming the line and why.

#include "agent_core/skills/FrontMatter.h"
#include "agent_core/skills/SkillFile.h"

#include <QtTest>

using namespace warren;
using namespace warren::agent;

namespace {

QByteArray skillMd(const QByteArray& frontMatter, const QByteArray& body = "# Instructions\n") {
    return "---\n" + frontMatter + "---\n" + body;
}

std::string_view viewOf(const QByteArray& bytes) {
    return std::string_view(bytes.constData(), std::size_t(bytes.size()));
}

} // namespace

class TestSkillFile : public QObject {
    Q_OBJECT
private slots:
    void readsNameDescriptionAndBody_data() {
        QTest::addColumn<QByteArray>("document");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("description");
        QTest::addColumn<QString>("body");
        QTest::newRow("plain values")
            << QByteArray(
                   "---\nname: pdf\ndescription: Extract text from PDF files.\n---\n\n# PDF\nRun it.\n")
            << "pdf"
            << "Extract text from PDF files."
            << "# PDF\nRun it.\n";
        QTest::newRow("CRLF line ends")
            << QByteArray("---\r\nname: pdf\r\ndescription: Extract text.\r\n---\r\n\r\n# PDF\r\nRun it.\r\n")
            << "pdf"
            << "Extract text."
            << "# PDF\nRun it.\n";
        QTest::newRow("byte-order mark")
            << QByteArray("\xEF\xBB\xBF---\nname: pdf\ndescription: Extract text.\n---\nBody\n") << "pdf"
            << "Extract text."
            << "Body\n";
        QTest::newRow("description first, then name")
            << skillMd("description: Extract text.\nname: pdf\n") << "pdf"
            << "Extract text."
            << "# Instructions\n";
        QTest::newRow("single-quoted")
            << skillMd("name: 'pdf'\ndescription: 'It''s for PDFs: all of them'\n") << "pdf"
            << "It's for PDFs: all of them"
            << "# Instructions\n";
        QTest::newRow("double-quoted with escapes")
            << skillMd("name: \"pdf\"\ndescription: \"Tab\\there, \\u00e9, \\\"quoted\\\", a \\\\ slash\"\n")
            << "pdf" << QString::fromUtf8("Tab\there, \xC3\xA9, \"quoted\", a \\ slash")
            << "# Instructions\n";
        QTest::newRow("a colon in a plain value, as other clients read it")
            << skillMd("name: pdf\ndescription: Use when: the user mentions PDFs\n") << "pdf"
            << "Use when: the user mentions PDFs"
            << "# Instructions\n";
        QTest::newRow("comments")
            << skillMd("# the skill\nname: pdf # its name\ndescription: Extract text. # what it does\n")
            << "pdf"
            << "Extract text."
            << "# Instructions\n";
        QTest::newRow("a plain value over lines")
            << skillMd("name: pdf\ndescription: Extract text\n  and tables.\n\n  Fill forms.\n") << "pdf"
            << "Extract text and tables.\nFill forms."
            << "# Instructions\n";
        QTest::newRow("a plain value on the next line")
            << skillMd("name: pdf\ndescription:\n  Extract text\n  and tables.\n") << "pdf"
            << "Extract text and tables."
            << "# Instructions\n";
        QTest::newRow("folded block")
            << skillMd("name: pdf\ndescription: >\n  Extract text\n  and tables.\n\n  Fill forms.\n") << "pdf"
            << "Extract text and tables.\nFill forms."
            << "# Instructions\n";
        QTest::newRow("literal block, stripped")
            << skillMd("name: pdf\ndescription: |-\n  Extract text.\n    Indented.\n  Fill forms.\n") << "pdf"
            << "Extract text.\n  Indented.\nFill forms."
            << "# Instructions\n";
        QTest::newRow("keys nobody reads hold any YAML")
            << skillMd(
                   "name: pdf\ndescription: Extract text.\nlicense: Apache-2.0\nallowed-tools: [Read, Grep]\n"
                   "metadata:\n  author: example-org\n  version: \"1.0\"\n  tags:\n    - a\n    - {b: c}\n"
                   "compatibility: >2\n   weird but unread\n")
            << "pdf"
            << "Extract text."
            << "# Instructions\n";
        QTest::newRow("a tab inside a value") << skillMd("name: pdf\ndescription:\tExtract\ttext.\n") << "pdf"
                                              << "Extract\ttext."
                                              << "# Instructions\n";
        QTest::newRow("1024 two-byte characters")
            << skillMd("name: accents\ndescription: " + QString(1024, QChar(0xE9)).toUtf8() + "\n")
            << "accents" << QString(1024, QChar(0xE9)) << "# Instructions\n";
        QTest::newRow("a 64-character name")
            << skillMd("name: " + QByteArray(64, 'a') + "\ndescription: Long name.\n") << QString(64, 'a')
            << "Long name."
            << "# Instructions\n";
        QTest::newRow("digits and hyphens") << skillMd("name: pdf-2-text\ndescription: x\n") << "pdf-2-text"
                                            << "x"
                                            << "# Instructions\n";
        QTest::newRow("horizontal rules in the body stay in it")
            << QByteArray("---\nname: pdf\ndescription: x\n---\nOne\n---\nTwo\n") << "pdf"
            << "x"
            << "One\n---\nTwo\n";
        QTest::newRow("no body") << QByteArray("---\nname: pdf\ndescription: x\n---") << "pdf"
                                 << "x"
                                 << "";
    }

    void readsNameDescriptionAndBody() {
        QFETCH(QByteArray, document);
        QFETCH(QString, name);
        QFETCH(QString, description);
        QFETCH(QString, body);
        const auto skill = parseSkillFile(viewOf(document));
        QVERIFY2(skill, skill ? "" : skill.error().message.c_str());
        QCOMPARE(QString::fromStdString(skill->name), name);
        QCOMPARE(QString::fromStdString(skill->description), description);
        QCOMPARE(QString::fromStdString(skill->body), body);
    }

    void malformedFileIsRefused_data() {
        QTest::addColumn<QByteArray>("document");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty file") << QByteArray()
                                    << "no front matter: the file must start with a line \"---\"";
        QTest::newRow("no front matter") << QByteArray("# PDF\nname: pdf\n") << "no front matter";
        QTest::newRow("front matter not on the first line")
            << QByteArray("\n---\nname: pdf\ndescription: x\n---\n") << "no front matter";
        QTest::newRow("unterminated")
            << QByteArray("---\nname: pdf\ndescription: x\n\n# PDF\n")
            << "the front matter is not closed: no line \"---\" after the one on line 1";
        QTest::newRow("unterminated, CRLF")
            << QByteArray("---\r\nname: pdf\r\ndescription: x\r\n") << "the front matter is not closed";
        QTest::newRow("no name") << skillMd("description: x\n") << "no \"name\" in the front matter";
        QTest::newRow("no description")
            << skillMd("name: pdf\n")
            << "no \"description\" in the front matter: the model would not know when";
        QTest::newRow("empty name") << skillMd("name: \"\"\ndescription: x\n") << "\"name\" is empty";
        QTest::newRow("name without a value") << skillMd("name:\ndescription: x\n") << "\"name\" is empty";
        QTest::newRow("empty description")
            << skillMd("name: pdf\ndescription:   \n") << "\"description\" is empty";
        QTest::newRow("blank block description")
            << skillMd("name: pdf\ndescription: |\n\n") << "\"description\" is empty";
        QTest::newRow("capitals in the name")
            << skillMd("name: PDF\ndescription: x\n")
            << "\"name\" must be lowercase letters, digits and hyphens, got \"PDF\"";
        QTest::newRow("a space in the name")
            << skillMd("name: pdf tools\ndescription: x\n")
            << "must be lowercase letters, digits and hyphens, got \"pdf tools\"";
        QTest::newRow("an underscore in the name")
            << skillMd("name: pdf_tools\ndescription: x\n") << "got \"pdf_tools\"";
        QTest::newRow("a slash in the name") << skillMd("name: ../etc\ndescription: x\n") << "got \"../etc\"";
        QTest::newRow("name too long") << skillMd("name: " + QByteArray(65, 'a') + "\ndescription: x\n")
                                       << "\"name\" is longer than 64 characters (65)";
        QTest::newRow("description too long")
            << skillMd("name: pdf\ndescription: " + QByteArray(1025, 'x') + "\n")
            << "\"description\" is longer than 1024 characters (1025)";
        QTest::newRow("name twice") << skillMd("name: pdf\ndescription: x\nname: other\n")
                                    << "line 4: \"name\" is there twice (first on line 2)";
        QTest::newRow("an unread key twice")
            << skillMd("name: pdf\nlicense: MIT\ndescription: x\nlicense: GPL\n")
            << "line 5: \"license\" is there twice (first on line 3)";
        QTest::newRow("a tab as indentation")
            << skillMd("name: pdf\ndescription: >\n\tExtract text.\n")
            << "line 4: a tab in the indentation (YAML indents with spaces only)";
        QTest::newRow("a tab after spaces as indentation")
            << skillMd("name: pdf\nmetadata:\n  \tauthor: x\ndescription: x\n")
            << "line 4: a tab in the indentation";
        QTest::newRow("a line that is not key: value")
            << skillMd("name: pdf\njust some text\ndescription: x\n")
            << "line 3: expected \"key: value\", got \"just some text\"";
        QTest::newRow("a list at the top") << skillMd("- name: pdf\n") << "line 2: expected \"key: value\"";
        QTest::newRow("no space after the colon")
            << skillMd("name:pdf\ndescription: x\n") << "line 2: expected \"key: value\", got \"name:pdf\"";
        QTest::newRow("a quoted key")
            << skillMd("\"name\": pdf\ndescription: x\n") << "line 2: expected \"key: value\"";
        QTest::newRow("an indented line before any key")
            << skillMd("  name: pdf\ndescription: x\n") << "line 2: an indented line before the first key";
        QTest::newRow("a quoted value over lines")
            << skillMd("name: pdf\ndescription: \"Extract\n  text\"\n")
            << "line 3: \"description\": a quoted value must end on its line";
        QTest::newRow("an escaped line break") << skillMd("name: pdf\ndescription: \"Extract \\\n  text\"\n")
                                               << "a quoted value must end on its line";
        QTest::newRow("text after the closing quote")
            << skillMd("name: pdf\ndescription: \"Extract\" text\n")
            << "line 3: \"description\": text after the closing quote";
        QTest::newRow("an indented line after a quoted value")
            << skillMd("name: pdf\ndescription: 'Extract'\n  text\n")
            << "line 4: \"description\": an indented line after a quoted value";
        QTest::newRow("an unknown escape") << skillMd("name: pdf\ndescription: \"a \\q b\"\n")
                                           << "\"description\": the escape \\q is not read";
        QTest::newRow("a surrogate escape") << skillMd("name: pdf\ndescription: \"\\ud800\"\n")
                                            << "\\u is not followed by 4 hex digits of a character";
        QTest::newRow("a flow list") << skillMd("name: pdf\ndescription: [a, b]\n")
                                     << "line 3: \"description\" must be text, not a list or a mapping";
        QTest::newRow("a flow mapping")
            << skillMd("name: {a: b}\ndescription: x\n") << "\"name\" must be text, not a list or a mapping";
        QTest::newRow("a nested mapping") << skillMd("name: pdf\ndescription:\n  en: Extract text.\n")
                                          << "line 4: \"description\" must be text, not a list or a mapping";
        QTest::newRow("a list") << skillMd("name:\n  - pdf\ndescription: x\n")
                                << "line 3: \"name\" must be text, not a list or a mapping";
        QTest::newRow("an anchor") << skillMd("name: pdf\ndescription: &d Extract text.\n")
                                   << "\"description\": anchors, aliases and tags are not read";
        QTest::newRow("an alias") << skillMd("name: pdf\ndescription: *d\n") << "anchors, aliases and tags";
        QTest::newRow("a tag") << skillMd("name: !!str pdf\ndescription: x\n") << "anchors, aliases and tags";
        QTest::newRow("a reserved indicator") << skillMd("name: pdf\ndescription: @everyone\n")
                                              << "a plain value cannot start with '@'; quote it";
        QTest::newRow("an indentation indicator")
            << skillMd("name: pdf\ndescription: |2\n  x\n")
            << "line 3: \"description\": a block with an indentation indicator";
        QTest::newRow("an indentation indicator after chomping")
            << skillMd("name: pdf\ndescription: >-2\n  x\n") << "a block with an indentation indicator";
        QTest::newRow("text after a block indicator")
            << skillMd("name: pdf\ndescription: | text\n  x\n") << "expected nothing or a comment after '|'";
        QTest::newRow("a folded block with more-indented lines")
            << skillMd("name: pdf\ndescription: >\n  Extract\n    text\n")
            << "line 5: \"description\": a folded block (>) with more-indented lines is not read";
        QTest::newRow("a block line less indented than its first")
            << skillMd("name: pdf\ndescription: |\n    Extract\n  text\n")
            << "line 5: \"description\": a line less indented than the block's first";
        QTest::newRow("a comment inside a value that goes on")
            << skillMd("name: pdf\ndescription: Extract # note\n  text\n")
            << "line 3: \"description\": a comment inside a value that goes on is not read";
        QTest::newRow("NUL bytes") << skillMd("name: pdf\ndescription: x\n", QByteArray("bo\0dy\n", 6))
                                   << "it holds NUL bytes: not a text file";
        QTest::newRow("description not UTF-8")
            << skillMd("name: pdf\ndescription: caf\xE9\n") << "\"description\" is not valid UTF-8";
        QTest::newRow("a control character") << skillMd("name: pdf\ndescription: \"bell \\u0007\"\n")
                                             << "\"description\" holds a control character";
        QTest::newRow("too large") << skillMd("name: pdf\ndescription: x\n", QByteArray(256 * 1024, 'x'))
                                   << "larger than 256 KiB";
    }

    void malformedFileIsRefused() {
        QFETCH(QByteArray, document);
        QFETCH(QString, message);
        const auto skill = parseSkillFile(viewOf(document));
        QVERIFY(!skill);
        QVERIFY2(QString::fromStdString(skill.error().message).contains(message),
                 skill.error().message.c_str());
    }

    void blockChomping_data() {
        QTest::addColumn<QByteArray>("block");
        QTest::addColumn<QString>("text");
        QTest::newRow("literal, clipped") << QByteArray("|\n  a\n  b\n\n\n") << "a\nb\n";
        QTest::newRow("literal, stripped") << QByteArray("|-\n  a\n  b\n\n") << "a\nb";
        QTest::newRow("literal, kept") << QByteArray("|+\n  a\n  b\n\n\n") << "a\nb\n\n\n";
        QTest::newRow("literal, blank line inside") << QByteArray("|\n  a\n\n  b\n") << "a\n\nb\n";
        QTest::newRow("folded, clipped") << QByteArray(">\n  a\n  b\n\n  c\n") << "a b\nc\n";
        QTest::newRow("folded, stripped") << QByteArray(">-\n  a\n  b\n") << "a b";
        QTest::newRow("a comment after the indicator") << QByteArray("| # keep it\n  a\n") << "a\n";
        QTest::newRow("a hash inside the block is text")
            << QByteArray("|\n  # a heading\n  b\n") << "# a heading\nb\n";
    }

    void blockChomping() {
        QFETCH(QByteArray, block);
        QFETCH(QString, text);
        const QByteArray document = skillMd("key: " + block + "other: x\n");
        const auto matter = FrontMatter::read(viewOf(document));
        QVERIFY2(matter, matter ? "" : matter.error().message.c_str());
        const auto value = matter->text("key");
        QVERIFY2(value, value ? "" : value.error().message.c_str());
        QVERIFY(value->has_value());
        QCOMPARE(QString::fromStdString(**value), text);
    }

    void keysAreListedAndAbsentOnesAreNullopt() {
        const QByteArray document = skillMd("name: pdf\nlicense: MIT\nmetadata:\n  a: b\ndescription: x\n");
        const auto matter = FrontMatter::read(viewOf(document));
        QVERIFY(matter);
        QCOMPARE(matter->keys(), (std::vector<std::string>{"name", "license", "metadata", "description"}));
        const auto absent = matter->text("version");
        QVERIFY(absent);
        QVERIFY(!absent->has_value());
        QCOMPARE(matter->body(), std::string("# Instructions\n"));
    }

    void skillNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("valid");
        QTest::newRow("letters") << "pdf" << true;
        QTest::newRow("digits and hyphens") << "a-1-b" << true;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("capital") << "Pdf" << false;
        QTest::newRow("dot") << "a.b" << false;
        QTest::newRow("64") << QString(64, 'x') << true;
        QTest::newRow("65") << QString(65, 'x') << false;
        QTest::newRow("non-ASCII") << QString::fromUtf8("caf\xC3\xA9") << false;
    }

    void skillNames() {
        QFETCH(QString, name);
        QFETCH(bool, valid);
        QCOMPARE(isValidSkillName(name.toStdString()), valid);
    }
};

QTEST_APPLESS_MAIN(TestSkillFile)
#include "tst_skill_file.moc"
