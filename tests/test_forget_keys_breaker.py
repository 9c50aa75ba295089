"""Forgetting and the idempotency keys, tried against what could break them: a retry
with a key before and after a forget, a forget that takes nothing (nothing written,
the digests kept), a forget by the word "forgotten" (the placeholder is no text), a key
whose turn still holds the session; both stores (SQLite and a real Redis)."""
import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")

from kit.longterm.forget import FORGOTTEN
from kit.serve import ChatService, service_memory
from kit.serve.service import KeyConflict, SessionBusy

@pytest.fixture(params=["sqlite", "redis"])
def service(request, make_store):
    store = make_store(request.param, "forgetkeys")
    return ChatService(store, memory_factory=service_memory(budget=60, keep_recent=4), wait=0.2)


def send(service, text, key):
    turn = service.begin("alice", text, key=key)
    service.finish(turn)
    return turn


def test_a_retry_before_and_after_a_forget(service):
    first = send(service, "I take metformin.", "k-1")
    assert not first.replayed
    again = send(service, "I take metformin.", "k-1")             # before: replayed
    assert again.replayed and again.outcome == first.outcome
    with pytest.raises(KeyConflict):                                # another text: refused
        send(service, "I take insulin.", "k-1")
    assert service.forget("alice", ["zeppelin"])["forgotten"] == []   # takes nothing:
    with pytest.raises(KeyConflict):                                # the digest is kept
        send(service, "I take insulin.", "k-1")
    assert service.store.key_record("alice", "k-1").outcome == first.outcome
    assert service.forget("alice", ["metformin"])["forgotten"] == [1]
    turns = len(service.store.transcript("alice"))
    for text in ("I take metformin.", "I take insulin."):          # after: replayed, redacted
        after = send(service, text, "k-1")
        assert after.replayed and after.outcome["answer"] == FORGOTTEN
    assert len(service.store.transcript("alice")) == turns          # never run again


def test_forgetting_the_word_forgotten_takes_nothing_and_writes_nothing(service):
    send(service, "I take metformin.", "k-1")
    assert service.forget("alice", ["metformin"])["forgotten"] == [1]
    events = service.store.events("alice")
    # the placeholder "[forgotten]" is no text the user said: nothing new to take
    assert service.forget("alice", ["forgotten"])["forgotten"] == []
    assert service.store.events("alice") == events


def test_a_forget_waits_for_a_key_whose_turn_still_runs_then_redacts_it(service):
    turn = service.begin("alice", "I take metformin.", key="k-1")   # holds the session
    with pytest.raises(SessionBusy):                               # until it finishes
        service.forget("alice", ["metformin"])
    assert "metformin" in service.store.transcript("alice")[0].content   # nothing went
    assert service.replay("alice", "k-1", "I take metformin.") == turn.outcome
    with pytest.raises(KeyConflict):                               # its digest is kept
        service.replay("alice", "k-1", "another text")
    service.finish(turn)
    assert service.forget("alice", None)["forgotten"] == [1, 2]
    assert service.replay("alice", "k-1", "any text")["answer"] == FORGOTTEN
    assert service.store.transcript("alice") == []
