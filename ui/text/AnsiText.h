#pragma once
// The output of the tools an agent runs (compilers, test runners, git, npm) as the timeline shows it: UTF-8
// text with ANSI escape sequences, arriving in whatever pieces the pipe delivers. The parser keeps the
// colours and attributes (SGR) and removes everything a log view cannot honour (cursor movement, erasing,
// window titles, hyperlinks, device queries), so no escape byte ever reaches the screen. Pure and single
// pass: it runs on the UI thread for tasks printing ten thousand lines a second.

#include <QColor>
#include <string>
#include <string_view>
#include <vector>

namespace warren::ui {

// A colour that is not an index of the xterm palette: kTrueColor | 0xRRGGBB.
inline constexpr int kTrueColor = 1 << 24;
inline constexpr int kDefaultColor = -1;

struct TextStyle {
    int fg = kDefaultColor; // kDefaultColor, 0..255 (xterm palette), or kTrueColor | 0xRRGGBB
    int bg = kDefaultColor;
    bool bold = false;
    bool dim = false;
    bool italic = false;
    bool underline = false;
    bool inverse = false;
    friend bool operator==(const TextStyle&, const TextStyle&) = default;
};

struct StyledRun {
    std::string text; // UTF-8; line breaks are '\n' only, tabs kept
    TextStyle style;
    friend bool operator==(const StyledRun&, const StyledRun&) = default;
};

class AnsiParser {
public:
    // Parses the next bytes of the stream and returns the text they completed, adjacent text of one style
    // merged into one run. A sequence or UTF-8 character cut at the end of the chunk is kept and completed
    // by the next call, so the result never depends on how the stream was chunked.
    std::vector<StyledRun> feed(std::string_view chunk);
    // The stream ended: returns bytes held back as the start of an unfinished UTF-8 character (as they are;
    // the view shows them as replacement characters) and forgets an unfinished escape sequence.
    std::vector<StyledRun> finish();
    // Back to the start of a stream: default style, nothing pending.
    void reset();

    const TextStyle& style() const { return m_style; }

    // Bounds on what a sequence left unterminated by a broken or truncated tool can swallow: past these, the
    // parser drops the sequence and shows what follows as text. Control sequences (CSI, ESC) are never long;
    // strings (OSC, DCS, APC, PM, SOS) carry window titles and hyperlink targets, which can be.
    static constexpr std::size_t kMaxControlSequence = 256;
    static constexpr std::size_t kMaxStringSequence = 4096;

private:
    enum class State { Ground, Escape, EscapeIntermediate, Csi, String, StringEscape };

    void appendText(std::vector<StyledRun>& out, std::string_view text);
    // Each returns false when it did not consume the byte, which is then handled again in the new state.
    bool consumeEscape(unsigned char c);
    bool consumeCsi(unsigned char c);
    bool consumeString(unsigned char c);
    void holdBackUnfinishedUtf8(std::vector<StyledRun>& out);

    State m_state = State::Ground;
    TextStyle m_style;
    std::string m_csi;               // parameter and intermediate bytes of the CSI being read
    std::size_t m_sequenceBytes = 0; // bytes of the current sequence, for the bounds above
    bool m_afterCr = false;          // a CR just became a line break: a following LF is part of it
    bool m_lastWasText = false;      // the last byte of this feed was text (so a cut UTF-8 tail is text)
    std::string m_utf8Tail;          // the start of a UTF-8 character cut by the end of the last chunk
};

// Applies the parameters of one SGR sequence (the bytes between "ESC[" and "m") to a style. Pure.
TextStyle applySgr(TextStyle style, std::string_view parameters);

// A colour of TextStyle as xterm defines it: the 16 system colours, the 6x6x6 cube, the grey ramp, or the
// 24-bit value. Invalid for kDefaultColor. Use it for backgrounds, which the program chose deliberately.
QColor xtermColor(int color);

// The same colour for text on the given background (the theme's base colour, light or dark), darkened or
// lightened towards black or white until it reads there (contrast ratio at least 4.5, WCAG AA): yellow on
// white and black on a dark theme are the usual offenders. Invalid for kDefaultColor. A view painting many
// runs should cache it per colour and theme.
QColor paletteColor(int color, const QColor& background);

} // namespace warren::ui
