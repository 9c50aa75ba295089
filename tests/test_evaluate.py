"""Unit tests of kit/rag/evaluate.py on a tiny fake bot (keyword retrieval, scripted
answers, a rewrite table for follow-ups), judged by the deterministic overlap judge;
then integration tests on the real Chatbot with the shipped help centre and gold set,
answered by the quoting stub model (kit.rag.stub_models.QuotingModel)."""
import re
from types import SimpleNamespace

import pytest

from kit.llm import CountingLLM, ScriptedLLM
from kit.rag.chatbot import Chatbot
from kit.rag.documents import Chunk, load_corpus
from kit.rag.evaluate import ADVICE, EvalRow, diagnose, evaluate
from kit.rag.goldset import load_eval_set
from kit.rag.judge import FlakyJudge, overlap_judge
from kit.rag.retrieval import BM25Retriever
from kit.rag.stub_models import QuotingModel, first_sentence

DOCS = [Chunk("c1", "Refunds for prepaid orders take 5 working days.", "refunds.md"),
        Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md"),
        Chunk("c3", "Orders ship within 2 days from our warehouse.", "shipping.md")]
REFUSAL = "I could not answer that from our help articles."


def words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4}


class FakeBot:
    """Keyword search over DOCS; answers scripted per question; a follow-up (any turn
    after the first in a session) is searched with ``rewrites[question]`` if given."""

    def __init__(self, answers, rewrites=None, top_k=3, with_chunks=True):
        self.answers, self.rewrites, self.top_k = answers, rewrites or {}, top_k
        self.with_chunks, self.sessions, self.asked = with_chunks, {}, []

    def ask(self, session_id, question):
        history = self.sessions.setdefault(session_id, [])
        query = self.rewrites.get(question, question) if history else question
        chunks = [c for c in DOCS if words(query) & words(c.text)][:self.top_k]
        draft = self.answers.get(question, "")
        cited = [chunks[int(n) - 1] for n in re.findall(r"\[(\d+)\]", draft) if 1 <= int(n) <= len(chunks)]
        history.append(question)
        self.asked.append((session_id, question))
        out = SimpleNamespace(answer=draft if cited else REFUSAL, query=query,
                              chunk_ids=[c.id for c in chunks],
                              citations=[{"chunk_id": c.id} for c in cited])
        if self.with_chunks:
            out.chunks = chunks
        return out


ANSWERS = {
    "How long do prepaid refunds take?": "Prepaid refunds take 5 working days [1].",
    "How are cash-on-delivery refunds paid?": "They are refunded in cash within 1 hour [2].",
    "How fast is delivery?": "Cash-on-delivery refunds are paid as store credit [1].",
}
CASES = [  # question, gold; the comment says what the fake bot does
    {"question": "How long do prepaid refunds take?", "gold_chunk_id": "c1"},       # ok
    {"question": "How are cash-on-delivery refunds paid?", "gold_chunk_id": "c2"},  # rank 2, ungrounded
    {"question": "How fast is delivery?", "gold_chunk_id": "c3"},                   # c3 missed
    {"question": "Do you sell gift cards?", "gold_chunk_id": None},                 # nothing: refused
    {"question": "Can I get my prepaid refund faster?", "gold_chunk_id": "c1"},     # refused
]


def test_recall_and_groundedness_are_reported_apart():
    judge_model = CountingLLM(overlap_judge)
    report = evaluate(FakeBot(ANSWERS), CASES, judge_model)
    assert [r.retrieved_gold for r in report.rows] == [True, True, False, None, True]
    assert [r.hit_rank for r in report.rows] == [1, 2, None, None, 1]
    assert [r.gold_rank for r in report.rows] == [1, 2, None, None, 1]   # no also-correct ids
    assert [r.groundedness for r in report.rows] == [1.0, 0.0, 1.0, None, None]
    assert [r.refused for r in report.rows] == [False, False, False, True, True]
    assert [r.cited_gold for r in report.rows] == [True, True, False, None, False]
    assert (report.n, report.recall, report.groundedness) == (5, 0.75, 2 / 3)
    assert (report.judged, report.unjudged, report.refusals) == (3, 0, 2)
    assert judge_model.calls == 3                           # refusals are not judged
    assert [diagnose(r) for r in report.rows] == [
        "ok", "generation failure", "retrieval failure", "ok", "generation failure"]


