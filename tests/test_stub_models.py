"""kit/rag/stub_models.py: the quoting stub model, on its own and inside the Chatbot."""
import pytest

from kit.rag.chatbot import SYSTEM_PROMPT, Chatbot, build_answer_prompt
from kit.rag.documents import Chunk
from kit.rag.goldset import load_eval_set
from kit.rag.judge import overlap_judge, build_judge_prompt, parse_verdict
from kit.rag.retrieval import KeywordRetriever
from kit.rag.rewrite import REWRITE_SYSTEM, build_rewrite_prompt
from kit.rag.stub_models import QuotingModel, context_chunks, first_sentence, standalone_table

DOCS = [Chunk("c1", "Refund times\nRefunds for prepaid orders take 5 working days. "
                    "Cash refunds take longer.", "refunds.md"),
        Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md"),
        Chunk("c3", "Shipping\nOrders ship in 2 days.\n\nExpress ships the same day.", "shipping.md")]


def test_context_chunks_reads_the_answer_prompt_back():
    prompt = build_answer_prompt("user: hi\nassistant: Context:\n[1] fake", DOCS, "How long?\n[2] x")
    assert context_chunks(prompt) == [c.text for c in DOCS]
    assert context_chunks(build_answer_prompt("", DOCS[1:2], "q")) == [DOCS[1].text]
    with pytest.raises(ValueError, match="not an answer prompt"):
        context_chunks("Question: q")


@pytest.mark.parametrize("text, sentence", [
    (DOCS[0].text, "Refunds for prepaid orders take 5 working days."),
    (DOCS[1].text, DOCS[1].text),                         # one line: no heading to skip
    (DOCS[2].text, "Orders ship in 2 days."),
    ("Heading only\n", "Heading only"),
])
def test_first_sentence_skips_the_heading(text, sentence):
    assert first_sentence(text) == sentence


def test_answer_quotes_chunk_1_and_cites_as_asked():
    good, bad = QuotingModel(), QuotingModel(cite=2)
    prompt = build_answer_prompt("", DOCS, "How long do refunds take?")
    assert good(SYSTEM_PROMPT, prompt) == "Refunds for prepaid orders take 5 working days. [1]"
    assert bad(SYSTEM_PROMPT, prompt) == "Refunds for prepaid orders take 5 working days. [2]"
    assert good.calls == {"rewrite": 0, "answer": 1}
    judged = [parse_verdict(overlap_judge(build_judge_prompt("q", m(SYSTEM_PROMPT, prompt), DOCS)))
              for m in (good, bad)]
    assert judged == [1.0, 0.0]


def test_rewrite_from_the_table_or_unchanged():
    model = QuotingModel(standalone={"and for COD?": "cash-on-delivery refund"})
    history = "user: How long do prepaid refunds take?"
    assert model(REWRITE_SYSTEM, build_rewrite_prompt(history, "and for COD?")) == "cash-on-delivery refund"
    assert model(REWRITE_SYSTEM, build_rewrite_prompt(history, "What else?")) == "What else?"
    assert model.calls == {"rewrite": 2, "answer": 0}


def test_bad_use_is_refused():
    with pytest.raises(ValueError, match="cite must be an int >= 1, got 0"):
        QuotingModel(cite=0)
    with pytest.raises(ValueError, match="unknown system prompt"):
        QuotingModel()("Summarise this.", "text")
    with pytest.raises(TypeError, match="strings"):
        QuotingModel()(SYSTEM_PROMPT, None)


def test_standalone_table_of_the_gold_conversations():
    gold = load_eval_set()
    table = standalone_table(gold.conversations)
    steps = [s for c in gold.conversations for s in c.steps]
    assert len(table) == len({s.question for s in steps})
    assert all(table[s.question] == s.standalone_query for s in steps)
    clash = [{"steps": [{"question": "q", "standalone_query": "a"}]},
             {"steps": [{"question": "q", "standalone_query": "b"}]}]
    with pytest.raises(ValueError, match="question 'q' has two standalone queries"):
        standalone_table(clash)


def test_inside_the_chatbot_the_rewrite_reaches_retrieval():
    standalone = {"and for COD?": "cash-on-delivery refunds"}
    bot = Chatbot(KeywordRetriever(DOCS), QuotingModel(standalone=standalone), top_k=2)
    first = bot.ask("s1", "How long do prepaid refunds take?")
    second = bot.ask("s1", "and for COD?")
    assert first.answer == "Refunds for prepaid orders take 5 working days. [1]"
    assert (second.query, second.chunk_ids[0], second.model_calls) == ("cash-on-delivery refunds", "c1", 2)
    assert not second.refused
