"""kit.ranking.dates: relative time ("last week", "two days ago") resolved against the
date of the session it was said in, so that recall can index and show the date."""
from datetime import date, datetime

import pytest

from kit.ranking.dates import TimeRef, annotate, parse_session_date, resolve_times

THU = date(2023, 5, 25)          # a Thursday: the issue's example
SAT, SUN, MON = date(2023, 5, 6), date(2023, 5, 7), date(2023, 5, 8)


def one(text: str, anchor: date) -> TimeRef:
    refs = resolve_times(text, anchor)
    assert len(refs) == 1, refs
    return refs[0]


def span(text: str, anchor: date) -> tuple[date, date, str]:
    ref = one(text, anchor)
    return ref.start, ref.end, ref.grain


# -- the issue's example ----------------------------------------------------------------
def test_last_week_in_a_turn_of_25_may_2023_is_the_week_of_15_may():
    ref = one("I went to the support group last week.", THU)
    assert ref == TimeRef("last week", date(2023, 5, 15), date(2023, 5, 21), "week")
    assert ref.label() == "week of 15 May 2023"
    assert ref.terms() == ["may", "2023"]


# -- days -------------------------------------------------------------------------------
@pytest.mark.parametrize("text, day", [
    ("today", date(2023, 5, 25)), ("tonight", date(2023, 5, 25)),
    ("this morning", date(2023, 5, 25)), ("this afternoon", date(2023, 5, 25)),
    ("this evening", date(2023, 5, 25)), ("yesterday", date(2023, 5, 24)),
    ("last night", date(2023, 5, 24)), ("tomorrow", date(2023, 5, 26)),
    ("the day before yesterday", date(2023, 5, 23)),
    ("the day after tomorrow", date(2023, 5, 27)),
])
def test_named_days(text, day):
    assert span(f"I said it {text}, I think.", THU) == (day, day, "day")


@pytest.mark.parametrize("anchor, day, label, terms", [
    (date(2023, 1, 1), date(2022, 12, 31), "31 December 2022", ["december", "2022"]),
    (date(2024, 3, 1), date(2024, 2, 29), "29 February 2024", ["february", "2024"]),
    (date(2023, 3, 1), date(2023, 2, 28), "28 February 2023", ["february", "2023"]),
])
def test_yesterday_across_month_and_year_ends_and_leap_days(anchor, day, label, terms):
    ref = one("Yesterday was fun", anchor)
    assert (ref.start, ref.end, ref.grain) == (day, day, "day")
    assert (ref.phrase, ref.label(), ref.terms()) == ("Yesterday", label, terms)


# -- N units ago ------------------------------------------------------------------------
@pytest.mark.parametrize("text, start, end, grain", [
    ("2 days ago", date(2023, 5, 23), date(2023, 5, 23), "day"),
    ("99 days ago", date(2023, 2, 15), date(2023, 2, 15), "day"),
    ("ten days ago", date(2023, 5, 15), date(2023, 5, 15), "day"),
    ("a day ago", date(2023, 5, 24), date(2023, 5, 24), "day"),
    ("a couple of days ago", date(2023, 5, 23), date(2023, 5, 23), "day"),
    ("a couple days ago", date(2023, 5, 23), date(2023, 5, 23), "day"),
    ("a few days ago", date(2023, 5, 22), date(2023, 5, 22), "day"),
    ("a week ago", date(2023, 5, 15), date(2023, 5, 21), "week"),
    ("two weeks ago", date(2023, 5, 8), date(2023, 5, 14), "week"),
    ("a few weeks ago", date(2023, 5, 1), date(2023, 5, 7), "week"),
    ("a month ago", date(2023, 4, 1), date(2023, 4, 30), "month"),
    ("3 months ago", date(2023, 2, 1), date(2023, 2, 28), "month"),
    ("twelve months ago", date(2022, 5, 1), date(2022, 5, 31), "month"),
    ("a year ago", date(2022, 1, 1), date(2022, 12, 31), "year"),
    ("three years ago", date(2020, 1, 1), date(2020, 12, 31), "year"),
])
def test_n_units_ago(text, start, end, grain):
    assert span(f"We met {text} at the park.", THU) == (start, end, grain)


