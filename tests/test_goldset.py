"""The gold set over the help centre (kit.rag.goldset): its ids exist, its references
agree with their chunks, its conversations start standalone, bad files are named."""
import json
import re

import pytest

from kit.rag.documents import load_corpus, seed_chunks
from kit.rag.goldset import ConversationStep, EvalSet, load_eval_set


def test_gold_set_refers_only_to_existing_chunks():
    corpus = {c.id: c.text for c in load_corpus()}
    gold = load_eval_set()
    assert len(gold.questions) >= 30 and len(gold.conversations) >= 3
    assert gold.gold_ids() <= set(corpus)
    assert not any(i.startswith("refund-policy-2022") for q in gold.questions
                   for i in q.also_correct)  # the archived policy is never a right answer
    ids = [q.id for q in gold.questions] + [c.id for c in gold.conversations]
    assert len(set(ids)) == len(ids)


def test_gold_references_agree_with_their_gold_chunk():
    """Every number in a reference answer is in its gold chunk: catches a renumbered corpus."""
    corpus = {c.id: c.text for c in load_corpus()}
    for q in load_eval_set().questions:
        for number in re.findall(r"\d+(?:\.\d+)?", q.reference):
            assert number in corpus[q.gold_chunk_id], (q.id, number)


def test_conversations_start_standalone_and_contain_the_seed_follow_up():
    gold = load_eval_set()
    for conversation in gold.conversations:
        assert len(conversation.steps) >= 2
        assert conversation.steps[0].standalone_query == conversation.steps[0].question
    cod = next(c for c in gold.conversations if c.id == "cod-refund")
    assert cod.steps[1] == ConversationStep("and for COD?", "refund time for cash-on-delivery "
                                            "orders", "refunds-04")


def write(tmp_path, data):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_eval_set_errors_name_the_entry(tmp_path):
    q = {"id": "q1", "question": "Q?", "gold_chunk_id": "c1", "reference": "R"}
    assert load_eval_set(write(tmp_path, {"questions": [q]}), corpus=seed_chunks()).questions[0] \
        .gold_chunk_id == "c1"
    with pytest.raises(ValueError, match=r"not in the corpus: \['zz-01'\]"):
        load_eval_set(write(tmp_path, {"questions": [{**q, "gold_chunk_id": "zz-01"}]}),
                      corpus=seed_chunks())
    with pytest.raises(ValueError, match=r"question 0 \('q1'\) needs a non-empty str 'reference'"):
        load_eval_set(write(tmp_path, {"questions": [{**q, "reference": ""}]}))
    with pytest.raises(ValueError, match=r"conversation 0 \('c'\) needs a non-empty list 'steps'"):
        load_eval_set(write(tmp_path, {"conversations": [{"id": "c", "steps": []}]}))
    with pytest.raises(ValueError, match=r"conversation 0 \('c'\) step 0 needs .*'standalone_query'"):
        load_eval_set(write(tmp_path, {"conversations": [
            {"id": "c", "steps": [{"question": "Q", "gold_chunk_id": "c1"}]}]}))
    with pytest.raises(ValueError, match="duplicate eval id 'q1'"):
        load_eval_set(write(tmp_path, {"questions": [q, q]}))
    with pytest.raises(ValueError, match="a JSON object"):
        load_eval_set(write(tmp_path, [q]))
    with pytest.raises(FileNotFoundError, match="no eval set at"):
        load_eval_set(tmp_path / "missing.json")
