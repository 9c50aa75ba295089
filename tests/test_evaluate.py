"""Unit tests of kit/rag/evaluate.py on a tiny fake bot (keyword retrieval, scripted
answers, a rewrite table for follow-ups), judged by the deterministic overlap judge;
then integration tests on the real Chatbot with the shipped help centre and gold set."""
import re
from types import SimpleNamespace

import pytest

from kit.llm import CountingLLM, ScriptedLLM
from kit.rag.chatbot import SYSTEM_PROMPT, Chatbot
from kit.rag.documents import Chunk, load_corpus, load_eval_set
from kit.rag.evaluate import (ADVICE, EvalRow, diagnose, diagnose_step, evaluate,
                              evaluate_conversations, normalise_query)
from kit.rag.judge import FlakyJudge, overlap_judge, split_sentences
from kit.rag.retrieval import BM25Retriever
from kit.rag.rewrite import REWRITE_SYSTEM

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
    assert [r.gold_rank for r in report.rows] == [1, 2, None, None, 1]
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
                  chunk_ids=("c1",), gold_chunk_id="c1", retrieved_gold=True, gold_rank=1,
                  cited_gold=True, refused=False, groundedness=None)
    assert diagnose(row) == "unjudged"
    assert {"ok", "retrieval failure", "generation failure", "unjudged", "rewrite failure"} == set(ADVICE)
    assert "fix chunking" in ADVICE["retrieval failure"] and "prompt or the model" in ADVICE["generation failure"]


# --- multi-turn scripted conversations -------------------------------------------------

def step(question, standalone_query, gold):
    return {"question": question, "standalone_query": standalone_query, "gold_chunk_id": gold}


CONVERSATION = [step("How long do prepaid refunds take?", "How long do prepaid refunds take?", "c1"),
                step("and for COD?", "cash-on-delivery refund", "c2")]


def test_normalise_query():
    assert normalise_query("  Refund time for Cash-on-Delivery?? ") == "refund time for cash on delivery"
    assert normalise_query("cash_on delivery") == normalise_query("Cash-On-Delivery")
    assert normalise_query("delivery cash") != normalise_query("cash delivery")


def test_conversation_steps_check_the_standalone_query_and_gold():
    good = FakeBot({}, rewrites={"and for COD?": "Cash-on-delivery refund."})
    report = evaluate_conversations(good, [CONVERSATION, {"steps": CONVERSATION}])
    assert [(r.session, r.step) for r in report.rows] == [("conv-0", 1), ("conv-0", 2), ("conv-1", 1), ("conv-1", 2)]
    assert [r.query_match for r in report.rows] == [True] * 4
    assert [r.retrieved_gold for r in report.rows] == [True] * 4
    assert (report.steps, report.query_match, report.recall) == (4, 1.0, 1.0)


def test_a_missing_rewrite_is_a_rewrite_failure():
    report = evaluate_conversations(FakeBot({}), [CONVERSATION])       # searches "and for COD?"
    second = report.rows[1]
    assert (second.query, second.query_match, second.retrieved_gold) == ("and for COD?", False, False)
    assert [diagnose_step(r) for r in report.rows] == ["ok", "rewrite failure"]
    assert (report.query_match, report.recall) == (0.5, 0.5)
    assert report.summary().rows == [["conversations", 1], ["steps", 2],
                                     ["standalone query match", "0.500 (1 of 2)"],
                                     ["recall (all retrieved)", "0.500 (1 of 2)"]]
    assert report.table().column("diagnosis") == ["ok", "rewrite failure"]


def test_step_diagnosis_when_the_query_differs_or_matches():
    other_words = FakeBot({}, rewrites={"and for COD?": "store credit for delivery refunds"})
    report = evaluate_conversations(other_words, [CONVERSATION])
    assert (report.rows[1].query_match, diagnose_step(report.rows[1])) == (False, "ok")
    missing = [step("hello", "hello", "c1")]                 # right query, nothing found
    assert diagnose_step(evaluate_conversations(FakeBot({}), [missing]).rows[0]) == "retrieval failure"


def test_conversation_bad_input():
    with pytest.raises(ValueError, match="conversation 1 has no steps"):
        evaluate_conversations(FakeBot({}), [CONVERSATION, []])
    with pytest.raises(ValueError, match="conversation 0 step 2 has no 'standalone_query'"):
        evaluate_conversations(FakeBot({}), [[CONVERSATION[0], {"question": "q", "gold_chunk_id": None}]])


# --- also-correct chunks ---------------------------------------------------------------