def test_months_ago_cross_the_year_and_do_not_clamp_days():
    assert span("five months ago", date(2023, 3, 31)) == (
        date(2022, 10, 1), date(2022, 10, 31), "month")
    ref = one("a month ago", date(2023, 3, 31))
    assert (ref.start, ref.end, ref.label()) == (date(2023, 2, 1), date(2023, 2, 28),
                                                 "February 2023")


def test_weekends_ago_count_back_from_last_weekend():
    ref = one("camping with my fam two weekends ago", date(2023, 7, 17))   # a Monday
    assert (ref.start, ref.end, ref.grain) == (date(2023, 7, 8), date(2023, 7, 9), "weekend")
    assert ref.label() == "weekend of 8 July 2023"


# -- last / this / next week, month, year ----------------------------------------------
@pytest.mark.parametrize("text, start, end, grain", [
    ("this week", date(2023, 5, 22), date(2023, 5, 28), "week"),
    ("next week", date(2023, 5, 29), date(2023, 6, 4), "week"),
    ("the past week", date(2023, 5, 15), date(2023, 5, 21), "week"),
    ("this past week", date(2023, 5, 15), date(2023, 5, 21), "week"),
    ("last month", date(2023, 4, 1), date(2023, 4, 30), "month"),
    ("the past month", date(2023, 4, 1), date(2023, 4, 30), "month"),
    ("this month", date(2023, 5, 1), date(2023, 5, 31), "month"),
    ("next month", date(2023, 6, 1), date(2023, 6, 30), "month"),
    ("last year", date(2022, 1, 1), date(2022, 12, 31), "year"),
    ("this year", date(2023, 1, 1), date(2023, 12, 31), "year"),
    ("next year", date(2024, 1, 1), date(2024, 12, 31), "year"),
])
def test_last_this_next_week_month_year(text, start, end, grain):
    assert span(f"It happened {text}.", THU) == (start, end, grain)


def test_labels_and_terms_of_weeks_months_and_years():
    week = one("next week", THU)
    assert (week.label(), week.terms()) == ("week of 29 May 2023", ["may", "june", "2023"])
    month = one("last month", THU)
    assert (month.label(), month.terms()) == ("April 2023", ["april", "2023"])
    year = one("last year", THU)
    assert (year.label(), year.terms()) == ("2022", ["2022"])
    new_year = one("last week", date(2023, 1, 4))            # the week of 26 December 2022
    assert new_year.label() == "week of 26 December 2022"
    assert new_year.terms() == ["december", "january", "2022", "2023"]
    assert one("next month", date(2023, 12, 15)).label() == "January 2024"
    assert one("last month", date(2023, 1, 15)).label() == "December 2022"


# -- weekends ---------------------------------------------------------------------------
@pytest.mark.parametrize("text, anchor, saturday", [
    ("last weekend", THU, date(2023, 5, 20)),
    ("last weekend", MON, date(2023, 5, 6)),
    ("last weekend", SUN, date(2023, 4, 29)),      # a Sunday: the weekend before this one
    ("last weekend", SAT, date(2023, 4, 29)),
    ("this past weekend", MON, date(2023, 5, 6)),
    ("this weekend", THU, date(2023, 5, 27)),
    ("this weekend", SAT, date(2023, 5, 6)),
    ("this weekend", SUN, date(2023, 5, 6)),
])
def test_weekends(text, anchor, saturday):
    ref = one(f"What a {text}!", anchor)
    assert (ref.start, ref.end - ref.start, ref.grain) == (saturday, SUN - SAT, "weekend")
    assert ref.label() == f"weekend of {saturday.day} {saturday:%B} {saturday.year}"


def test_a_weekend_over_two_months_gives_both():
    assert one("last weekend", SUN).terms() == ["april", "2023"]
    assert one("this weekend", date(2023, 9, 29)).terms() == ["september", "october", "2023"]


# -- weekdays ---------------------------------------------------------------------------
@pytest.mark.parametrize("text, anchor, day", [
    ("last Friday", THU, date(2023, 5, 19)),
    ("last Friday", date(2023, 5, 26), date(2023, 5, 19)),     # strictly before
    ("last Thursday", THU, date(2023, 5, 18)),
    ("this past Monday", THU, date(2023, 5, 22)),
    ("this Friday", THU, date(2023, 5, 26)),
    ("this Thursday", THU, date(2023, 5, 25)),                 # on or after
    ("next Thursday", THU, date(2023, 6, 1)),                  # strictly after
    ("next Friday", THU, date(2023, 5, 26)),
    ("last Tues", date(2023, 7, 20), date(2023, 7, 18)),
    ("next Fri", date(2023, 1, 20), date(2023, 1, 27)),
    ("last sunday", date(2024, 3, 1), date(2024, 2, 25)),
])
def test_weekdays(text, anchor, day):
    assert span(f"I called {text}.", anchor) == (day, day, "day")


