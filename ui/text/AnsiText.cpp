#include "ui/text/AnsiText.h"

#include "common/Utf8.h"

#include <array>
#include <cmath>

namespace warren::ui {

namespace {

constexpr unsigned char kEsc = 0x1B;
constexpr unsigned char kBel = 0x07;
constexpr unsigned char kCan = 0x18; // CAN and SUB cancel a sequence in progress (ECMA-48)
constexpr unsigned char kSub = 0x1A;
constexpr unsigned char kDel = 0x7F;

// Bytes shown as they are: printable ASCII, every byte of a UTF-8 character, line feed and tab.
constexpr bool isText(unsigned char c) {
    return (c >= 0x20 && c != kDel) || c == '\n' || c == '\t';
}

// SGR parameters: up to 32 of them, each with up to 6 colon sub-parameters (ITU T.416 "38:2::r:g:b").
// More than that is no real tool's output; the excess is ignored.
struct SgrParameter {
    std::array<int, 6> values{}; // -1: left empty, which SGR reads as 0
    int count = 0;
};

int valueOr0(int value) {
    return value < 0 ? 0 : value;
}

int trueColor(int r, int g, int b) {
    if (r > 255 || g > 255 || b > 255)
        return kDefaultColor;
    return kTrueColor | (r << 16) | (g << 8) | b;
}

int indexedColor(int index) {
    return index >= 0 && index <= 255 ? index : kDefaultColor;
}

// "38:5:n", "38:2:r:g:b" or "38:2:colourspace:r:g:b" in one parameter. kDefaultColor when malformed.
int colorFromSubParameters(const SgrParameter& p) {
    if (p.values[1] == 5 && p.count >= 3)
        return indexedColor(valueOr0(p.values[2]));
    if (p.values[1] == 2 && p.count >= 6)
        return trueColor(valueOr0(p.values[3]), valueOr0(p.values[4]), valueOr0(p.values[5]));
    if (p.values[1] == 2 && p.count == 5)
        return trueColor(valueOr0(p.values[2]), valueOr0(p.values[3]), valueOr0(p.values[4]));
    return kDefaultColor;
}

// "38;5;n" or "38;2;r;g;b" spread over the parameters after index i; advances i past what it used.
int colorFromFollowingParameters(const std::array<SgrParameter, 32>& params, int count, int& i) {
    const auto at = [&](int k) {
        return valueOr0(params[static_cast<std::size_t>(k)].values[0]);
    };
    if (i + 1 >= count)
        return kDefaultColor;
    const int kind = at(i + 1);
    if (kind == 5 && i + 2 < count) {
        i += 2;
        return indexedColor(at(i));
    }
    if (kind == 2 && i + 4 < count) {
        i += 4;
        return trueColor(at(i - 2), at(i - 1), at(i));
    }
    i = count; // a truncated colour: what follows cannot be told apart from its arguments
    return kDefaultColor;
}

double linear(double channel) {
    return channel <= 0.04045 ? channel / 12.92 : std::pow((channel + 0.055) / 1.055, 2.4);
}

double relativeLuminance(const QColor& c) {
    return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF());
}

double contrastRatio(double a, double b) {
    return (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05);
}

QColor mix(const QColor& from, const QColor& to, double t) {
    const auto channel = [t](int a, int b) {
        return static_cast<int>(std::lround(a + (b - a) * t));
    };
    return QColor(channel(from.red(), to.red()), channel(from.green(), to.green()),
                  channel(from.blue(), to.blue()));
}

// The 16 system colours: VS Code's terminal palette, softer than xterm's saturated defaults.
constexpr std::array<QRgb, 16> kSystemColors = {
    0x000000, 0xcd3131, 0x0dbc79, 0xe5e510, 0x2472c8, 0xbc3fbc, 0x11a8cd, 0xe5e5e5,
    0x666666, 0xf14c4c, 0x23d18b, 0xf5f543, 0x3b8eea, 0xd670d6, 0x29b8db, 0xffffff,
};

} // namespace

