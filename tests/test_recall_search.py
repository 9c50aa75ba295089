"""Recall memory's search, part by part: the shared BM25 index, who and when indexed,
relative dates resolved, the query split, the model's parts, the two-stage search,
neighbour expansion and the dense interface."""
import math
import random
from collections import Counter

import numpy as np
import pytest

from kit.memory import RecallMemory, RecallSearch, TurnIndex, split_query
from kit.memory.recall_search import MAX_PARTS, parse_parts
from kit.messages import Message
from kit.ranking import rrf
from kit.ranking.bm25 import BM25Index, recall_tokenize
from kit.ranking.dense import HashingEmbedder
from kit.tokens import count_words

JUNE, MAY = "4:04 pm on 2 June, 2023", "1:56 pm on 8 May, 2023"


def turn(number, text, speaker="Ann", when=MAY, role=None):
    role = role or ("user" if speaker == "Ann" else "assistant")
    return Message(role, text, count_words(text), number, speaker, when)


def plain(**options) -> TurnIndex:
    """Plain BM25 over the text, plus the options given."""
    return TurnIndex(**{"spread": (0.0, 0.0), "speaker_boost": 0.0, "feedback": (0, 0),
                        "index_speaker": False, "index_date": False, "resolve_dates": False,
                        **options})


def direct(index=None, **parts) -> RecallSearch:
    """The direct search over ``index`` (default :func:`plain`), plus the parts named; no
    embedding model unless one is named (these tests pin the BM25 path)."""
    return RecallSearch(index if index is not None else plain(),
                        **{"sessions": 0, "split": False, "neighbours": False,
                           "embedder": None, **parts})


# -- the shared BM25 index ---------------------------------------------------------------
def reference_bm25(docs, query, k1=1.5, b=0.75):
    """BM25 written out term by term (Lucene's idf), for one query: {position: score}."""
    n, average = len(docs), sum(map(len, docs)) / len(docs)
    scores = {}
    for term in query:
        df = sum(term in d for d in docs)
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        for p, d in enumerate(docs):
            tf = d.count(term)
            if tf:
                norm = k1 * (1 - b + b * len(d) / average)
                scores[p] = scores.get(p, 0.0) + idf * tf * (k1 + 1) / (tf + norm)
    return scores


def test_the_bm25_index_scores_as_the_formula_one_document_at_a_time():
    rng = random.Random(0)
    words = [f"w{i}" for i in range(30)]
    docs = [[rng.choice(words) for _ in range(rng.randint(1, 12))] for _ in range(60)]
    index = BM25Index(tokenizer=str.split)
    for step, doc in enumerate(docs, start=1):
        index.add(10 * step, " ".join(doc))
        query = rng.sample(words, 3)
        expected = reference_bm25(docs[:step], query)
        got = index.scores({t: 1.0 for t in query})
        assert {p: s for p, s in enumerate(got) if s} == pytest.approx(expected)
    ranked = index.ranked(index.scores({"w1": 1.0, "w2": 1.0}), below=300)
    assert all(key < 300 for key, _ in ranked)
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
    assert index.position(20) == 1 and index.position(25) is None
    assert index.tokenized == 60
    with pytest.raises(ValueError, match="keys must be increasing ints; got 600 after 600"):
        index.add(600, "again")
    assert len(index) == 60


def test_a_key_repeated_in_one_ranking_counts_once_and_huge_vectors_are_kept():
    assert rrf([[1, 1, 2]]) == rrf([[1, 2]])
    from kit.ranking.dense import DenseIndex
    index = DenseIndex(lambda texts: [[1e308, 1e308] if t == "big" else [1.0, 0.0]
                                      for t in texts])
    index.extend([(1, "big"), (2, "small")])
    assert [k for k, _ in index.search("big")] == [1, 2]     # [1e308, 1e308] is no zero vector


def test_weighted_rrf_multiplies_each_rankings_terms():
    assert rrf([[1, 2], [2, 1]], weights=[1, 0]) == [(1, 1 / 61 + 0 / 62), (2, 1 / 62)]
    assert [k for k, _ in rrf([["a", "b"], ["b", "c"]], weights=[0.5, 1])] == ["b", "c", "a"]
    for bad in ([1], [1, -1], [1, float("nan")], [True, 1]):
        with pytest.raises(ValueError, match="weights must be one finite number >= 0 per ranking"):
            rrf([[1], [2]], weights=bad)


