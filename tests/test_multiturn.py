"""Multi-turn evaluation (kit/rag/multiturn.py): scripted conversations replayed in fresh
sessions, the standalone query and the gold chunk checked at every step. Unit tests on a
tiny fake bot, then the real Chatbot on the shipped gold conversations."""
import re

import pytest

from kit.rag.chatbot import Chatbot
from kit.rag.documents import Chunk, load_corpus
from kit.rag.goldset import load_eval_set
from kit.rag.multiturn import diagnose_step, evaluate_conversations, normalise_query
from kit.rag.retrieval import BM25Retriever
from kit.rag.stub_models import QuotingModel, standalone_table

DOCS = [Chunk("c1", "Refunds for prepaid orders take 5 working days.", "refunds.md"),
        Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md"),
        Chunk("c3", "Orders ship within 2 days from our warehouse.", "shipping.md")]


def words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 4}


class FakeBot:
    """Keyword search over DOCS; a follow-up (any turn after the first in a session) is
    searched with ``rewrites[question]`` when given, else with the raw question."""

    def __init__(self, rewrites=None):
        self.rewrites, self.sessions, self.asked = rewrites or {}, {}, []

    def ask(self, session_id, question):
        history = self.sessions.setdefault(session_id, [])
        query = self.rewrites.get(question, question) if history else question
        history.append(question)
        self.asked.append((session_id, question))
        ids = [c.id for c in DOCS if words(query) & words(c.text)]
        return type("Out", (), {"answer": "", "query": query, "chunk_ids": ids})()


def step(question, standalone_query, gold):
    return {"question": question, "standalone_query": standalone_query, "gold_chunk_id": gold}


CONVERSATION = [step("How long do prepaid refunds take?", "How long do prepaid refunds take?", "c1"),
                step("and for COD?", "cash-on-delivery refund", "c2")]


def test_normalise_query():
    assert normalise_query("  Refund time for Cash-on-Delivery?? ") == "refund time for cash on delivery"
    assert normalise_query("cash_on delivery") == normalise_query("Cash-On-Delivery")
    assert normalise_query("delivery cash") != normalise_query("cash delivery")


def test_conversation_steps_check_the_standalone_query_and_gold():
    good = FakeBot(rewrites={"and for COD?": "Cash-on-delivery refund."})
    report = evaluate_conversations(good, [CONVERSATION, {"steps": CONVERSATION}])
    assert [(r.session, r.step) for r in report.rows] == [("conv-0", 1), ("conv-0", 2), ("conv-1", 1), ("conv-1", 2)]
    assert [r.query_match for r in report.rows] == [True] * 4
    assert [r.retrieved_gold for r in report.rows] == [True] * 4
    assert (report.steps, report.query_match, report.recall) == (4, 1.0, 1.0)


def test_a_missing_rewrite_is_a_rewrite_failure():
    report = evaluate_conversations(FakeBot(), [CONVERSATION])       # searches "and for COD?"
    second = report.rows[1]
    assert (second.query, second.query_match, second.retrieved_gold) == ("and for COD?", False, False)
    assert [diagnose_step(r) for r in report.rows] == ["ok", "rewrite failure"]
    assert (report.query_match, report.recall) == (0.5, 0.5)
    assert report.summary().rows == [["conversations", 1], ["steps", 2],
                                     ["standalone query match", "0.500 (1 of 2)"],
                                     ["recall (all retrieved)", "0.500 (1 of 2)"]]
    assert report.table().column("diagnosis") == ["ok", "rewrite failure"]


def test_step_diagnosis_when_the_query_differs_or_matches():
    other_words = FakeBot(rewrites={"and for COD?": "store credit for delivery refunds"})
    report = evaluate_conversations(other_words, [CONVERSATION])
    assert (report.rows[1].query_match, diagnose_step(report.rows[1])) == (False, "ok")
    missing = [step("hello", "hello", "c1")]                 # right query, nothing found
    assert diagnose_step(evaluate_conversations(FakeBot(), [missing]).rows[0]) == "retrieval failure"