std::vector<StyledRun> AnsiParser::feed(std::string_view chunk) {
    std::vector<StyledRun> out;
    m_lastWasText = false;
    if (!m_utf8Tail.empty()) {
        const std::string tail = std::move(m_utf8Tail);
        m_utf8Tail.clear();
        appendText(out, tail);
        m_lastWasText = true;
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(chunk.data());
    const std::size_t size = chunk.size();
    std::size_t i = 0;
    while (i < size) {
        const unsigned char c = bytes[i];
        switch (m_state) {
        case State::Ground: {
            if (m_afterCr) {
                if (c == '\n') {
                    m_afterCr = false;
                    ++i;
                    continue;
                }
                // "\r\x1b[K\n" is still one line break: a sequence between CR and LF does not end it
                if (c != kEsc)
                    m_afterCr = false;
            }
            if (isText(c)) {
                std::size_t end = i + 1;
                while (end < size && isText(bytes[end]))
                    ++end;
                appendText(out, chunk.substr(i, end - i));
                m_lastWasText = true;
                i = end;
                continue;
            }
            m_lastWasText = false;
            ++i;
            if (c == kEsc) {
                m_state = State::Escape;
                m_sequenceBytes = 1;
            } else if (c == '\r') {
                // a lone CR redraws the line (progress bars); a log keeps each state as its own line
                appendText(out, "\n");
                m_afterCr = true;
            }
            // every other C0 control and DEL (bell, backspace, form feed, shift in/out) is dropped
            continue;
        }
        case State::Escape:
        case State::EscapeIntermediate:
            if (consumeEscape(c))
                ++i;
            continue;
        case State::Csi:
            if (consumeCsi(c))
                ++i;
            continue;
        case State::String:
        case State::StringEscape:
            if (consumeString(c))
                ++i;
            continue;
        }
    }
    holdBackUnfinishedUtf8(out);
    return out;
}

std::vector<StyledRun> AnsiParser::finish() {
    std::vector<StyledRun> out;
    if (!m_utf8Tail.empty())
        out.push_back(StyledRun{std::move(m_utf8Tail), m_style});
    m_utf8Tail.clear();
    m_state = State::Ground;
    m_csi.clear();
    m_afterCr = false;
    return out;
}

void AnsiParser::reset() {
    *this = AnsiParser();
}

void AnsiParser::appendText(std::vector<StyledRun>& out, std::string_view text) {
    if (!out.empty() && out.back().style == m_style)
        out.back().text.append(text);
    else
        out.push_back(StyledRun{std::string(text), m_style});
}

bool AnsiParser::consumeEscape(unsigned char c) {
    if (++m_sequenceBytes > kMaxControlSequence) {
        m_state = State::Ground;
        return false;
    }
    if (c == kEsc) { // a new sequence abandons this one
        m_state = State::Escape;
        m_sequenceBytes = 1;
        return true;
    }
    if (c == kCan || c == kSub) {
        m_state = State::Ground;
        return true;
    }
    if (c == kDel)
        return true;
    if (c < 0x20 || c > kDel) { // a control or text interrupts a malformed sequence and is handled as itself
        m_state = State::Ground;
        return false;
    }
    if (m_state == State::Escape) {
        switch (c) {
        case '[':
            m_state = State::Csi;
            m_csi.clear();
            return true;
        case ']': // OSC: window title, hyperlink, clipboard, notifications
        case 'P': // DCS
        case 'X': // SOS
        case '^': // PM
        case '_': // APC
            m_state = State::String;
            return true;
        default:
            break;
        }
    }
    if (c < 0x30) { // intermediate byte: "ESC ( B" selects a character set
        m_state = State::EscapeIntermediate;
        return true;
    }
    m_state = State::Ground; // final byte: "ESC 7", "ESC M", "ESC =" and friends do nothing in a log
    return true;
}

bool AnsiParser::consumeCsi(unsigned char c) {
    if (++m_sequenceBytes > kMaxControlSequence) {
        m_state = State::Ground;
        m_csi.clear();
        return false;
    }
    if (c >= 0x40 && c <= 0x7E) {
        // Only a plain SGR: "ESC[>4;2m" (private marker) sets xterm's key modes, not colours.
        if (c == 'm' && m_csi.find_first_not_of("0123456789;:") == std::string::npos)
            m_style = applySgr(m_style, m_csi);
        m_state = State::Ground;
        m_csi.clear();
        return true;
    }
    if (c >= 0x20 && c <= 0x3F) {
        m_csi.push_back(static_cast<char>(c));
        return true;
    }
    if (c == kDel)
        return true;
    m_csi.clear();
    if (c == kEsc) {
        m_state = State::Escape;
        m_sequenceBytes = 1;
        return true;
    }
    m_state = State::Ground;
    return c == kCan || c == kSub; // anything else interrupts the sequence and is handled as itself
}

bool AnsiParser::consumeString(unsigned char c) {
    if (++m_sequenceBytes > kMaxStringSequence) {
        m_state = State::Ground;
        return false;
    }
    if (m_state == State::StringEscape) {
        if (c == '\\') { // ST
            m_state = State::Ground;
            return true;
        }
        // xterm: an ESC inside a string ends it and starts the next sequence
        m_state = State::Escape;
        m_sequenceBytes = 1;
        return false;
    }
    if (c == kBel || c == kCan || c == kSub)
        m_state = State::Ground; // BEL ends an OSC in xterm's dialect, which nearly every tool writes
    else if (c == kEsc)
        m_state = State::StringEscape;
    return true;
}

void AnsiParser::holdBackUnfinishedUtf8(std::vector<StyledRun>& out) {
    if (m_state != State::Ground || !m_lastWasText || out.empty())
        return;
    std::string& text = out.back().text;
    const std::size_t held = incompleteUtf8Suffix(text);
    if (held == 0)
        return;
    m_utf8Tail = text.substr(text.size() - held);
    text.resize(text.size() - held);
    if (text.empty())
        out.pop_back();
}

TextStyle applySgr(TextStyle style, std::string_view parameters) {
    std::array<SgrParameter, 32> params{};
    int count = 0;
    {
        SgrParameter current;
        int value = -1;
        const auto endSub = [&] {
            if (current.count < static_cast<int>(current.values.size()))
                current.values[static_cast<std::size_t>(current.count++)] = value;
            value = -1;
        };
        const auto endParameter = [&] {
            endSub();
            if (count < static_cast<int>(params.size()))
                params[static_cast<std::size_t>(count++)] = current;
            current = SgrParameter{};
        };
        for (const char c : parameters) {
            if (c >= '0' && c <= '9')
                value = std::min(valueOr0(value) * 10 + (c - '0'), 100000); // capped: no overflow
            else if (c == ':')
                endSub();
            else if (c == ';')
                endParameter();
        }
        endParameter(); // "ESC[m" is one empty parameter, which means 0: reset
    }

    for (int i = 0; i < count; ++i) {
        const SgrParameter& p = params[static_cast<std::size_t>(i)];
        const int code = valueOr0(p.values[0]);
        switch (code) {
        case 0:
            style = TextStyle{};
            break;
        case 1:
            style.bold = true;
            break;
        case 2:
            style.dim = true;
            break;
        case 3:
            style.italic = true;
            break;
        case 4:
            style.underline = p.count < 2 || p.values[1] != 0;
            break; // "4:0" is no underline, "4:3" curly
        case 7:
            style.inverse = true;
            break;
        case 21:
            style.underline = true;
            break; // double underline
        case 22:
            style.bold = style.dim = false;
            break;
        case 23:
            style.italic = false;
            break;
        case 24:
            style.underline = false;
            break;
        case 27:
            style.inverse = false;
            break;
        case 38:
        case 48:
        case 58: { // 58 is the underline colour, which a log view does not draw: parsed to skip its arguments
            const int color =
                p.count > 1 ? colorFromSubParameters(p) : colorFromFollowingParameters(params, count, i);
            if (color != kDefaultColor && code == 38)
                style.fg = color;
            else if (color != kDefaultColor && code == 48)
                style.bg = color;
            break;
        }
        case 39:
            style.fg = kDefaultColor;
            break;
        case 49:
            style.bg = kDefaultColor;
            break;
        default:
            if (code >= 30 && code <= 37)
                style.fg = code - 30;
            else if (code >= 40 && code <= 47)
                style.bg = code - 40;
            else if (code >= 90 && code <= 97)
                style.fg = code - 90 + 8;
            else if (code >= 100 && code <= 107)
                style.bg = code - 100 + 8;
            // blink, conceal, strike-through, fonts: not shown
            break;
        }
    }
    return style;
}

QColor xtermColor(int color) {
    if (color < 0)
        return QColor();
    if (color & kTrueColor)
        return QColor((color >> 16) & 0xFF, (color >> 8) & 0xFF, color & 0xFF);
    if (color < 16)
        return QColor(kSystemColors[static_cast<std::size_t>(color)]);
    if (color < 232) {
        const int i = color - 16;
        const auto level = [](int v) {
            return v == 0 ? 0 : 55 + 40 * v;
        };
        return QColor(level(i / 36), level((i / 6) % 6), level(i % 6));
    }
    if (color < 256) {
        const int grey = 8 + 10 * (color - 232);
        return QColor(grey, grey, grey);
    }
    return QColor();
}

QColor paletteColor(int color, const QColor& background) {
    const QColor base = xtermColor(color);
    if (!base.isValid())
        return base;
    constexpr double kMinimumContrast = 4.5;
    const double backgroundLuminance = relativeLuminance(background);
    if (contrastRatio(relativeLuminance(base), backgroundLuminance) >= kMinimumContrast)
        return base;
    // Move towards whichever of black and white stands further from the background, keeping the hue.
    const bool towardsBlack =
        contrastRatio(0.0, backgroundLuminance) >= contrastRatio(1.0, backgroundLuminance);
    const QColor target = towardsBlack ? QColor(Qt::black) : QColor(Qt::white);
    for (int step = 1; step <= 20; ++step) {
        const QColor candidate = mix(base, target, step / 20.0);
        if (contrastRatio(relativeLuminance(candidate), backgroundLuminance) >= kMinimumContrast)
            return candidate;
    }
    return target;
}

} // namespace warren::ui