# -- who and when are indexed --------------------------------------------------------------
def test_the_speaker_and_the_session_month_are_indexed_with_each_turn():
    full, bare = plain(index_speaker=True, index_date=True), plain()
    for index in (full, bare):
        index.add(1, "I adopted a puppy.", "Caroline", MAY)
        index.add(2, "I adopted a kitten.", "Melanie", JUNE)
    assert full.bm25.terms[0] == Counter(["adopt", "puppy", "carolin", "may", "2023"])
    assert [n for n, _ in full.search("What did Caroline adopt?")][0] == 1
    assert [n for n, _ in full.search("What was adopted in June?")][0] == 2
    assert bare.search("What was adopted in June?") == bare.search("What was adopted?")


def test_a_relative_date_is_resolved_against_its_session_date_indexed_and_shown():
    turns = [turn(1, "Last month I ran a marathon.", when=JUNE),
             turn(2, "Nice, I ran a race once.", "Bob", when=JUNE),
             turn(3, "In March I ran a half marathon.", when=JUNE)]
    found = {}
    for resolve in (True, False):
        search = direct(plain(resolve_dates=resolve))
        search.extend(turns)
        found[resolve] = search.rank("What did Ann run in May 2023?")[:1]
        assert search.note(1) == ("(Last month = May 2023)" if resolve else "")
    assert found == {True: [1], False: []}    # no word of the question without the date
    memory = RecallMemory(200, count_words, recent=200,           # all three in the window
                          search=RecallSearch(embedder=None))
    for t in turns:
        memory.add(t.role, t.content, speaker=t.speaker, when=t.when)
    assert "Ann: Last month I ran a marathon. (Last month = May 2023)" in memory.context()
    assert "[2 June, 2023]" in memory.context()    # the day, not the clock time
    assert memory.line_tokens(memory.turns[0]) == 6 + 1 + count_words(" (Last month = May 2023)")
    assert memory.size == 6 + 6 + 7               # texts only: the note is not a text


# -- the query split ----------------------------------------------------------------------
def test_a_question_is_split_into_its_clauses_or_else_its_content_words():
    assert split_query("What did Melanie paint and where did she camp?", recall_tokenize) == [
        "What did Melanie paint", "where did she camp?"]
    assert split_query("What pets and hobbies does Caroline have?", recall_tokenize,
                       {"Caroline"}) == ["What pets", "hobbies does Caroline have?"]
    assert split_query("Which hobbies does Caroline enjoy?", recall_tokenize, {"Caroline"}) == [
        "Caroline hobby", "Caroline enjoy"]
    assert split_query("What is the plan?", recall_tokenize) == []          # one content word
    many = "a1, b2, c3, d4, e5, f6"
    assert split_query(many, recall_tokenize) == ["a1", "b2", "c3", "d4"][:MAX_PARTS]


def test_each_part_of_a_multi_part_question_is_searched():
    # three painting turns match two of the question's words; the camping turn one
    turns = [turn(1, "I painted the lake at dawn."), turn(2, "Lovely.", "Bob"),
             turn(3, "I painted the lake at noon."), turn(4, "Great.", "Bob"),
             turn(5, "I painted the lake at dusk."), turn(6, "Nice.", "Bob"),
             turn(7, "We went camping."), turn(8, "Fun!", "Bob"),
             *[turn(n, f"Work was busy on day {n}.", "Bob") for n in range(9, 20)]]
    question = "What did Ann paint at the lake, and where did she go camping?"
    whole, split = direct(), direct(split=True)
    for search in (whole, split):
        search.extend(turns)
    assert whole.rank(question) == [1, 3, 5, 7]
    assert split.parts(question) == ["What did Ann paint at the lake", "where did she go camping?"]
    assert split.rank(question) == [1, 3, 7, 5]      # each part's best turn in the top three
    assert split.last["parts"] == [2] and "parts" not in whole.last


