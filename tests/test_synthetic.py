"""The synthetic long conversation: deterministic, well-formed, answers where they belong."""
import datetime
import re
from collections import Counter

import pytest

from kit.locomo import LongConversation
from kit.synthetic import CHAINS, SPEAKERS, synthetic_conversation

CONV = synthetic_conversation()


def parse_day(date: str) -> datetime.date:
    return datetime.datetime.strptime(date.split(" on ", 1)[1], "%d %B, %Y").date()


def test_same_arguments_same_conversation_and_the_seed_matters():
    assert synthetic_conversation() == CONV
    other = synthetic_conversation(seed=1)
    assert other.turns != CONV.turns and other.questions != CONV.questions


def test_shape_speakers_and_dates():
    assert isinstance(CONV, LongConversation) and CONV.speakers == SPEAKERS
    assert len(CONV.turns) == 20 * 20 and CONV.sessions == tuple(range(1, 21))
    for turn in CONV.turns:                       # Maya opens every session, then they alternate
        assert turn.speaker == SPEAKERS[(int(turn.dia_id.split(":")[1]) - 1) % 2]
        assert turn.date == CONV.session_dates[turn.session]
        assert turn.dia_id.startswith(f"D{turn.session}:")
    days = [parse_day(CONV.session_dates[n]) for n in CONV.sessions]
    gaps = [(b - a).days for a, b in zip(days, days[1:])]
    assert all(4 <= g <= 16 for g in gaps)
    assert (days[-1] - days[0]).days > 90          # spread over months


def test_every_category_but_open_domain_is_asked():
    counts = Counter(q.category for q in CONV.questions)
    assert set(counts) == {1, 2, 4, 5} and min(counts.values()) >= 3
    assert len({q.question for q in CONV.questions}) == len(CONV.questions)


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_answers_sit_where_their_category_says(seed):
    conv = synthetic_conversation(seed=seed)
    for q in conv.questions:
        turns = [conv.turn(e) for e in q.evidence]           # raises if an id names no turn
        if q.category == 4:
            assert len(turns) == 1 and q.answer in turns[0].text
        elif q.category == 1:                                 # two facts, two sessions
            assert len(turns) == 2 and turns[0].session < turns[1].session
            assert q.answer in turns[1].text and q.answer not in turns[0].text
            assert turns[0].speaker == turns[1].speaker
        elif q.category == 2:                                 # the date of the session it was said in
            assert len(turns) == 1 and turns[0].date.endswith(" on " + q.answer)
        else:
            assert q.answer is None and q.adversarial_answer in turns[0].text
            assert turns[0].speaker not in q.question         # asked about the other speaker


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_each_fact_is_stated_once(seed):
    """A fact's value occurs only in its own evidence turn, so a memory cannot get it
    from small talk; a multi-hop link (the cousin's name) only in its two turns."""
    conv = synthetic_conversation(seed=seed)

    def holders(value):
        return {t.dia_id for t in conv.turns if value.lower() in t.text.lower()}

    for q in conv.questions:
        if q.category != 2:
            value = q.adversarial_answer if q.category == 5 else q.answer
            assert holders(value) == {q.evidence[-1]}, q
        if q.category == 1:
            first = conv.turn(q.evidence[0]).text
            links = [m.group(1) for _, _, said, _, _ in CHAINS
                     if (m := re.search(re.escape(said).replace(r"\{a\}", "(.+?)"), first))]
            assert len(links) == 1 and holders(links[0]) == set(q.evidence), (q, links)


def test_updates_come_after_what_they_replace():
    temporal = [q for q in CONV.questions if q.category == 2]
    now = [q for q in CONV.questions if q.category == 4 and q.question.endswith(" now?")]
    assert len(now) >= 2 and len(temporal) == 2 * len(now)
    for q in now:
        new, = [t for t in temporal if q.answer in t.question]      # "When did Maya move to X?"
        assert new.evidence == q.evidence
        head = new.question.split(q.answer)[0]                       # "When did Maya move to "
        old, = [t for t in temporal if t.question.startswith(head) and t is not new]
        assert CONV.turn(old.evidence[0]).session < CONV.turn(new.evidence[0]).session


@pytest.mark.parametrize("sessions, per_session", [(2, 4), (3, 9), (40, 30)])
def test_other_sizes_stay_well_formed(sessions, per_session):
    conv = synthetic_conversation(sessions, per_session, seed=3)
    assert len(conv.turns) == sessions * per_session and conv.questions
    assert all(conv.turn(e) for q in conv.questions for e in q.evidence)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"sessions": 1}, ValueError, "sessions must be >= 2, got 1"),
    ({"turns_per_session": 3}, ValueError, "turns_per_session must be >= 4, got 3"),
    ({"sessions": 2.5}, TypeError, "sessions must be an int"),
    ({"seed": "x"}, TypeError, "seed must be an int"),
])
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        synthetic_conversation(**kwargs)