def test_recall_at_k_counts_only_the_first_k_ids():
    report = evaluate(FakeBot(ANSWERS), CASES[:2], overlap_judge, k=1)
    assert [r.retrieved_gold for r in report.rows] == [True, False]
    assert report.recall == 0.5
    assert diagnose(report.rows[1]) == "retrieval failure"
    assert report.summary().rows[1] == ["recall@1", "0.500 (1 of 2)"]


def test_unjudged_cases_leave_the_mean_and_are_counted():
    flaky = FlakyJudge(overlap_judge, unparseable_on={1}, raise_on={3})
    report = evaluate(FakeBot(ANSWERS), CASES, flaky)
    assert [r.groundedness for r in report.rows] == [None, 0.0, None, None, None]
    assert (report.groundedness, report.judged, report.unjudged, report.refusals) == (0.0, 1, 2, 2)
    assert report.recall == 0.75                             # retrieval is measured anyway
    assert [diagnose(r) for r in report.rows][:3] == ["unjudged", "generation failure", "retrieval failure"]


def test_no_judge_means_every_answer_unjudged():
    report = evaluate(FakeBot(ANSWERS), CASES, None)
    assert (report.groundedness, report.judged, report.unjudged, report.recall) == (None, 0, 3, 0.75)
    assert report.summary().rows[2] == ["groundedness (judged only)", "n/a"]


def test_fresh_session_per_case():
    bot = FakeBot(ANSWERS, rewrites={q: "LEAKED" for q in ANSWERS})
    report = evaluate(bot, CASES, overlap_judge)
    assert [r.session for r in report.rows] == [f"eval-{i}" for i in range(5)]
    assert [r.query for r in report.rows] == [c["question"] for c in CASES]   # never a follow-up
    assert all(len(turns) == 1 for turns in bot.sessions.values())


def test_a_session_the_bot_already_holds_is_refused_before_asking():
    bot = FakeBot(ANSWERS)
    bot.ask("eval-3", "hello")
    with pytest.raises(ValueError, match="session 'eval-3' already exists"):
        evaluate(bot, CASES, overlap_judge)
    assert bot.asked == [("eval-3", "hello")]
    report = evaluate(bot, CASES, overlap_judge, session_prefix="run2")
    assert report.rows[3].session == "run2-3"


def test_a_factory_gives_a_new_bot_per_case():
    bots = []

    def factory():
        bots.append(FakeBot(ANSWERS))
        return bots[-1]
    report = evaluate(factory, CASES[:3], overlap_judge)
    assert len(bots) == 3 and [b.asked for b in bots] == [
        [("eval-0", CASES[0]["question"])], [("eval-1", CASES[1]["question"])],
        [("eval-2", CASES[2]["question"])]]
    assert report.groundedness == 2 / 3


def test_the_judge_is_shown_the_retrieved_chunks_from_the_corpus():
    judge_model = ScriptedLLM(['{"grounded": true}'])
    with pytest.raises(ValueError, match="case 0: the answer has no .chunks, so pass corpus="):
        evaluate(FakeBot(ANSWERS, with_chunks=False), CASES[:1], judge_model)
    report = evaluate(FakeBot(ANSWERS, with_chunks=False), CASES[:1], judge_model, corpus=DOCS)
    assert report.groundedness == 1.0
    assert "[1] Refunds for prepaid" in judge_model.prompts[0]
    assert "[2] Cash-on-delivery" in judge_model.prompts[0]


def test_objects_with_fields_are_cases_too():
    cases = [SimpleNamespace(question=c["question"], gold_chunk_id=c["gold_chunk_id"]) for c in CASES]
    assert evaluate(FakeBot(ANSWERS), cases, overlap_judge).recall == 0.75


