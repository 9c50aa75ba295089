"""The pieces that make recall memory's load cost what the context costs: array RRF,
the allocator's unseen items, the early-stopping pick, columns read as arrays and
scores shared between indexes of the same turns. Each is checked against the plain
way it replaces, on random inputs."""
import random

import numpy as np
import pytest

from kit.memory import RecallMemory, RecallSearch, SharedScores, TurnIndex
from kit.memory.budget import Part, allocate
from kit.memory.recall_plan import Candidates, pick
from kit.ranking.column import Column
from kit.ranking.fusion import rrf, rrf_positions
from kit.tokens import count_words


def test_array_rrf_orders_as_rrf_does():
    for seed in range(1500):
        rng = random.Random(seed)
        n, count = rng.randint(1, 40), rng.randint(1, 6)
        rankings = [rng.sample(range(n), rng.randint(0, n)) for _ in range(count)]
        weights = [rng.choice([1.0, 0.5, 1 / 3, 0.25]) for _ in range(count)]
        if not any(rankings):
            continue
        expected = [key for key, _ in rrf(rankings, 60, weights)]
        found = rrf_positions([np.array(r, dtype=np.int64) for r in rankings], 60, weights)
        assert found.tolist() == expected, seed


def test_ties_go_to_the_best_rank_then_the_first_ranking_holding_it():
    # 0 and 1 have the same two terms (rank 1 and rank 2); 1 holds rank 1 in ranking 0
    found = rrf_positions([np.array([1, 0]), np.array([0, 1])])
    assert found.tolist() == [1, 0] == [k for k, _ in rrf([[1, 0], [0, 1]])]


def _allocate_all(costs, days, day_lines, room, overhead):
    """The plain way: every candidate offered to the allocator, best first."""
    part = Part("recalled", tuple(costs), cap=room, overhead=overhead,
                groups=tuple(day_lines[d] for d in days),
                group_costs={line: (len(line) if line else 0) for line in day_lines})
    result = allocate(None, [part]).part("recalled")
    return list(result.given), part.wanted, result.reason


def test_pick_chooses_what_the_allocator_gives_and_wants_what_it_wants():
    for seed in range(800):
        rng = random.Random(seed)
        n = rng.randint(0, 30)
        day_lines = ["", "[1 May, 2023]", "[2 May, 2023]", "[30 June, 2023]"]
        costs = [rng.choice([0, 1, 3, 5, 8, 13, 40]) for _ in range(n)]
        days = [rng.randrange(len(day_lines)) for _ in range(n)]
        room, overhead = rng.randint(0, 120), rng.choice([0, 4])
        candidates = Candidates(np.arange(1, n + 1), np.array(costs, dtype=np.int64),
                                np.array(days, dtype=np.int64), day_lines, list)
        chosen, wanted = pick(candidates, room, overhead,
                              lambda d: len(day_lines[d]) if day_lines[d] else 0)
        given, expected_wanted, _ = _allocate_all(costs, days, day_lines, room, overhead)
        assert (chosen, wanted) == (given, expected_wanted), seed


def test_unseen_items_count_as_cut_and_in_what_the_part_wanted():
    listed = Part("recalled", (5, 5), cap=12, unseen=(3, 40))
    whole = Part("recalled", (5, 5, 13, 20, 7), cap=12)
    a, b = allocate(100, [listed]).part("recalled"), allocate(100, [whole]).part("recalled")
    assert (a.wanted, a.tokens, a.cut, a.reason) == (b.wanted, b.tokens, b.cut, b.reason)
    assert a.reason == "3 of 5 cut: over the part's cap of 12"
    nothing = allocate(100, [Part("recalled", (), cap=3, unseen=(2, 9))]).part("recalled")
    assert (nothing.wanted, nothing.cut, nothing.reason) == (
        9, 2, "2 of 2 cut: over the part's cap of 3")
    with pytest.raises(ValueError, match="unseen must be a pair"):
        Part("recalled", (1,), unseen=(1,))
    with pytest.raises(ValueError, match="unseen count must be an int >= 0"):
        Part("recalled", (1,), unseen=(-1, 0))


def test_a_column_reads_as_an_array_of_what_was_appended():
    column = Column()
    assert column.array().tolist() == []
    for value in range(100):
        column.append(value * 3)
        if value % 7 == 0:
            assert column.array().tolist() == [v * 3 for v in range(value + 1)]
    view = column.array()
    with pytest.raises(ValueError):
        view[0] = 1                                   # read-only: append, never edit
    assert len(column) == 100 and Column("float64").array().dtype == np.float64


TURNS = [("user", "We adopted a puppy named Biscuit in May."), ("assistant", "Lovely!"),
         ("user", "I also started pottery classes."), ("assistant", "What do you make?"),
         ("user", "Bowls, mostly, and a vase for my sister."), ("assistant", "Nice."),
         ("user", "Biscuit chewed the vase."), ("assistant", "Oh no!")]


def _fill(memory, turns=TURNS):
    for role, text in turns:
        memory.add(role, text)
    return memory


def test_shared_scores_serve_indexes_of_the_same_turns_and_no_other():
    shared = SharedScores()
    one = _fill(RecallMemory(60, count_words, search=RecallSearch(TurnIndex(shared=shared))))
    two = _fill(RecallMemory(80, count_words, search=RecallSearch(TurnIndex(shared=shared))))
    alone = _fill(RecallMemory(60, count_words))
    question = "What did Biscuit chew?"
    assert one.context(question) == alone.context(question)
    before = shared.hits
    assert two.index.score_array(question) is one.index.score_array(question)
    assert shared.hits > before                         # the second index did not score
    other = _fill(RecallMemory(60, count_words, search=RecallSearch(TurnIndex(shared=shared))),
                  TURNS[:-1] + [("assistant", "Oh dear!")])
    assert other.index.score_array(question) is not one.index.score_array(question)
    bm25 = RecallSearch(TurnIndex(feedback=(0, 0), shared=shared))   # other settings
    _fill(RecallMemory(60, count_words, search=bm25))
    assert bm25.index.score_array(question) is not one.index.score_array(question)


