"""Relative time resolved against a session date, so that recall can index and show it.

A LoCoMo turn says "I went to the support group yesterday" in a session dated "1:56 pm
on 8 May, 2023"; the question asks "When did Caroline go to the support group?" (7 May
2023) or "What did Melanie do in May 2023?". A word index finds that turn by its date
only if "yesterday" is resolved to 7 May 2023 and the resolved date is indexed.

- :func:`parse_session_date`: the day of a session date string.
- :func:`resolve_times`: every relative time expression of a text, resolved against that
  day (:class:`TimeRef`: the span, its :meth:`~TimeRef.label` and its index
  :meth:`~TimeRef.terms`).
- :func:`annotate`: the resolved dates as one line to show next to the turn.

The rules (weeks start on Monday, as in ISO 8601; seasons are meteorological, northern
hemisphere: spring March-May, summer June-August, autumn/fall September-November,
winter December-February):

- today, tonight, this morning/afternoon/evening: the anchor day; yesterday, last night:
  the day before; tomorrow: the day after; the day before yesterday / after tomorrow.
- "N days/weeks/weekends/months/years ago", N = 1..99, a/an/one..twelve, (a) couple
  (of) = 2, (a) few = 3: that day; the week holding the day 7*N days back; last weekend
  moved N-1 weeks back; the month N months back; the year N years back.
- last/this/next week, month, year ("the past" and "this past" = last; not "the past
  year", which means the last twelve months).
- last weekend: the Saturday and Sunday before the anchor's own weekend (on a Sunday,
  the weekend before); this weekend: the anchor's own or the coming one.
- last X (weekday): the latest X strictly before the anchor; this X: the first on or
  after it; next X: the first strictly after it. A bare "on Saturday" is not resolved.
- last S (season): the latest S that ended before the anchor; this S: the S holding the
  anchor, else the one of the anchor's year; next S: the first that starts after it.

"last", "this" and "next" followed by "of" ("the last week of June") are not resolved.
Standard library only (layer 0); one compiled pattern scanned once, linear in the text.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

__all__ = ["TimeRef", "GRAINS", "annotate", "parse_session_date", "resolve_times"]

GRAINS = ("day", "weekend", "week", "month", "year")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
# Weekday names and the abbreviations that are no English word ("mon", "wed", "sat" and
# "sun" are left out: "this sun is brutal", "last sat was fun").
_WEEKDAYS = {"monday": 0, "tuesday": 1, "tues": 1, "tue": 1, "wednesday": 2,
             "thursday": 3, "thurs": 3, "thur": 3, "thu": 3, "friday": 4,
             "fri": 4, "saturday": 5, "sunday": 6}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
            "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
            "twelve": 12, "couple": 2, "few": 3}
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}  # 1st month
_DAY_OFFSETS = {"the day before yesterday": -2, "the day after tomorrow": 2,
                "yesterday": -1, "last night": -1, "tomorrow": 1}


def _words(names) -> str:
    """A regex alternation of ``names``, longest first (so "tues" is tried before "tue")."""
    return "|".join(sorted(names, key=len, reverse=True))


_NOT_OF = r"(?!\s+of\b)"
_TIME = re.compile(rf"""(?<![\d.,])\b(?:     # not the "5" of "1.5 years ago"
    (?P<day>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today
        |tonight|tomorrow|last\s+night|this\s+(?:morning|afternoon|evening))
  | (?P<ago>(?:[1-9]\d?|(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|{_words(_NUMBERS)})
        \s+(?:day|weekend|week|month|year)s?\s+ago)
  | (?P<weekend>(?:last|this\s+past|this)\s+weekend){_NOT_OF}
  | (?P<span>(?:last|this\s+past|this|next)\s+(?:week|month|year)
        |the\s+past\s+(?:week|month)){_NOT_OF}
  | (?P<weekday>(?:last|this\s+past|this|next)\s+(?:{_words(_WEEKDAYS)})){_NOT_OF}
  | (?P<season>(?:last|this|next)\s+(?:{_words(_SEASONS)})){_NOT_OF}
)\b""", re.IGNORECASE | re.VERBOSE)

_MONTH = r"(?P<{}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?" \
         r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_DATE = re.compile(rf"""
    (?<!\d)(?P<iy>\d{{4}})-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}})(?!\d)
  | (?<!\w)(?P<dd>\d{{1,2}}){_ORDINAL}\s+{_MONTH.format("dm")},?\s+(?P<dy>\d{{4}})(?!\d)
  | \b{_MONTH.format("mm")}\s+(?P<md>\d{{1,2}}){_ORDINAL},?\s+(?P<my>\d{{4}})(?!\d)