@pytest.mark.parametrize("kwargs, cases, message", [
    ({"k": 0}, CASES, "k must be an int >= 1 or None, got 0"),
    ({"progress": "yes"}, CASES, "progress must be True, False or None, got 'yes'"),
    ({"progress": 1}, CASES, "progress must be True, False or None, got 1"),
    ({}, [{"gold_chunk_id": "c1"}], "case 0 has no 'question'"),
    ({}, [{"question": "q"}], "case 0 has no 'gold_chunk_id'"),
    ({}, [CASES[0], {"question": " ", "gold_chunk_id": None}], "case 1: question must be a non-empty str"),
    ({}, [{"question": "q", "gold_chunk_id": 3}], "case 0: gold_chunk_id must be a str or None, got 3"),
])
def test_bad_arguments_are_refused_before_asking(kwargs, cases, message):
    bot = FakeBot(ANSWERS)
    with pytest.raises(ValueError, match=re.escape(message)):
        evaluate(bot, cases, overlap_judge, **kwargs)
    assert bot.asked == []


def test_no_cases():
    report = evaluate(FakeBot(ANSWERS), [], overlap_judge)
    assert (report.n, report.recall, report.groundedness, report.unjudged) == (0, None, None, 0)
    assert report.summary().rows[1] == ["recall (all retrieved)", "n/a"]


def test_not_a_bot():
    with pytest.raises(TypeError, match="bot must have .ask"):
        evaluate("bot", CASES, overlap_judge)


def test_tables():
    report = evaluate(FakeBot(ANSWERS), CASES, overlap_judge, k=3)
    assert report.summary().rows == [
        ["cases", 5], ["recall@3", "0.750 (3 of 4)"], ["groundedness (judged only)", "0.667"],
        ["judged", 3], ["unjudged", 0], ["refusals", 2]]
    table = report.table()
    assert table.column("grounded") == ["yes", "no", "yes", "refused", "refused"]
    assert table.columns == ["case", "question", "gold", "hit rank", "gold rank", "cited gold",
                             "grounded", "diagnosis"]
    assert table.column("hit rank") == [1, 2, "-", "-", 1]
    assert table.column("gold rank") == [1, 2, "-", "-", 1]
    assert table.column("diagnosis") == [diagnose(r) for r in report.rows]
    assert str(report) == str(report.summary())


def test_progress_bar_only_when_asked(capsys):
    evaluate(FakeBot(ANSWERS), CASES, overlap_judge)
    assert capsys.readouterr().err == ""
    evaluate(FakeBot(ANSWERS), CASES, overlap_judge, progress=True)
    assert "cases: 100%" in capsys.readouterr().err


def test_diagnose_labels_all_have_advice():
    row = EvalRow(case=0, session="eval-0", question="q", answer="a [1].", query="q",
                  chunk_ids=("c1",), gold_chunk_id="c1", retrieved_gold=True,
                  cited_gold=True, refused=False, groundedness=None)
    assert diagnose(row) == "unjudged"
    assert {"ok", "retrieval failure", "generation failure", "unjudged", "rewrite failure"} == set(ADVICE)
    assert "fix chunking" in ADVICE["retrieval failure"] and "prompt or the model" in ADVICE["generation failure"]


# --- also-correct chunks ---------------------------------------------------------------

def test_an_also_correct_chunk_counts_as_the_gold():
    case = {"question": "How fast is delivery?", "gold_chunk_id": "c3", "also_correct": ["c2"]}
    row = evaluate(FakeBot(ANSWERS), [case], overlap_judge).rows[0]
    assert row.chunk_ids == ("c2",)                          # c3 itself was not retrieved
    assert (row.retrieved_gold, row.hit_rank, row.gold_rank, row.cited_gold) == (True, 1, None, True)
    assert diagnose(row) == "ok"
    with pytest.raises(ValueError, match="also_correct must be a list of chunk ids, got 'c2'"):
        evaluate(FakeBot(ANSWERS), [{**case, "also_correct": "c2"}], overlap_judge)
    with pytest.raises(ValueError, match=r"also_correct \['c2'\] given without a gold_chunk_id"):
        evaluate(FakeBot(ANSWERS), [{**case, "gold_chunk_id": None}], overlap_judge)