def test_shared_scores_keep_at_most_their_bytes():
    shared = SharedScores(max_bytes=800)
    for i in range(10):
        shared.put(("key", i), np.zeros(25))               # 200 bytes each
    assert shared.get(("key", 0)) is None and shared.get(("key", 9)) is not None
    assert "4 arrays, 800 bytes" in repr(shared)
    with pytest.raises(ValueError, match="max_bytes"):
        SharedScores(max_bytes=0)
    with pytest.raises(TypeError, match="shared must be a SharedScores"):
        TurnIndex(shared={})


def test_bad_input_to_the_new_entry_points_is_named_and_changes_nothing():
    from kit.floor import FloorMemory
    from kit.messages import Message
    from kit.ranking.bm25 import BM25Index, recall_tokenize
    index = BM25Index()
    with pytest.raises(ValueError, match="keys must fit in 64 bits .*got 9223372036854775808"):
        index.add(2 ** 63, "dog")
    assert len(index) == 0 and index.key_array().tolist() == []
    search = RecallSearch()
    search.add(Message("user", "a dog", 2, 1, "Mel"))
    with pytest.raises(TypeError, match="below must be an int or None, got True"):
        search.index.ranking("dog", below=True)
    with pytest.raises(TypeError, match=r"query must be a str, got list: \['dog'\]"):
        search.index.score_array(["dog"])
    with pytest.raises(TypeError, match="text must be a str, got list"):
        recall_tokenize(["a"])
    with pytest.raises(ValueError, match="positions must be ints >= 0"):
        rrf_positions([np.array([-1, 0])])
    with pytest.raises(ValueError, match="k_rrf"):
        rrf_positions([np.array([0])], k_rrf=float("nan"))
    assert rrf_positions([]).tolist() == [] == rrf_positions([np.array([], dtype=int)]).tolist()
    with pytest.raises(TypeError, match="measure must be callable"):
        FloorMemory(None)
    with pytest.raises(ValueError, match=r"unseen tokens without unseen items: \(0, 50\)"):
        Part("recalled", (3,), unseen=(0, 50))


def test_rrf_exact_ties_from_different_ranks_follow_the_tie_rule():
    """2/63 = 2/90 + 1/105 exactly: A (rank 3 twice) and B (rank 30 twice, 45 once) tie;
    A holds the better rank, so it comes first, as in rrf."""
    others = list(range(2, 200))
    one = others[:2] + [0] + others[2:28] + [1] + others[28:]
    two = list(one)
    three = others[:44] + [1] + others[44:]
    expected = [key for key, _ in rrf([one, two, three])]
    found = rrf_positions([np.array(one), np.array(two), np.array(three)]).tolist()
    assert found == expected and found.index(0) < found.index(1)


def test_shared_scores_tell_apart_what_the_digest_of_tokens_would_not():
    """A "?" the tokenizer drops, two session dates of one month, another tokenizer at a
    reused address: each gives its own ranking, as an unshared index does."""
    def search(shared, turns, **options):
        found = RecallSearch(TurnIndex(shared=shared), neighbours=True, **options)
        for number, (role, speaker, text, when) in enumerate(turns, start=1):
            found.add(Message(role, text, 1, number, speaker, when))
        return found
    from kit.messages import Message
    day = "1:00 pm on 8 May, 2023"
    a = [("user", "Mel", "I adopted a beagle", day), ("assistant", "Car", "Which breed was it.", day),
         ("user", "Mel", "A small one", day)]
    b = [a[0], ("assistant", "Car", "Which breed was it?", day), a[2]]
    shared = SharedScores()
    assert search(shared, a).rank("breed") == search(None, a).rank("breed")
    assert search(shared, b).rank("breed") == search(None, b).rank("breed") == [2, 3, 1]
    def index(tokenizer, shared):
        built = TurnIndex(tokenizer=tokenizer, feedback=(0, 0), spread=(0.0, 0.0),
                          shared=shared)
        built.add(1, "Dog dog")
        built.add(2, "dog cat")
        return built
    assert index(lambda s: s.lower().split(), shared).scores("Dog").keys() == {1, 2}
    split = lambda s: s.split()                        # noqa: E731  another tokenizer
    assert index(split, shared).scores("Dog") == index(split, None).scores("Dog")
    assert index(split, None).scores("Dog").keys() == {1}


def test_the_text_caches_keep_short_texts_only():
    from kit.textcache import LONGEST, text_cache
    calls = []

    @text_cache
    def words(text):
        calls.append(text)
        return tuple(text.split())
    short, long = "a b", "x " * LONGEST
    assert words(short) == words(short) == ("a", "b") and calls == [short]
    words(long), words(long)
    assert calls == [short, long, long]                 # computed each time, never kept
    assert words.cache_info().currsize == 1


def test_a_measure_failing_on_a_line_leaves_the_recall_memory_whole():
    from kit.memory import CompactionError
    failing = {"on": False}

    def measure(text):
        if failing["on"] and text.endswith("\n"):
            raise RuntimeError("tokenizer down")
        return count_words(text)
    memory, calm = RecallMemory(30, measure), RecallMemory(30, count_words)
    for i, (role, text) in enumerate(TURNS * 3):
        failing["on"] = i == 5
        try:
            memory.add(role, text)
        except CompactionError:
            assert i == 5
        calm.add(role, text)
    failing["on"] = False
    assert memory.context("Biscuit vase") == calm.context("Biscuit vase")