def test_a_models_parts_replace_the_rules_and_a_failing_model_falls_back():
    prompts = []

    def model(prompt):
        prompts.append(prompt)
        return "1. Where did Ann camp?\n- What did Ann paint?\n\n"
    search = RecallSearch(decompose=model)
    assert search.parts("Ann's camping and painting?") == ["Where did Ann camp?",
                                                           "What did Ann paint?"]
    assert search.model_calls == 1 and prompts[0].endswith("Question:\nAnn's camping and painting?")
    simple = RecallSearch(decompose=lambda p: "One question only?")
    assert simple.parts("a b c?") == []              # one line: the question is simple

    def broken(prompt):
        raise TimeoutError("model down")
    for bad in (broken, lambda p: "  \n...\n", lambda p: None):
        search = RecallSearch(decompose=bad)
        assert search.parts("What pets and hobbies?") == ["What pets", "hobbies?"]
    broken_search = RecallSearch(decompose=broken)
    broken_search.rank("What pets and hobbies?")
    assert broken_search.last["decompose failed"] == ["TimeoutError"]
    assert parse_parts("a\n" * 10) == ["a"] * MAX_PARTS
    with pytest.raises(TypeError, match="decompose must be callable or None"):
        RecallSearch(decompose="gpt")


# -- the two-stage search ---------------------------------------------------------------
def test_the_session_stage_finds_a_turn_the_direct_search_misses():
    sessions = [("1:00 pm on 1 May, 2023", ["We flew to Lisbon for the conference.",
                                            "The hotel had a rooftop pool."]),
                ("1:00 pm on 9 May, 2023", ["My sister visited.", "We baked bread."]),
                ("1:00 pm on 20 May, 2023", ["Work was busy.", "I fixed the bike."])]
    turns, n = [], 0
    for when, texts in sessions:
        for text in texts:
            n += 1
            turns.append(turn(n, text, ("Ann", "Bob")[n % 2], when))
    query = "What did they do at the Lisbon conference?"
    plain, staged = direct(), direct(sessions=1)
    for search in (plain, staged):
        search.extend(turns)
    assert 2 not in plain.rank(query)                  # "rooftop pool" shares no word
    assert staged.rank(query)[:2] == [1, 2]            # its session is the best one
    assert staged.last["sessions"] == [1, 2]
    assert "Lisbon" in staged.digest(0) and staged.digest(0).startswith(sessions[0][0])


# -- neighbour expansion -------------------------------------------------------------------
def test_a_recalled_turn_brings_the_turn_it_answers_or_that_answers_it():
    turns = [turn(1, "Where did you go on holiday?", "Bob"), turn(2, "Crete, with my kids."),
             turn(3, "Did you like the museum?", "Bob"), turn(4, "Yes, the museum was great."),
             turn(5, "I also went to Crete last year.", "Bob", when=JUNE)]
    search = direct(neighbours=True)
    search.extend(turns)
    assert search.partner(1) == 2 and search.partner(2) == 1     # asks -> reply; reply -> question
    assert search.partner(4) == 3 and search.partner(5) is None  # another session: none
    alone = direct()
    alone.extend(turns)
    assert alone.rank("holiday") == [1] and search.rank("holiday") == [1, 2]
    assert alone.rank("kids") == [2] and search.rank("kids") == [2, 1]
    assert alone.rank("museum") == [3, 4] and search.rank("museum") == [3, 4]   # once each
    assert search.rank("kids", below=2) == []                     # never past the window
    assert search.rank("holiday", below=2) == [1]


# -- dense retrieval ------------------------------------------------------------------------
def test_a_dense_retriever_is_fused_with_bm25_through_its_interface():
    turns = [turn(1, "My photographs won a prize."), turn(2, "Congrats!", "Bob"),
             turn(3, "The weather is grey.", "Bob")]
    calls = []

    def embedder(texts):
        calls.append(list(texts))
        return HashingEmbedder()(texts)
    dense, plain = direct(embedder=embedder), direct()
    for search in (dense, plain):
        search.extend(turns)
    assert calls == []                                  # embedded at the first search
    assert plain.rank("Is Ann into photography?") == []        # no stem in common
    assert dense.rank("Is Ann into photography?")[0] == 1       # character trigrams meet
    assert dense.last["dense"][0] == 1
    assert calls == [["Ann: My photographs won a prize.", "Bob: Congrats!",   # one call
                      "Bob: The weather is grey."], ["Is Ann into photography?"]]
    dense.add(turn(4, "Rain again.", "Bob"))
    dense.rank("rain")
    assert calls[2:] == [["Bob: Rain again."], ["rain"]]       # each turn embedded once


