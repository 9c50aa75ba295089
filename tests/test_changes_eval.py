"""Conversations in which facts change (kit.synthetic_changes) and their evaluation
(kit.change_eval)."""
import re

import pytest

from kit.change_eval import (POLICIES, change_table, check_change_targets, policy_factories,
                             run_changes, score_context)
from kit.memory_eval import CachedMeasure
from kit.synthetic_changes import (KINDS, SPLITS, TEMPLATES, ChangeQuestion,
                                   changing_conversation, changing_set, split_templates)
from test_synthetic_changes_blind import BLIND
from kit.tokens import cl100k_tokens


_PATTERNS = [(half, re.compile(re.escape(t).replace(r"\{v\}", ".+")
                               .replace(r"\{old\}", ".+")))
             for half, split in enumerate(SPLITS)
             for templates in split_templates(split).values() for t in templates]


def _template_of(text):
    """The index (in SPLITS) of every split whose templates could have written ``text``."""
    return {half for half, pattern in _PATTERNS if pattern.search(text)}


@pytest.mark.parametrize("split, half", [(split, half) for half, split in enumerate(SPLITS)])
def test_a_conversation_uses_one_half_of_the_templates_and_is_long_enough(split, half):
    one = changing_conversation(3, split)
    assert one == changing_conversation(3, split)                   # same seed, same talk
    assert one != changing_conversation(4, split)
    turns = one.conversation.turns
    statements = {e for q in one.questions for e in q.evidence}
    values = {v for q in one.questions for v in q.gold + q.conflicting}
    for turn in turns:                  # a turn holding a value was written from a template
        if turn.dia_id in statements or any(v in turn.text for v in values):
            assert turn.speaker == "Maya" and _template_of(turn.text) == {half}, turn.text
    size = sum(cl100k_tokens(f"{t.speaker}: {t.text}") for t in turns)
    assert size >= 3 * 2000
    assert {q.kind for q in one.questions} == set(KINDS)


def test_the_blind_split_mirrors_the_held_out_one_in_other_words():
    def placeholders(text):
        return sorted(re.findall(r"\{(\w+)\}", text))

    def words(text):                    # the phrasing without placeholders, case or punctuation
        return " ".join(re.findall(r"[a-z']+", re.sub(r"\{\w+\}", " ", text.lower())))

    assert SPLITS == ("development", "held-out", "blind", *BLIND)
    for split, own in BLIND.items():
        assert split_templates(split) == {e: list(own[e]) for e in TEMPLATES}
    assert split_templates("blind") == {e: parts[2] for e, parts in TEMPLATES.items()}
    with pytest.raises(ValueError, match="split must be one of"):
        split_templates("blind-99")
    for event, parts in TEMPLATES.items():
        assert len(parts) == 3, event
        _, held, blind = parts
        assert [placeholders(t) for t in blind] == [placeholders(t) for t in held], event
        others = {words(t) for t in parts[0] + held}
        assert len({words(t) for t in blind}) == len(blind), event
        assert all(words(t) not in others for t in blind), event


def test_the_questions_follow_the_story():
    one = changing_conversation(0, "held-out")
    by = {(q.attribute, q.kind): q for q in one.questions}
    now, then = by[("home city", "current")], by[("home city", "as_of")]
    assert now.gold[0] in by[("home city", "history")].gold[-1:]
    assert set(now.conflicting) == set(by[("home city", "history")].gold[:-1])
    assert then.day and then.gold[0] not in then.conflicting
    assert len(by[("allergy", "current")].gold) == 2                  # a new allergy adds
    assert by[("open order", "abstention")].forbidden == by[("open order", "as_of")].gold
    with pytest.raises(ValueError, match="split must be one of"):
        changing_conversation(0, "test")
    with pytest.raises(ValueError, match="sessions must be >= 12"):
        changing_conversation(0, sessions=3)


def test_scoring_answerable_stale_and_abstention():
    q = ChangeQuestion("Where does Maya live now?", "current", "home city", ("Tallinn",),
                       ("Lisbon",))
    assert score_context(q, "Maya's home city: Tallinn") == (True, False, None)
    assert score_context(q, "Lisbon, then tallinn") == (False, False, None)     # both: not answerable
    assert score_context(q, "Maya lives in Lisbon") == (False, True, None)      # stale
    assert score_context(q, "nothing") == (False, False, None)
    gone = ChangeQuestion("Which order is open?", "abstention", "open order", forbidden=("#4411",))
    assert score_context(gone, "order #44110") == (None, None, True)            # whole words
    assert score_context(gone, "cancelled #4411") == (None, None, False)


def test_every_policy_on_one_conversation_per_half():
    conversations = changing_set(1, "held-out") + changing_set(1, "development")
    results = run_changes(conversations, 2000, measure=CachedMeasure())
    assert len(results) == 2 * len(POLICIES) * len(conversations[0].questions)
    for split in ("held-out", "development"):
        assert all(met for *_, met in check_change_targets(results, split=split))
    table = change_table(results)
    rows = {(row[0], row[1]): row for row in table.rows}
    assert rows[("held-out", "append-only")][2] != "100"          # old values beside new
    assert rows[("held-out", "overwrite")][4] == "0"               # no past
    assert max(r.tokens for r in results) <= 2000
    with pytest.raises(ValueError, match="unknown policies"):
        policy_factories(2000, ["nope"])
