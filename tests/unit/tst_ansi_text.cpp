// AnsiParser: the colours and attributes of tool output survive, every other escape sequence and control
// character disappears, and the result is the same however the stream is chunked. paletteColor: every
// colour of the palette reads on a light and on a dark background.

#include "ui/text/AnsiText.h"

#include <QtTest>
#include <cmath>

using namespace warren::ui;

namespace {

QString describeStyle(const TextStyle& s) {
    QStringList parts;
    const auto color = [](int c) {
        return (c & kTrueColor) ? QStringLiteral("#%1").arg(c & 0xFFFFFF, 6, 16, QLatin1Char('0'))
                                : QString::number(c);
    };
    if (s.fg != kDefaultColor)
        parts << "fg=" + color(s.fg);
    if (s.bg != kDefaultColor)
        parts << "bg=" + color(s.bg);
    if (s.bold)
        parts << "bold";
    if (s.dim)
        parts << "dim";
    if (s.italic)
        parts << "italic";
    if (s.underline)
        parts << "underline";
    if (s.inverse)
        parts << "inverse";
    return "{" + parts.join(' ') + "}";
}

// "{fg=1 bold}text" for each run, in order.
QStringList describe(const std::vector<StyledRun>& runs) {
    QStringList out;
    for (const auto& run : runs)
        out << describeStyle(run.style) + QString::fromStdString(run.text);
    return out;
}

// What a view does with the pieces: appends them, merging adjacent runs of one style.
void appendMerged(std::vector<StyledRun>& all, std::vector<StyledRun> runs) {
    for (auto& run : runs) {
        if (!all.empty() && all.back().style == run.style)
            all.back().text += run.text;
        else
            all.push_back(std::move(run));
    }
}

std::string_view view(const QByteArray& bytes) {
    return std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}

std::vector<StyledRun> parseWhole(const QByteArray& input) {
    AnsiParser parser;
    std::vector<StyledRun> all;
    appendMerged(all, parser.feed(view(input)));
    appendMerged(all, parser.finish());
    return all;
}

bool isValidUtf8(const std::string& text) {
    const QByteArray bytes = QByteArray::fromStdString(text);
    return QString::fromUtf8(bytes).toUtf8() == bytes;
}

double luminance(const QColor& c) {
    const auto linear = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

double contrast(const QColor& a, const QColor& b) {
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Everything the parser handles, in one stream: colours of each kind, attributes, removed sequences of each
// kind, CRLF, a lone CR and multi-byte UTF-8.
const QByteArray kSample =
    QByteArray("\x1b]0;cargo test\x07") + "running 2 tests\r\n" + "test a ... \x1b[32mok\x1b[0m\r\n" +
    "test b ... \x1b[1;31mFAILED\x1b[m\n" + "\x1b[38;5;208mwarn\x1b[39m \x1b[48;2;10;20;30mbg\x1b[49m " +
    "\x1b]8;;https://example.org/\x1b\\link\x1b]8;;\x1b\\ " + "h\xc3\xa9llo \xe2\x9c\x93 " +
    "\xf0\x9f\x90\x87\x1b[2K\x1b[1G" + "10%\r20%\r\x1b[K\n" + "\x1bPq#0\x1b\\\x1b(Bend\x07";

} // namespace

class TestAnsiText : public QObject {
    Q_OBJECT

private slots:
    void parses_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("plain text") << QByteArray("hello\nworld") << QStringList{"{}hello\nworld"};
        QTest::newRow("empty") << QByteArray() << QStringList{};
        QTest::newRow("colour then reset")
            << QByteArray("\x1b[31mred\x1b[0m plain") << QStringList{"{fg=1}red", "{} plain"};
        QTest::newRow("empty parameters reset")
            << QByteArray("\x1b[1mA\x1b[mB") << QStringList{"{bold}A", "{}B"};
        QTest::newRow("empty first parameter is 0")
            << QByteArray("\x1b[31m\x1b[;1mA") << QStringList{"{bold}A"};
        QTest::newRow("bold bright colour") << QByteArray("\x1b[1;92mok") << QStringList{"{fg=10 bold}ok"};
        QTest::newRow("all normal foregrounds")
            << QByteArray("\x1b[30ma\x1b[37mb") << QStringList{"{fg=0}a", "{fg=7}b"};
        QTest::newRow("background and default")
            << QByteArray("\x1b[44mA\x1b[49mB") << QStringList{"{bg=4}A", "{}B"};
        QTest::newRow("bright backgrounds")
            << QByteArray("\x1b[100mA\x1b[107mB") << QStringList{"{bg=8}A", "{bg=15}B"};
        QTest::newRow("default foreground keeps background")
            << QByteArray("\x1b[33;41mA\x1b[39mB") << QStringList{"{fg=3 bg=1}A", "{bg=1}B"};
        QTest::newRow("attributes on")
            << QByteArray("\x1b[1;2;3;4;7mA") << QStringList{"{bold dim italic underline inverse}A"};
        QTest::newRow("attributes off") << QByteArray("\x1b[1;2;3;4;7mA\x1b[22;23;24;27mB")
                                        << QStringList{"{bold dim italic underline inverse}A", "{}B"};
        QTest::newRow("underline styles") << QByteArray("\x1b[4:3mA\x1b[4:0mB\x1b[21mC")
                                          << QStringList{"{underline}A", "{}B", "{underline}C"};
        QTest::newRow("256 colours") << QByteArray("\x1b[38;5;196mA\x1b[48;5;21mB")
                                     << QStringList{"{fg=196}A", "{fg=196 bg=21}B"};
        QTest::newRow("256 colours with colons") << QByteArray("\x1b[38:5:42mA") << QStringList{"{fg=42}A"};
        QTest::newRow("truecolor") << QByteArray("\x1b[38;2;255;128;0mA\x1b[48;2;0;0;1mB")
                                   << QStringList{"{fg=#ff8000}A", "{fg=#ff8000 bg=#000001}B"};
        QTest::newRow("truecolor with colons and colour space")
            << QByteArray("\x1b[38:2::1:2:3mA\x1b[48:2:4:5:6mB")
            << QStringList{"{fg=#010203}A", "{fg=#010203 bg=#040506}B"};
        QTest::newRow("colour then attribute in one sequence")
            << QByteArray("\x1b[38;5;10;1mA") << QStringList{"{fg=10 bold}A"};
        QTest::newRow("underline colour skipped") << QByteArray("\x1b[58;5;3;1mA") << QStringList{"{bold}A"};
        QTest::newRow("256 index out of range") << QByteArray("\x1b[38;5;300mA") << QStringList{"{}A"};
        QTest::newRow("256 without index") << QByteArray("\x1b[38;5mA") << QStringList{"{}A"};
        QTest::newRow("truecolor out of range") << QByteArray("\x1b[38;2;256;0;0mA") << QStringList{"{}A"};
        QTest::newRow("truncated truecolor") << QByteArray("\x1b[38;2;1;2mA") << QStringList{"{}A"};
        QTest::newRow("huge parameter") << QByteArray("\x1b[99999999999999999999mA") << QStringList{"{}A"};
        QTest::newRow("unknown codes ignored") << QByteArray("\x1b[5;8;9;31mA") << QStringList{"{fg=1}A"};
        QTest::newRow("private sgr ignored") << QByteArray("\x1b[>4;2mA") << QStringList{"{}A"};
        QTest::newRow("same style merges")
            << QByteArray("\x1b[31ma\x1b[31mb\x1b[0m\x1b[31mc") << QStringList{"{fg=1}abc"};
        QTest::newRow("cursor movement removed")
            << QByteArray("a\x1b[2K\x1b[1Gb\x1b[10;20Hc\x1b[?25l\x1b[3Ad\x1b[s\x1b[u")
            << QStringList{"{}abcd"};
        QTest::newRow("osc title ended by bel")
            << QByteArray("\x1b]0;my title\x07text") << QStringList{"{}text"};
        QTest::newRow("osc title ended by st")
            << QByteArray("\x1b]2;my title\x1b\\text") << QStringList{"{}text"};
        QTest::newRow("osc hyperlink keeps its text")
            << QByteArray("\x1b]8;;http://x.org/\x1b\\link\x1b]8;;\x1b\\.") << QStringList{"{}link."};
        QTest::newRow("esc inside osc starts a sequence")
            << QByteArray("\x1b]0;t\x1b[31mA") << QStringList{"{fg=1}A"};
        QTest::newRow("dcs removed") << QByteArray("\x1bPq#0;2;0;0;0\x1b\\x") << QStringList{"{}x"};
        QTest::newRow("apc and pm removed")
            << QByteArray("\x1b_Gf=1;abc\x1b\\x\x1b^pm\x1b\\y") << QStringList{"{}xy"};
        QTest::newRow("charset selection removed") << QByteArray("\x1b(Bx\x1b)0y") << QStringList{"{}xy"};
        QTest::newRow("two-byte escapes removed") << QByteArray("\x1b"
                                                                "7a\x1b"
                                                                "8b\x1bMc\x1b=d")
                                                  << QStringList{"{}abcd"};
        QTest::newRow("c0 controls removed") << QByteArray("a\x07"
                                                           "b\x08"
                                                           "c\x00"
                                                           "d\x0f"
                                                           "e\x7f"
                                                           "f",
                                                           11)
                                             << QStringList{"{}abcdef"};
        QTest::newRow("tab kept") << QByteArray("a\tb") << QStringList{"{}a\tb"};
        QTest::newRow("crlf") << QByteArray("a\r\nb\r\n") << QStringList{"{}a\nb\n"};
        QTest::newRow("lone cr is a line break")
            << QByteArray("10%\r20%\r30%") << QStringList{"{}10%\n20%\n30%"};
        QTest::newRow("cr cr lf") << QByteArray("a\r\r\nb") << QStringList{"{}a\n\nb"};
        QTest::newRow("cr erase lf is one break") << QByteArray("a\r\x1b[K\nb") << QStringList{"{}a\nb"};
        QTest::newRow("utf-8 kept") << QByteArray("h\xc3\xa9llo \xe2\x9c\x93") << QStringList{"{}héllo ✓"};
        QTest::newRow("esc esc") << QByteArray("\x1b\x1b[31mA") << QStringList{"{fg=1}A"};
        QTest::newRow("can cancels a sequence") << QByteArray("\x1b[31\x18"
                                                              "A")
                                                << QStringList{"{}A"};
        QTest::newRow("line break interrupts a sequence") << QByteArray("\x1b[31\nA") << QStringList{"{}\nA"};
        QTest::newRow("text interrupts a sequence") << QByteArray("\x1b[3\xc3\xa9") << QStringList{"{}é"};
        QTest::newRow("esc at the end") << QByteArray("a\x1b") << QStringList{"{}a"};
        QTest::newRow("unterminated osc at the end") << QByteArray("a\x1b]0;title") << QStringList{"{}a"};
        QTest::newRow("truncated utf-8 at the end shown")
            << QByteArray("a\xe2\x9c") << QStringList{"{}a\xe2\x9c"};
    }

    void parses() {
        QFETCH(QByteArray, input);
        QFETCH(QStringList, expected);
        QCOMPARE(describe(parseWhole(input)), expected);
    }

    // The same result for every split of the sample into two chunks, and byte by byte; no chunk ever
    // yields half a UTF-8 character.
    void splitAnywhere() {
        const QStringList whole = describe(parseWhole(kSample));
        QVERIFY(!whole.join(QString()).contains(QChar(0x1b)));
        QVERIFY(
            whole.join(QString()).contains(QString::fromUtf8("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\x90\x87")));
        for (qsizetype split = 0; split <= kSample.size(); ++split) {
            AnsiParser parser;
            std::vector<StyledRun> all;
            for (const QByteArray& chunk : {kSample.left(split), kSample.mid(split)}) {
                auto runs = parser.feed(view(chunk));
                for (const auto& run : runs)
                    QVERIFY2(isValidUtf8(run.text), qPrintable(QStringLiteral("split at %1").arg(split)));
                appendMerged(all, std::move(runs));
            }
            appendMerged(all, parser.finish());
            QVERIFY2(describe(all) == whole, qPrintable(QStringLiteral("split at %1").arg(split)));
        }
        AnsiParser parser;
        std::vector<StyledRun> all;
        for (qsizetype i = 0; i < kSample.size(); ++i)
            appendMerged(all, parser.feed(view(kSample.mid(i, 1))));
        appendMerged(all, parser.finish());
        QCOMPARE(describe(all), whole);
    }

    void runawaySequencesAreBounded_data() {
        QTest::addColumn<QByteArray>("opening");
        QTest::addColumn<int>("filler");
        QTest::addColumn<int>("bound");
        QTest::newRow("csi") << QByteArray("\x1b[") << int('1') << int(AnsiParser::kMaxControlSequence);
        QTest::newRow("escape intermediates")
            << QByteArray("\x1b(") << int(' ') << int(AnsiParser::kMaxControlSequence);
        QTest::newRow("osc") << QByteArray("\x1b]0;") << int('t') << int(AnsiParser::kMaxStringSequence);
        QTest::newRow("dcs") << QByteArray("\x1bP") << int('q') << int(AnsiParser::kMaxStringSequence);
    }

    // A sequence that never ends swallows at most its bound; what follows is shown.
    void runawaySequencesAreBounded() {
        QFETCH(QByteArray, opening);
        QFETCH(int, filler);
        QFETCH(int, bound);
        const QByteArray input = opening + QByteArray(100000, char(filler)) + "visible";
        AnsiParser parser;
        std::vector<StyledRun> all;
        for (qsizetype i = 0; i < input.size(); i += 1000)
            appendMerged(all, parser.feed(view(input.mid(i, 1000))));
        QCOMPARE(all.size(), std::size_t(1));
        QVERIFY(all.front().text.ends_with("visible"));
        const auto swallowed = static_cast<std::size_t>(input.size()) - all.front().text.size();
        QVERIFY(swallowed <= static_cast<std::size_t>(bound));
        QVERIFY(swallowed > 0);
    }

    void styleCarriesAcrossChunks() {
        AnsiParser parser;
        QCOMPARE(describe(parser.feed("\x1b[3")), QStringList{});
        QCOMPARE(describe(parser.feed("4mblue")), QStringList{"{fg=4}blue"});
        QCOMPARE(describe(parser.feed(" still")), QStringList{"{fg=4} still"});
        QCOMPARE(describe(parser.feed("a\r")), QStringList{"{fg=4}a\n"});
        QCOMPARE(describe(parser.feed("\nb")), QStringList{"{fg=4}b"}); // the LF of a CRLF cut in two
        parser.reset();
        QCOMPARE(describe(parser.feed("plain")), QStringList{"{}plain"});
    }

    void xtermColors_data() {
        QTest::addColumn<int>("color");
        QTest::addColumn<QColor>("expected");
        QTest::newRow("system black") << 0 << QColor(0, 0, 0);
        QTest::newRow("system bright white") << 15 << QColor(255, 255, 255);
        QTest::newRow("cube origin") << 16 << QColor(0, 0, 0);
        QTest::newRow("cube blue") << 21 << QColor(0, 0, 255);
        QTest::newRow("cube red") << 196 << QColor(255, 0, 0);
        QTest::newRow("cube mixed") << 208 << QColor(255, 135, 0);
        QTest::newRow("first grey") << 232 << QColor(8, 8, 8);
        QTest::newRow("last grey") << 255 << QColor(238, 238, 238);
        QTest::newRow("truecolor") << (kTrueColor | 0x123456) << QColor(0x12, 0x34, 0x56);
        QTest::newRow("default") << kDefaultColor << QColor();
    }

    void xtermColors() {
        QFETCH(int, color);
        QFETCH(QColor, expected);
        QCOMPARE(xtermColor(color), expected);
    }

    void paletteReadsOnBothBackgrounds_data() {
        QTest::addColumn<QColor>("background");
        QTest::newRow("light") << QColor(255, 255, 255);
        QTest::newRow("light grey") << QColor(0xf0, 0xf0, 0xf0);
        QTest::newRow("dark") << QColor(0x1e, 0x1e, 0x1e);
        QTest::newRow("black") << QColor(0, 0, 0);
    }

    void paletteReadsOnBothBackgrounds() {
        QFETCH(QColor, background);
        for (int color = 0; color < 256; ++color) {
            const QColor shown = paletteColor(color, background);
            QVERIFY2(contrast(shown, background) >= 4.5,
                     qPrintable(QStringLiteral("colour %1 shown as %2").arg(color).arg(shown.name())));
        }
        QVERIFY(contrast(paletteColor(kTrueColor | 0xffff00, background), background) >= 4.5);
        QVERIFY(!paletteColor(kDefaultColor, background).isValid());
    }

    void paletteKeepsReadableColors() {
        QCOMPARE(paletteColor(0, QColor(Qt::white)), QColor(Qt::black));
        QCOMPARE(paletteColor(15, QColor(Qt::black)), QColor(Qt::white));
        QCOMPARE(paletteColor(kTrueColor | 0x8000ff, QColor(Qt::white)), QColor(0x80, 0x00, 0xff));
        // yellow is darkened on white, keeping its hue
        const QColor yellow = paletteColor(3, QColor(Qt::white));
        QVERIFY(yellow != xtermColor(3));
        QVERIFY(std::abs(yellow.hue() - xtermColor(3).hue()) <= 2);
    }
};

QTEST_GUILESS_MAIN(TestAnsiText)
#include "tst_ansi_text.moc"
