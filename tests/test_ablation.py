"""kit.ablation: each recall part's gain with a paired-bootstrap interval, and
leave-one-conversation-out cross-validation of which parts are on."""
import dataclasses

import numpy as np
import pytest

from kit.ablation import (FULL, GRID, MODEL, PARTS, STATED, STATIC, _cell as ablation_cell,
                          ablation_table, cross_validate, cv_table, gain, recall_factory,
                          run_ablation, variants)
from kit.memory_eval import CachedMeasure, evaluate
from kit.ranking.dense import HashingEmbedder, semantic_available
from kit.synthetic import synthetic_conversation

BUDGET = 400


@pytest.fixture(scope="module")
def conversations():
    return [synthetic_conversation(8, 16, seed) for seed in (1, 2)]


def with_outcomes(run, outcomes):
    """``run`` with each question's evidence all found (1) or none found (0)."""
    results, it = [], iter(outcomes)
    for q in run.results:
        if q.category in (1, 2, 3, 4) and q.evidence:
            q = dataclasses.replace(q, found=q.evidence if next(it) else ())
        results.append(q)
    return dataclasses.replace(run, results=tuple(results))


def test_a_gain_is_the_paired_difference_with_its_bootstrap_interval(conversations):
    run = evaluate(conversations[0], recall_factory(BUDGET), "recall")
    n = sum(1 for q in run.results if q.category in (1, 2, 3, 4) and q.evidence)
    assert n >= 10
    same = gain([run], [run], (1, 2, 3, 4))
    assert same == (0.0, 0.0, 0.0, n)
    everything, nothing = with_outcomes(run, [1] * n), with_outcomes(run, [0] * n)
    assert gain([everything], [nothing], (1, 2, 3, 4)) == (100.0, 100.0, 100.0, n)
    # one question of n better, the rest equal: the gain is 100/n, its interval holds 0
    one = with_outcomes(run, [1] + [0] * (n - 1))
    value, low, high, count = gain([one], [nothing], (1, 2, 3, 4))
    assert value == pytest.approx(100 / n) and low == 0.0 and 0 < high <= 300 / n
    assert gain([one], [nothing], (1, 2, 3, 4)) == (value, low, high, count)   # seeded
    assert gain([nothing], [one], (1, 2, 3, 4))[:3] == (-value, -high, -low)   # paired
    rng = np.random.default_rng(5)
    a, b = (with_outcomes(run, rng.integers(0, 2, n)) for _ in range(2))
    value, low, high, _ = gain([a], [b], (1, 2, 3, 4))
    assert low <= value <= high
    with pytest.raises(ValueError, match="the same conversations and questions"):
        gain([run], [run, run], (1, 2, 3, 4))
    assert gain([run], [run], (9,))[3] == 0


def test_each_part_is_switched_once_and_measured_against_the_defaults(conversations):
    measure = CachedMeasure()
    parts = ["query split", "two-stage search"]
    runs = run_ablation(conversations, [BUDGET], parts, measure=measure)
    assert [(r.run.conversation, r.variant) for r in runs] == [
        (c.name, v) for c in conversations for v in (FULL, *parts)]
    # the switched variant is the memory with that one option changed
    staged = evaluate(conversations[0], recall_factory(BUDGET, {}, {"sessions": 3}), "x")
    assert runs[2].run.results == staged.results
    table = ablation_table(runs)
    assert table.columns[:5] == ["part", "default", "budget (tokens)", "questions 1-4",
                                 "default 1-4 %"]
    full = [r.run for r in runs if r.variant == FULL]
    split_off = [r.run for r in runs if r.variant == "query split"]
    staged_on = [r.run for r in runs if r.variant == "two-stage search"]
    v, lo, hi, _ = gain(full, split_off, (1, 2, 3, 4))          # on by default: full - off
    assert table.rows[0][:2] == ["query split", "on"]
    assert table.rows[0][5] == f"{v:+.1f} [{lo:+.1f}, {hi:+.1f}]"
    v, lo, hi, _ = gain(staged_on, full, (1, 2, 3, 4))          # off by default: on - full
    assert table.rows[1][:2] == ["two-stage search", "off"]
    assert table.rows[1][5] == f"{v:+.1f} [{lo:+.1f}, {hi:+.1f}]"
    with pytest.raises(ValueError, match=r"unknown part\(s\) \['bm26'\]"):
        run_ablation(conversations, [BUDGET], ["bm26"])