def test_a_bare_weekday_is_not_resolved():
    assert resolve_times("On Saturday we went hiking; Friday was rainy.", THU) == []


# -- seasons ----------------------------------------------------------------------------
def test_last_summer_is_the_most_recent_summer_that_ended_before_the_anchor():
    ref = one("We went to the lake last summer.", THU)
    assert (ref.start, ref.end, ref.grain) == (date(2022, 6, 1), date(2022, 8, 31), "month")
    assert (ref.label(), ref.terms()) == ("summer 2022", ["june", "july", "august", "2022"])
    assert one("last summer", date(2023, 8, 31)).start == date(2022, 6, 1)    # not ended
    assert one("last summer", date(2023, 9, 1)).start == date(2023, 6, 1)


@pytest.mark.parametrize("text, anchor, start, end, label", [
    ("last winter", THU, date(2022, 12, 1), date(2023, 2, 28), "winter 2022-2023"),
    ("last winter", date(2024, 2, 15), date(2022, 12, 1), date(2023, 2, 28),
     "winter 2022-2023"),
    ("last winter", date(2024, 3, 1), date(2023, 12, 1), date(2024, 2, 29),
     "winter 2023-2024"),
    ("last spring", THU, date(2022, 3, 1), date(2022, 5, 31), "spring 2022"),
    ("last fall", THU, date(2022, 9, 1), date(2022, 11, 30), "fall 2022"),
    ("last Autumn", THU, date(2022, 9, 1), date(2022, 11, 30), "autumn 2022"),
    ("this summer", date(2023, 8, 17), date(2023, 6, 1), date(2023, 8, 31), "summer 2023"),
    ("this winter", date(2023, 1, 15), date(2022, 12, 1), date(2023, 2, 28),
     "winter 2022-2023"),
    ("next summer", date(2023, 8, 17), date(2024, 6, 1), date(2024, 8, 31), "summer 2024"),
])
def test_seasons(text, anchor, start, end, label):
    ref = one(text, anchor)
    assert (ref.start, ref.end, ref.grain, ref.label()) == (start, end, "month", label)


def test_a_winter_touches_two_years():
    assert one("last winter", THU).terms() == [
        "december", "january", "february", "2022", "2023"]


# -- the text around them ---------------------------------------------------------------
def test_every_expression_in_order_of_appearance_with_the_words_as_said():
    text = ("Yesterday I saw Mel; last   Friday too. Two days ago she said "
            "she'd been painting since LAST YEAR, and tomorrow we meet.")
    refs = resolve_times(text, MON)
    assert [r.phrase for r in refs] == [
        "Yesterday", "last Friday", "Two days ago", "LAST YEAR", "tomorrow"]
    assert [r.start for r in refs] == [date(2023, 5, 7), date(2023, 5, 5), date(2023, 5, 6),
                                       date(2022, 1, 1), date(2023, 5, 9)]


@pytest.mark.parametrize("text", [
    "", "I love painting and hiking.", "a blast weekend", "todays plan", "yesterdays",
    "the last week of June", "the last year of college", "an hour ago", "100 days ago",
    "0 days ago", "this is it, next time, last one", "the past year", "next weekend",
    "forecast week", "a while ago",
])
def test_a_text_with_no_relative_time_gives_nothing(text):
    assert resolve_times(text, THU) == []


def test_a_datetime_anchor_counts_as_its_day():
    assert resolve_times("yesterday", datetime(2023, 5, 8, 13, 56)) == [
        TimeRef("yesterday", SUN, SUN, "day")]


def test_a_date_past_the_calendar_is_left_out():
    assert resolve_times("last year, yesterday", date(1, 1, 5)) == [
        TimeRef("yesterday", date(1, 1, 4), date(1, 1, 4), "day")]
    assert resolve_times("next year", date(9999, 6, 1)) == []