def test_turns_added_one_by_one_are_embedded_in_one_call_at_the_next_search():
    from kit.synthetic import synthetic_conversation
    conversation = synthetic_conversation(5, 20)
    calls = []

    def embedder(texts):
        calls.append(len(texts))
        return HashingEmbedder()(texts)
    memory = RecallMemory(300, count_words, search=direct(embedder=embedder))
    for t in conversation.turns[:100]:
        memory.add(conversation.role_of(t.speaker), t.text, speaker=t.speaker, when=t.date)
    assert calls == []
    memory.context(conversation.questions[0].question)
    assert calls == [len(memory.index), 1]      # the turns out of the window, the question



def test_a_failing_embedder_never_stops_recall_and_catches_up_when_it_answers():
    turns = [turn(1, "My photographs won a prize."), turn(2, "Congrats!", "Bob"),
             turn(3, "The weather is grey.", "Bob"), turn(4, "Rain again.", "Bob"),
             turn(5, "I sold a photograph.")]
    answers = iter([None, None, "down", "down", None, None, None])  # None: answer; else fail

    def flaky(texts):
        if next(answers) == "down":
            raise ConnectionError("embedding endpoint down")
        return HashingEmbedder()(texts)
    search = direct(embedder=flaky)
    search.add(turns[0])
    search.rank("prize")                             # embeds turn 1, then the question
    search.add(turns[1])
    ranking = search.rank("photography prize")       # fails: BM25 alone
    assert len(search) == 2 and len(search.dense) == 1 and ranking == [1]
    assert search.failures["embedder"] == 1 and search.last["embedder failed"] == ["ConnectionError"]
    search.add(turns[2])
    search.rank("photography prize")                 # fails again: skipped for the next turns
    assert len(search.dense) == 1 and search.failures["embedder"] == 2
    search.add(turns[3])
    ranking = search.rank("photography prize")       # skipped (backing off): BM25 alone
    assert "dense" not in search.last and ranking == [1]
    assert len(search.dense) == 1 and search.failures["embedder"] == 2
    search.add(turns[4])                             # answers: turns 2 to 5 in one call
    assert set(search.rank("photography")[:2]) == {1, 5} and "dense" in search.last
    assert len(search.dense) == 5 and search._unembedded == []

    def wrong(texts):
        return np.zeros((len(texts) + 1, 4))
    bad = direct(embedder=wrong)
    bad.add(turns[0])                                # a wrong shape is a failure too
    assert bad.rank("prize") == [1]
    assert (len(bad), len(bad.dense), bad.failures["embedder"]) == (1, 0, 1)
    memory = RecallMemory(300, count_words, search=direct(embedder=lambda texts: 1 / 0))
    for t in turns:
        memory.add(t.role, t.content, speaker=t.speaker, when=t.when)
    assert memory.context_numbers("prize") and memory.search.failures["embedder"] >= 1


def test_a_memory_with_every_part_on_keeps_its_budget_and_counts_each_turn_once():
    from kit.synthetic import synthetic_conversation
    conversation = synthetic_conversation(6, 16)
    search = RecallSearch(sessions=3, split=True, neighbours=True, embedder=HashingEmbedder(),
                          decompose=lambda p: "first part\nsecond part")
    memory = RecallMemory(300, count_words, search=search)
    for t in conversation.turns:
        memory.add(conversation.role_of(t.speaker), t.text, speaker=t.speaker, when=t.date)
    assert memory.index.tokenized == len(conversation.turns)
    for q in conversation.questions[:10]:
        assert memory.allocation(q.question).total <= 300
        assert count_words(memory.context(q.question)) + count_words(q.question) <= 300
    assert memory.model_calls == 10
    with pytest.raises(ValueError, match="search must be an empty RecallSearch"):
        RecallMemory(300, search=search)
    with pytest.raises(ValueError, match="index not given with it"):
        RecallMemory(300, search=RecallSearch(), index=TurnIndex())