def test_a_real_model_given_becomes_a_part_measured_by_switching_it_off():
    bm25 = variants({"embedder": None})                  # the memory without a model
    assert "dense, hashing stand-in" in bm25 and "dense retrieval" not in bm25
    assert MODEL not in bm25 and STATIC not in variants({"embedder": None}, static=len)
    found = variants({"embedder": HashingEmbedder(), "decompose": lambda p: p})
    assert "dense, hashing stand-in" not in found
    assert found["dense retrieval"] == (True, {}, {"embedder": None})
    assert found["model decomposition"] == (True, {}, {"decompose": None})
    assert set(PARTS) - {"dense, hashing stand-in"} <= set(variants())
    assert all(len(v) == 3 for v in PARTS.values())


def test_the_packaged_model_is_a_part_on_by_default_and_the_static_table_an_option():
    if not semantic_available():
        assert MODEL not in variants() and "dense, hashing stand-in" in variants()
        return
    found = variants(static=HashingEmbedder())
    assert found[MODEL] == (True, {}, {"embedder": None})
    assert found[STATIC][0] is False and isinstance(found[STATIC][2]["embedder"], HashingEmbedder)
    assert "dense, hashing stand-in" not in found and STATIC not in variants()


def test_the_static_row_is_measured_against_the_memory_without_a_model(conversations):
    """The static table's gain is (memory with it) - (memory with no model), whatever
    the default memory has (a stand-in embedder plays the static table)."""
    if not semantic_available():
        pytest.skip('needs the semantic extra: pip install -e ".[semantic]"')
    one, measure = conversations[:1], CachedMeasure()
    runs = run_ablation(one, [BUDGET], [STATIC], measure=measure, static=HashingEmbedder())
    assert [r.variant for r in runs] == [FULL, STATIC, MODEL]
    by = {r.variant: r.run for r in runs}
    row = ablation_table(runs, title="t").rows[0]
    assert row[:2] == [STATIC, "off"]
    assert row[5] == ablation_cell(gain([by[STATIC]], [by[MODEL]], (1, 2, 3, 4)))


def test_cross_validation_picks_on_the_others_and_scores_on_the_one_left_out(conversations):
    grid = [STATED, {"split": False, "neighbours": False, "sessions": 0},
            {"split": True, "neighbours": True, "sessions": 3}]
    folds = cross_validate(conversations, [BUDGET], grid)
    assert [(f.held_out, f.tuned_on) for f in folds] == [
        (conversations[0].name, (conversations[1].name,)),
        (conversations[1].name, (conversations[0].name,))]
    for fold, held, other in zip(folds, conversations, reversed(conversations)):
        for label, options in zip(["split", "direct only", "split + neighbours + sessions=3"],
                                  grid):
            on_other = evaluate(other, recall_factory(BUDGET, {}, options), "x")
            on_held = evaluate(held, recall_factory(BUDGET, {}, options), "x")
            assert fold.scores[label] == (on_other.score([1, 2, 3, 4]).all_evidence,
                                          on_held.score([1, 2, 3, 4]).all_evidence)
        best = max(fold.scores[label][0] for label in fold.scores)
        assert fold.scores[fold.chosen][0] == best and fold.stated == "split"
    row = cv_table(folds).rows[0]
    assert row[:4] == [f"{BUDGET:,}", folds[0].held_out, folds[0].tuned_on[0], folds[0].chosen]
    assert row[6] == f"{100 * folds[0].scores['split'][1]:.1f}"
    assert len(GRID) == 8 and GRID[0] == STATED
    with pytest.raises(ValueError, match="needs at least 2 conversations, got 1"):
        cross_validate(conversations[:1])


def test_bad_settings_and_scores_are_refused_before_anything_runs(conversations):
    from kit.ablation import leave_one_out
    with pytest.raises(ValueError, match="the grid holds a setting twice"):
        cross_validate(conversations, [BUDGET], [STATED, dict(STATED)])
    with pytest.raises(ValueError, match="exactly split, neighbours and sessions"):
        cross_validate(conversations, [BUDGET], [{"split": True}])
    with pytest.raises(ValueError, match=r"scores must be finite numbers; 'a' has nan"):
        leave_one_out({"a": [float("nan"), 0.5], "b": [0.5, 0.5]})
    with pytest.raises(TypeError, match="categories must be a sequence of ints"):
        gain([], [], 1)
    runs = run_ablation(conversations[:1], [BUDGET], "query split")   # one name, not letters
    assert [r.variant for r in runs] == [FULL, "query split"]