""", re.IGNORECASE | re.VERBOSE)


def _check_date(name: str, value: object) -> date:
    """``value`` as a date (a datetime counts as its day); else TypeError naming it."""
    if isinstance(value, datetime):
        return value.date()
    if not isinstance(value, date):
        raise TypeError(f"{name} must be a datetime.date, got "
                        f"{type(value).__name__}: {value!r:.60}")
    return value


def _check_str(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}: {value!r:.60}")
    return value


# -- calendar arithmetic ----------------------------------------------------------------
def _month_index(day: date) -> int:
    return day.year * 12 + day.month - 1


def _month_span(index: int, months: int = 1) -> tuple[date, date]:
    """The first and last day of ``months`` months from month ``index`` (year*12 + m-1)."""
    year, month0 = divmod(index, 12)
    after_year, after_month0 = divmod(index + months, 12)
    return date(year, month0 + 1, 1), date(after_year, after_month0 + 1, 1) - timedelta(1)


def _week(day: date) -> tuple[date, date]:
    monday = day - timedelta(day.weekday())
    return monday, monday + timedelta(6)


def _year(year: int) -> tuple[date, date]:
    return date(year, 1, 1), date(year, 12, 31)


def _last_weekend(anchor: date) -> tuple[date, date]:
    """The weekend whose Sunday is the latest Sunday strictly before ``anchor``."""
    sunday = anchor - timedelta(anchor.weekday() + 1)
    return sunday - timedelta(1), sunday


def _this_weekend(anchor: date) -> tuple[date, date]:
    saturday = anchor + timedelta(5 - anchor.weekday()) if anchor.weekday() < 6 \
        else anchor - timedelta(1)
    return saturday, saturday + timedelta(1)


def _season(first_month: int, year: int) -> tuple[date, date]:
    return _month_span(year * 12 + first_month - 1, 3)


# -- one expression ---------------------------------------------------------------------
def _modifier(words: list[str]) -> int:
    """-1 for last / the past / this past, 0 for this, +1 for next."""
    if words[0] == "next":
        return 1
    return 0 if words[0] == "this" and words[1] != "past" else -1


def _ago(words: list[str], anchor: date) -> tuple[date, date, str]:
    count_word = [w for w in words[:-2] if w != "of"][-1]
    n = int(count_word) if count_word.isdigit() else _NUMBERS[count_word]
    unit = words[-2].removesuffix("s")
    if unit == "day":
        day = anchor - timedelta(n)
        return day, day, "day"
    if unit == "week":
        return (*_week(anchor - timedelta(7 * n)), "week")
    if unit == "weekend":
        saturday, sunday = _last_weekend(anchor)
        back = timedelta(7 * (n - 1))
        return saturday - back, sunday - back, "weekend"
    if unit == "month":
        return (*_month_span(_month_index(anchor) - n), "month")
    return (*_year(anchor.year - n), "year")


def _span(words: list[str], anchor: date) -> tuple[date, date, str]:
    shift, unit = _modifier(words), words[-1]
    if unit == "week":
        return (*_week(anchor + timedelta(7 * shift)), "week")
    if unit == "month":
        return (*_month_span(_month_index(anchor) + shift), "month")
    return (*_year(anchor.year + shift), "year")


def _weekday(words: list[str], anchor: date) -> tuple[date, date, str]:
    shift, gap = _modifier(words), _WEEKDAYS[words[-1]] - anchor.weekday()
    if shift < 0:
        day = anchor - timedelta((-gap - 1) % 7 + 1)      # 1..7 days back
    elif shift == 0:
        day = anchor + timedelta(gap % 7)                 # 0..6 days on
    else:
        day = anchor + timedelta((gap - 1) % 7 + 1)       # 1..7 days on
    return day, day, "day"


def _season_span(words: list[str], anchor: date) -> tuple[date, date, str]:
    first, shift = _SEASONS[words[-1]], _modifier(words)
    if shift < 0:
        years = range(anchor.year, anchor.year - 3, -1)
        start, end = next(s for y in years if (s := _season(first, y))[1] < anchor)
    elif shift == 0:
        start, end = _season(first, anchor.year - (first == 12 and anchor.month <= 2))
    else:
        start, end = next(s for y in (anchor.year, anchor.year + 1)
                          if (s := _season(first, y))[0] > anchor)
    return start, end, "month"


def _day(words: list[str], anchor: date) -> tuple[date, date, str]:
    day = anchor + timedelta(_DAY_OFFSETS.get(" ".join(words), 0))
    return day, day, "day"


def _weekend(words: list[str], anchor: date) -> tuple[date, date, str]:
    saturday, sunday = _this_weekend(anchor) if _modifier(words) == 0 \
        else _last_weekend(anchor)
    return saturday, sunday, "weekend"


_RESOLVERS = {"day": _day, "ago": _ago, "weekend": _weekend, "span": _span,
              "weekday": _weekday, "season": _season_span}   # by the pattern's group


# -- the public names -------------------------------------------------------------------
def _day_label(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1].capitalize()} {day.year}"


@dataclass(frozen=True)
class TimeRef:
    """A relative time expression and the span of days it resolves to.

    ``phrase``: the words as said ("last Friday"); ``start``, ``end``: the span,
    inclusive (dates); ``grain``: one of :data:`GRAINS` (a season is a "month" span of
    three months). Raises TypeError for a field of the wrong type, ValueError for an
    unknown grain or an end before the start.
    """
    phrase: str
    start: date
    end: date
    grain: str

    def __post_init__(self):
        _check_str("phrase", self.phrase)
        for name in ("start", "end"):
            value = getattr(self, name)
            if isinstance(value, datetime) or not isinstance(value, date):
                raise TypeError(f"{name} must be a datetime.date, got "
                                f"{type(value).__name__}: {value!r:.60}")
        if self.grain not in GRAINS:
            raise ValueError(f"grain must be one of {', '.join(GRAINS)}, got {self.grain!r}")
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")

    def label(self) -> str:
        """The span in words: "7 May 2023", "weekend of 6 May 2023" (its Saturday),
        "week of 15 May 2023" (its Monday), "April 2023", "2022", "summer 2022",
        "winter 2022-2023"."""
        if self.grain == "day":
            return _day_label(self.start)
        if self.grain in ("weekend", "week"):
            return f"{self.grain} of {_day_label(self.start)}"
        if self.grain == "year":
            return str(self.start.year)
        years = str(self.start.year) if self.start.year == self.end.year \
            else f"{self.start.year}-{self.end.year}"
        season = self.phrase.split()[-1].lower() if self.phrase.strip() else ""
        if _month_index(self.start) == _month_index(self.end):
            return f"{MONTHS[self.start.month - 1].capitalize()} {years}"
        if season in _SEASONS:
            return f"{season} {years}"
        return f"{self.start:%B %Y} to {self.end:%B %Y}"

    def terms(self) -> list[str]:
        """The lowercase words to index: the month names the span touches, in time order,
        then its years ("may", "2023"); a year grain gives its year only. No day numbers."""
        years = [str(y) for y in range(self.start.year, self.end.year + 1)]
        if self.grain == "year":
            return years
        first, last = _month_index(self.start), _month_index(self.end)
        months = [MONTHS[i % 12] for i in range(first, min(last, first + 11) + 1)]
        return months + years


def parse_session_date(text: str) -> date | None:
    """The first date in ``text``: LoCoMo's "1:56 pm on 8 May, 2023", also "8 May
    2023", "8th May 2023", "May 8, 2023", ISO "2023-05-08" (month names full or three
    letters, any case). None when ``text`` holds no real date ("32 May 2023" is none);
    TypeError when it is not a str."""
    _check_str("text", text)
    for match in _DATE.finditer(text):
        if match["iy"]:
            year, month, day = match["iy"], match["im"], match["id"]
        else:
            name = match["dm"] or match["mm"]
            year, day = match["dy"] or match["my"], match["dd"] or match["md"]
            month = next(i for i, m in enumerate(MONTHS, 1) if m.startswith(name[:3].lower()))
        try:
            return date(int(year), int(month), int(day))
        except ValueError:
            continue
    return None


def resolve_times(text: str, anchor: date) -> list[TimeRef]:
    """Every relative time expression in ``text`` (case-insensitive, whole words), in
    order of appearance, resolved against ``anchor`` (the session's day; a datetime
    counts as its day), by the rules of this module's docstring. A span that would fall
    outside the calendar (before year 1, after 9999) is left out. TypeError for a
    ``text`` that is not a str or an ``anchor`` that is not a date."""
    _check_str("text", text)
    anchor = _check_date("anchor", anchor)
    refs = []
    for match in _TIME.finditer(text):
        words = match.group().lower().split()
        try:
            start, end, grain = _RESOLVERS[match.lastgroup](words, anchor)
        except (OverflowError, ValueError):
            continue
        refs.append(TimeRef(" ".join(match.group().split()), start, end, grain))
    return refs


def annotate(refs: Sequence[TimeRef]) -> str:
    """The resolved dates as one line: "(yesterday = 7 May 2023; last week = week of 15
    May 2023)"; "" for no refs. A phrase said twice (any case) with the same date is
    shown once, as first said. TypeError for refs that are not a sequence of TimeRef."""
    if isinstance(refs, (str, bytes)) or not isinstance(refs, Sequence):
        raise TypeError(f"refs must be a sequence of TimeRef, got {type(refs).__name__}")
    for ref in refs:
        if not isinstance(ref, TimeRef):
            raise TypeError(f"refs must hold TimeRef values, got {type(ref).__name__}: "
                            f"{ref!r:.60}")
    shown: dict[tuple[str, str], str] = {}
    for ref in refs:
        shown.setdefault((ref.phrase.casefold(), ref.label()), f"{ref.phrase} = {ref.label()}")
    return f"({'; '.join(shown.values())})" if shown else ""