def test_an_also_correct_chunk_counts_as_the_gold():
    case = {"question": "How fast is delivery?", "gold_chunk_id": "c3", "also_correct": ["c2"]}
    row = evaluate(FakeBot(ANSWERS), [case], overlap_judge).rows[0]
    assert (row.retrieved_gold, row.gold_rank, row.cited_gold) == (True, 1, True)
    assert diagnose(row) == "ok"
    with pytest.raises(ValueError, match="also_correct must be a list of chunk ids, got 'c2'"):
        evaluate(FakeBot(ANSWERS), [{**case, "also_correct": "c2"}], overlap_judge)
    with pytest.raises(ValueError, match=r"also_correct \['c2'\] given without a gold_chunk_id"):
        evaluate(FakeBot(ANSWERS), [{**case, "gold_chunk_id": None}], overlap_judge)


# --- integration: the real Chatbot on the shipped help centre and gold set -------------

CORPUS = load_corpus()
GOLD = load_eval_set()


def quoting_llm(standalone=None, cite=1):
    """A stub chat model. Rewrite calls: the gold standalone query of the question
    (``standalone``: question -> query). Answer calls: the first sentence of chunk [1],
    cited as ``[cite]``."""
    def llm(system, user):
        if system == REWRITE_SYSTEM:
            return standalone[user.rpartition("Final user question:\n")[2]]
        assert system == SYSTEM_PROMPT
        context = user.rpartition("\n\nQuestion: ")[0].rpartition("Context:\n")[2]
        first = context.split("\n")[0].removeprefix("[1] ")
        return f"{split_sentences(first)[0]} [{cite}]"
    return llm


def expected_hit(query, accepted, k=5):
    """Recomputed independently of the harness: an accepted id in the top k for query."""
    return any(c.id in accepted for c in BM25Retriever(CORPUS).search(query, k))


def test_real_chatbot_on_the_gold_questions():
    bot = Chatbot(BM25Retriever(CORPUS), quoting_llm(), top_k=5)
    report = evaluate(bot, GOLD.questions, overlap_judge, k=5)
    hits = [expected_hit(q.question, {q.gold_chunk_id, *q.also_correct}) for q in GOLD.questions]
    assert report.n == len(GOLD.questions) and report.n > 0
    assert [r.retrieved_gold for r in report.rows] == hits
    assert report.recall == sum(hits) / len(hits)
    assert [r.query for r in report.rows] == [q.question for q in GOLD.questions]   # fresh sessions
    assert set(bot.sessions) == {f"eval-{i}" for i in range(report.n)}
    # Every answer quotes chunk [1] and cites it: all grounded, none refused.
    assert (report.groundedness, report.judged, report.unjudged, report.refusals) == (1.0, report.n, 0, 0)
    assert [diagnose(r) for r in report.rows] == ["ok" if h else "retrieval failure" for h in hits]


def test_real_chatbot_with_a_miscited_answer_is_a_generation_failure():
    bot = Chatbot(BM25Retriever(CORPUS), quoting_llm(cite=2), top_k=5)
    report = evaluate(bot, GOLD.questions[:6], overlap_judge, k=5)
    assert report.refusals == 0 and report.groundedness < 1.0
    for row in report.rows:
        expected = ("retrieval failure" if not row.retrieved_gold else
                    "ok" if row.groundedness == 1.0 else "generation failure")
        assert diagnose(row) == expected


def test_real_chatbot_on_the_gold_conversations():
    standalone = {s.question: s.standalone_query for c in GOLD.conversations for s in c.steps}
    rewriting = Chatbot(BM25Retriever(CORPUS), quoting_llm(standalone), top_k=5)
    report = evaluate_conversations(rewriting, GOLD.conversations, k=5)
    steps = [s for c in GOLD.conversations for s in c.steps]
    assert report.steps == len(steps) and report.query_match == 1.0
    assert [r.retrieved_gold for r in report.rows] == [
        expected_hit(s.standalone_query, {s.gold_chunk_id}) for s in steps]
    assert len({r.session for r in report.rows}) == len(GOLD.conversations)

    raw = Chatbot(BM25Retriever(CORPUS), quoting_llm(), top_k=5, rewrite=False)
    without = evaluate_conversations(raw, GOLD.conversations, k=5)
    assert [r.query for r in without.rows] == [s.question for s in steps]
    assert [r.query_match for r in without.rows] == [
        normalise_query(s.question) == normalise_query(s.standalone_query) for s in steps]
    assert without.query_match < 1.0
    assert [r.retrieved_gold for r in without.rows] == [
        expected_hit(s.question, {s.gold_chunk_id}) for s in steps]