def test_conversation_bad_input():
    with pytest.raises(ValueError, match="conversation 1 has no steps"):
        evaluate_conversations(FakeBot(), [CONVERSATION, []])
    with pytest.raises(ValueError, match="conversation 0 step 2 has no 'standalone_query'"):
        evaluate_conversations(FakeBot(), [[CONVERSATION[0], {"question": "q", "gold_chunk_id": None}]])


def test_a_hit_within_k_counts_and_an_also_correct_id_is_a_hit():
    follow_up = step("and for COD?", "cash-on-delivery refund", "c2")
    bot = FakeBot(rewrites={"and for COD?": "prepaid or cash-on-delivery refunds"})   # c1, c2
    at_1 = evaluate_conversations(bot, [[CONVERSATION[0], follow_up]], k=1)
    assert [r.retrieved_gold for r in at_1.rows] == [True, False]   # c2 is at rank 2
    assert at_1.summary().rows[-1] == ["recall@1", "0.500 (1 of 2)"]
    also = {**follow_up, "also_correct": ["c1"]}
    report = evaluate_conversations(FakeBot(rewrites=bot.rewrites), [[CONVERSATION[0], also]], k=1)
    assert [r.retrieved_gold for r in report.rows] == [True, True]
    assert report.rows[1].gold_chunk_id == "c2"


def test_each_conversation_gets_a_fresh_session_and_a_held_one_is_refused():
    bot = FakeBot()
    bot.ask("conv-1", "hello")
    with pytest.raises(ValueError, match="session 'conv-1' already exists"):
        evaluate_conversations(bot, [CONVERSATION, CONVERSATION])
    assert bot.asked == [("conv-1", "hello")]                      # nothing was asked
    report = evaluate_conversations(bot, [CONVERSATION, CONVERSATION], session_prefix="run2")
    assert [r.session for r in report.rows] == ["run2-0", "run2-0", "run2-1", "run2-1"]


def test_progress_bar_only_when_asked(capsys):
    evaluate_conversations(FakeBot(), [CONVERSATION])
    assert capsys.readouterr().err == ""
    evaluate_conversations(FakeBot(), [CONVERSATION], progress=True)
    assert "conversations: 100%" in capsys.readouterr().err


# --- integration: the real Chatbot on the shipped gold conversations ---------------------

CORPUS = load_corpus()
GOLD = load_eval_set()


def expected_hit(query, accepted, k=5):
    """Recomputed independently of the harness: an accepted id in the top k for query."""
    return any(c.id in accepted for c in BM25Retriever(CORPUS).search(query, k))


def test_real_chatbot_on_the_gold_conversations():
    model = QuotingModel(standalone=standalone_table(GOLD.conversations))   # perfect rewriter
    rewriting = Chatbot(BM25Retriever(CORPUS), model, top_k=5)
    report = evaluate_conversations(rewriting, GOLD.conversations, k=5)
    steps = [s for c in GOLD.conversations for s in c.steps]
    assert report.steps == len(steps) and report.query_match == 1.0
    assert [r.query for r in report.rows] == [s.standalone_query for s in steps]
    assert model.calls == {"rewrite": len(steps) - len(GOLD.conversations), "answer": len(steps)}
    assert [r.retrieved_gold for r in report.rows] == [
        expected_hit(s.standalone_query, {s.gold_chunk_id}) for s in steps]
    assert len({r.session for r in report.rows}) == len(GOLD.conversations)

    raw = Chatbot(BM25Retriever(CORPUS), QuotingModel(), top_k=5, rewrite=False)
    without = evaluate_conversations(raw, GOLD.conversations, k=5)
    assert [r.query for r in without.rows] == [s.question for s in steps]
    assert [r.query_match for r in without.rows] == [
        normalise_query(s.question) == normalise_query(s.standalone_query) for s in steps]
    assert without.query_match < 1.0
    assert [r.retrieved_gold for r in without.rows] == [
        expected_hit(s.question, {s.gold_chunk_id}) for s in steps]