# -- annotate ---------------------------------------------------------------------------
def test_annotate_the_issue_example():
    refs = [TimeRef("yesterday", SUN, SUN, "day"),
            TimeRef("last week", date(2023, 5, 15), date(2023, 5, 21), "week")]
    assert annotate(refs) == "(yesterday = 7 May 2023; last week = week of 15 May 2023)"


def test_annotate_shows_a_phrase_said_twice_once():
    refs = resolve_times("Yesterday? yes, yesterday. And last weekend.", MON)
    assert len(refs) == 3
    assert annotate(refs) == "(Yesterday = 7 May 2023; last weekend = weekend of 6 May 2023)"
    assert annotate([]) == "" and annotate(()) == ""


# -- parse_session_date -----------------------------------------------------------------
@pytest.mark.parametrize("text, day", [
    ("1:56 pm on 8 May, 2023", date(2023, 5, 8)),
    ("10:37 am on 27 June, 2023", date(2023, 6, 27)),
    ("12:09 am on 13 September, 2023", date(2023, 9, 13)),
    ("8 May 2023", date(2023, 5, 8)),
    ("May 8, 2023", date(2023, 5, 8)),
    ("8 May, 2023", date(2023, 5, 8)),
    ("2023-05-08", date(2023, 5, 8)),
    ("on 2023-05-08T13:56", date(2023, 5, 8)),
    ("8 may 2023", date(2023, 5, 8)),
    ("8 MAY 2023", date(2023, 5, 8)),
    ("3 Sep 2023", date(2023, 9, 3)),
    ("Dec 31, 1999", date(1999, 12, 31)),
    ("29 February 2024", date(2024, 2, 29)),
    ("32 May 2023, then 9 May 2023", date(2023, 5, 9)),        # the first real date
])
def test_parse_session_date(text, day):
    assert parse_session_date(text) == day


@pytest.mark.parametrize("text", [
    "", "hello", "May 2023", "32 May 2023", "29 February 2023", "2023-13-01", "8 Mayo 2023",
    "123 May 2023", "2023-05", "0000-01-01", "1:56 pm",
])
def test_parse_session_date_finds_none_in_junk(text):
    assert parse_session_date(text) is None


# -- errors -----------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [None, b"8 May 2023", 20230508, date(2023, 5, 8)])
def test_parse_session_date_refuses_a_non_str(bad):
    with pytest.raises(TypeError, match="text must be a str"):
        parse_session_date(bad)


def test_resolve_times_refuses_a_non_str_text_and_a_non_date_anchor():
    with pytest.raises(TypeError, match="text must be a str, got int"):
        resolve_times(5, THU)
    with pytest.raises(TypeError, match="anchor must be a datetime.date, got str: '2023-05-25'"):
        resolve_times("yesterday", "2023-05-25")


def test_annotate_refuses_what_is_not_a_time_ref():
    with pytest.raises(TypeError, match="refs must hold TimeRef values, got str"):
        annotate(["yesterday"])
    with pytest.raises(TypeError, match="refs must be a sequence of TimeRef, got str"):
        annotate("yesterday")


@pytest.mark.parametrize("args, error, message", [
    (("x", date(2023, 5, 2), date(2023, 5, 1), "day"), ValueError, "end .* before start"),
    (("x", date(2023, 5, 1), date(2023, 5, 1), "fortnight"), ValueError, "grain must be"),
    (("x", "2023-05-01", date(2023, 5, 1), "day"), TypeError, "start must be a datetime.date"),
    ((1, date(2023, 5, 1), date(2023, 5, 1), "day"), TypeError, "phrase must be a str"),
])
def test_a_time_ref_checks_its_fields(args, error, message):
    with pytest.raises(error, match=message):
        TimeRef(*args)


def test_a_decimal_amount_and_weekday_words_that_are_english_words_resolve_to_nothing():
    from kit.ranking.dates import resolve_times
    anchor = date(2023, 5, 8)
    for text in ("We moved 1.5 years ago.", "It took 2.5 weeks ago, roughly", "this sun is brutal",
                 "Last sat was fun", "the last sun rays", "next wed"):
        assert resolve_times(text, anchor) == [], text
    assert [r.label() for r in resolve_times("5 years ago; last Tues", anchor)] == [
        "2018", "2 May 2023"]