@pytest.mark.parametrize("budget", [1000, 2000])
def test_every_context_as_sent_with_its_question_is_within_the_budget(budget):
    """Budget honesty: the memory-policy benchmark's recall contexts, measured as text
    with the question after them, never exceed the budget (tokens, cl100k_base)."""
    from kit.memory_eval import CachedMeasure, evaluate
    from kit.policy_bench import strategy_factories
    from kit.synthetic import synthetic_conversation
    from kit.tokens import count_tokens
    conversation, measure = synthetic_conversation(), CachedMeasure()
    for name, factory in strategy_factories(budget, ["recall", "hybrid"]).items():
        run = evaluate(conversation, factory, name, measure=measure)
        for result in run.results:
            question = conversation.questions[result.index].question
            assert result.context_tokens + count_tokens(question) <= budget, (name, question)
        assert max(r.context_tokens for r in run.results) > 0.9 * budget - 100   # it is used


def test_undated_turns_between_dated_ones_and_separators_stay_within_the_budget():
    from kit.tokens import count_characters, count_tokens
    memory = RecallMemory(120, keep_recent=1, recent=10)           # cl100k tokens
    for i in range(12):
        memory.add("user", f"I saw bird {i} at the lake.", speaker="Ann", when=MAY)
        memory.add("assistant", f"Nice bird {i}!")                  # no speaker, no date
    question = "Which birds did Ann see at the lake?"
    context = memory.context(question)
    for block in context.split("\n\n"):                           # one day, one line
        assert block.count("[8 May, 2023]") == 1, block
    assert count_tokens(context) + count_tokens(question) <= 120
    for measure, budget in ((count_characters, 200), (count_tokens, 100)):
        memory = RecallMemory(budget, measure, keep_recent=1, recent=budget // 4)
        for i in range(20):                                        # lines end in a letter
            memory.add("user", f"we went hiking near the lake {i} lol", speaker="Ann")
        question = "where did we go hiking"
        assert measure(memory.context(question)) + measure(question) <= budget, measure
    two = RecallMemory(300)                                        # two sessions, one day
    two.add("user", "Morning run done.", speaker="Ann", when="7:00 am on 8 May, 2023")
    two.add("user", "Evening run done.", speaker="Ann", when="7:00 pm on 8 May, 2023")
    assert two.context().count("[8 May, 2023]") == 1


def test_bad_arguments_are_refused_with_their_names():
    search = RecallSearch()
    for call, message in ((lambda: search.rank(None), "query must be a str"),
                          (lambda: search.rank("x", recent=None), "recent must be a str"),
                          (lambda: search.rank("x", below="3"), "below must be an int"),
                          (lambda: search.rank("x", below=3.5), "below must be an int"),
                          (lambda: TurnIndex().add(2, "hi", "a", 5), "when must be a str"),
                          (lambda: TurnIndex().add(1, None), "text must be a str"),
                          (lambda: TurnIndex(k1=float("inf")), "k1 must be a finite number"),
                          (lambda: TurnIndex(speaker_boost=10 ** 400), "speaker_boost must be")):
        with pytest.raises((TypeError, ValueError), match=message):
            call()
    shared = RecallSearch()
    RecallMemory(300, search=shared)
    with pytest.raises(ValueError, match="search already belongs to another memory"):
        RecallMemory(600, search=shared)
    index = TurnIndex()
    RecallSearch(index)
    with pytest.raises(ValueError, match="of no other search"):
        RecallSearch(index)


def test_model_replies_are_read_for_their_questions_only():
    assert parse_parts("Here are the sub-questions:\n**1.** Where did Ann camp?\n"
                       "* 2) What did she paint?") == ["Where did Ann camp?",
                                                        "What did she paint?"]
    calls = []
    search = RecallSearch(decompose=lambda p: calls.append(p) or 42)
    assert search.parts("What pets and hobbies?") == ["What pets", "hobbies?"]
    assert search.failures["decompose"] == 1 and search.last["decompose failed"] == ["TypeError"]


def test_the_stopwords_are_bm25s_list_read_without_importing_its_engine():
    import subprocess
    import sys
    code = ("import sys; from kit.ranking.bm25 import recall_stopwords, KEPT_WORDS; "
            "words = recall_stopwords(); print('bm25s' in sys.modules); "
            "from bm25s.stopwords import STOPWORDS_EN_PLUS as PLUS; "
            "print(words == frozenset(PLUS) - KEPT_WORDS, len(words))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["False", "True", "172"], done.stderr
