#include "agent_core/protocol/Timestamp.h"

#include <algorithm>
#include <array>

namespace warren::protocol {

namespace {

constexpr std::int64_t kMillisPerDay = 86'400'000;

struct CivilDate {
    std::int64_t year;
    unsigned month; // 1..12
    unsigned day;   // 1..31
};

// Howard Hinnant's days_from_civil / civil_from_days: exact for the proleptic Gregorian calendar.
std::int64_t daysFromCivil(CivilDate date) {
    const std::int64_t y = date.year - (date.month <= 2 ? 1 : 0);
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yearOfEra = static_cast<unsigned>(y - era * 400);
    const unsigned dayOfYear =
        (153 * (date.month > 2 ? date.month - 3 : date.month + 9) + 2) / 5 + date.day - 1;
    const unsigned dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146097 + static_cast<std::int64_t>(dayOfEra) - 719468;
}

CivilDate civilFromDays(std::int64_t days) {
    days += 719468;
    const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const auto dayOfEra = static_cast<unsigned>(days - era * 146097);
    const unsigned yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
    const unsigned dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    const unsigned mp = (5 * dayOfYear + 2) / 153;
    const unsigned day = dayOfYear - (153 * mp + 2) / 5 + 1;
    const unsigned month = mp < 10 ? mp + 3 : mp - 9;
    return {static_cast<std::int64_t>(yearOfEra) + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

bool isLeapYear(std::int64_t year) {
    return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

unsigned daysInMonth(std::int64_t year, unsigned month) {
    static constexpr std::array<unsigned, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && isLeapYear(year) ? 29 : days.at(month - 1);
}

const UnixMillis kMin = daysFromCivil({0, 1, 1}) * kMillisPerDay;
const UnixMillis kMax = daysFromCivil({10000, 1, 1}) * kMillisPerDay - 1;

// Reads count digits at text[pos]; false if any is not a digit.
bool readDigits(std::string_view text, std::size_t pos, std::size_t count, unsigned& out) {
    if (pos + count > text.size())
        return false;
    out = 0;
    for (std::size_t i = pos; i < pos + count; ++i) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        out = out * 10 + static_cast<unsigned>(text[i] - '0');
    }
    return true;
}

void appendPadded(std::string& out, std::uint64_t value, std::size_t width) {
    std::string digits = std::to_string(value);
    if (digits.size() < width)
        out.append(width - digits.size(), '0');
    out += digits;
}

Error malformed(std::string_view text, const std::string& why) {
    return makeError(ErrorCode::InvalidArgument, "timestamp \"" + std::string(text) + "\": " + why +
                                                     " (expected e.g. 2026-11-29T10:52:03.123Z)");
}

} // namespace

std::string formatTimestamp(UnixMillis millis) {
    millis = std::clamp(millis, kMin, kMax);
    const std::int64_t days = (millis >= 0 ? millis : millis - (kMillisPerDay - 1)) / kMillisPerDay;
    const std::int64_t ofDay = millis - days * kMillisPerDay;
    const CivilDate date = civilFromDays(days);
    std::string out;
    out.reserve(24);
    appendPadded(out, static_cast<std::uint64_t>(date.year), 4);
    out += '-';
    appendPadded(out, date.month, 2);
    out += '-';
    appendPadded(out, date.day, 2);
    out += 'T';
    appendPadded(out, static_cast<std::uint64_t>(ofDay / 3'600'000), 2);
    out += ':';
    appendPadded(out, static_cast<std::uint64_t>(ofDay / 60'000 % 60), 2);
    out += ':';
    appendPadded(out, static_cast<std::uint64_t>(ofDay / 1000 % 60), 2);
    out += '.';
    appendPadded(out, static_cast<std::uint64_t>(ofDay % 1000), 3);
    out += 'Z';
    return out;
}

UnixMillis toUnixMillis(std::chrono::system_clock::time_point time) {
    return std::chrono::floor<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

std::string formatTimestamp(std::chrono::system_clock::time_point time) {
    return formatTimestamp(toUnixMillis(time));
}

Result<UnixMillis> parseTimestamp(std::string_view text) {
    unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (text.size() < 20 || !readDigits(text, 0, 4, year) || text[4] != '-' ||
        !readDigits(text, 5, 2, month) || text[7] != '-' || !readDigits(text, 8, 2, day) || text[10] != 'T' ||
        !readDigits(text, 11, 2, hour) || text[13] != ':' || !readDigits(text, 14, 2, minute) ||
        text[16] != ':' || !readDigits(text, 17, 2, second))
        return malformed(text, "not of the form YYYY-MM-DDTHH:MM:SS");
    std::size_t pos = 19;
    unsigned millis = 0;
    if (text[pos] == '.') {
        ++pos;
        std::size_t digits = 0;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
            if (digits < 3)
                millis = millis * 10 + static_cast<unsigned>(text[pos] - '0');
            ++digits;
            ++pos;
        }
        if (digits == 0 || digits > 9)
            return malformed(text, "the fraction of a second must have 1 to 9 digits");
        for (std::size_t d = digits; d < 3; ++d)
            millis *= 10;
    }
    if (pos >= text.size() || text[pos] != 'Z')
        return malformed(text, "must be UTC, ending in Z");
    if (pos + 1 != text.size())
        return malformed(text, "unexpected text after Z");
    if (month < 1 || month > 12)
        return malformed(text, "month " + std::to_string(month) + " does not exist");
    if (day < 1 || day > daysInMonth(year, month))
        return malformed(text, "day " + std::to_string(day) + " does not exist in that month");
    if (hour > 23 || minute > 59 || second > 59)
        return malformed(text, "time of day out of range (leap seconds are not used)");
    const std::int64_t days = daysFromCivil({year, month, day});
    return days * kMillisPerDay + static_cast<std::int64_t>(hour) * 3'600'000 +
           static_cast<std::int64_t>(minute) * 60'000 + static_cast<std::int64_t>(second) * 1000 + millis;
}

} // namespace warren::protocol