def test_hit_rank_is_the_first_accepted_id_and_gold_rank_the_gold_itself():
    case = {"question": "How are cash-on-delivery refunds paid?", "gold_chunk_id": "c2",
            "also_correct": ["c1"]}
    report = evaluate(FakeBot(ANSWERS), [case], overlap_judge, k=1)
    row = report.rows[0]
    assert row.chunk_ids == ("c1", "c2")
    assert (row.hit_rank, row.gold_rank, row.rank("c1"), row.rank("c3")) == (1, 2, 1, None)
    assert row.retrieved_gold is True                        # c1 is a hit within k=1
    assert report.table().rows[0][3:5] == [1, 2]             # hit rank, gold rank
    no_gold = evaluate(FakeBot(ANSWERS), [CASES[3]], overlap_judge).rows[0]
    assert (no_gold.hit_rank, no_gold.gold_rank) == (None, None)


# --- integration: the real Chatbot on the shipped help centre and gold set -------------

CORPUS = load_corpus()
GOLD = load_eval_set()


BY_ID = {c.id: c for c in CORPUS}


def quote(row, cite=1):
    """What QuotingModel answers for a row: the first sentence of its top chunk, cited."""
    return f"{first_sentence(BY_ID[row.chunk_ids[0]].text)} [{cite}]"


def expected_hit(query, accepted, k=5):
    """Recomputed independently of the harness: an accepted id in the top k for query."""
    return any(c.id in accepted for c in BM25Retriever(CORPUS).search(query, k))


def test_real_chatbot_on_the_gold_questions():
    model = QuotingModel()
    bot = Chatbot(BM25Retriever(CORPUS), model, top_k=5)
    report = evaluate(bot, GOLD.questions, overlap_judge, k=5)
    hits = [expected_hit(q.question, {q.gold_chunk_id, *q.also_correct}) for q in GOLD.questions]
    assert report.n == len(GOLD.questions) and report.n > 0
    assert [r.retrieved_gold for r in report.rows] == hits
    assert report.recall == sum(hits) / len(hits)
    assert [r.query for r in report.rows] == [q.question for q in GOLD.questions]   # fresh sessions
    assert set(bot.sessions) == {f"eval-{i}" for i in range(report.n)}
    assert model.calls == {"rewrite": 0, "answer": report.n}       # first turns: no rewrite
    # Every answer quotes chunk [1] and cites it: all grounded, none refused.
    assert [r.answer for r in report.rows] == [quote(r) for r in report.rows]
    assert (report.groundedness, report.judged, report.unjudged, report.refusals) == (1.0, report.n, 0, 0)
    assert [diagnose(r) for r in report.rows] == ["ok" if h else "retrieval failure" for h in hits]


def test_real_chatbot_with_a_miscited_answer_is_a_generation_failure():
    cases = GOLD.questions[:6]
    good = evaluate(Chatbot(BM25Retriever(CORPUS), QuotingModel(), top_k=5), cases, overlap_judge, k=5)
    bad = evaluate(Chatbot(BM25Retriever(CORPUS), QuotingModel(cite=2), top_k=5), cases,
                   overlap_judge, k=5)
    # Same retrieval, so the same recall; the same quote, now citing chunk [2].
    assert [r.chunk_ids for r in bad.rows] == [r.chunk_ids for r in good.rows]
    assert bad.recall == good.recall
    assert [r.answer for r in bad.rows] == [quote(r, cite=2) for r in bad.rows]
    assert bad.refusals == 0 and bad.groundedness < good.groundedness == 1.0
    for row in bad.rows:
        expected = ("retrieval failure" if not row.retrieved_gold else
                    "ok" if row.groundedness == 1.0 else "generation failure")
        assert diagnose(row) == expected
    assert "generation failure" in [diagnose(r) for r in bad.rows]
