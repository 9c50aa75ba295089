"""The lesson-10 checkers accept right answers of different shapes and reject the
registered wrong ones, each with its own hint: the fencing rule (``may_commit``) and the
whole lease store (``cls(data, clock)``)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest

from kit.checks import CheckFailed
from kit.checks.lease import (KitLeaseStore, RULE, SCENARIOS, STORE, check_lease_store,
                              check_may_commit, may_commit)
from kit.mistakes import mistakes
from kit.mistakes.lease import _Leases


# -- the fencing rule ------------------------------------------------------------------
def rule_spelled_out(token, current_token, expires_at, now):
    """Right: the two conditions one after the other."""
    if token != current_token:
        return False
    return expires_at > now


def rule_by_time_left(token, current_token, expires_at, now):
    """Right, another shape: the time left must be positive."""
    time_left = expires_at - now
    return bool(token == current_token and time_left > 0)


@pytest.mark.parametrize("answer", [may_commit, rule_spelled_out, rule_by_time_left],
                         ids=["kit", "spelled-out", "time-left"])
def test_right_rules_pass(answer, passes):
    passes(check_may_commit, answer, "may_commit")


@pytest.mark.parametrize("wrong", mistakes(RULE), ids=lambda m: m.name)
def test_each_wrong_rule_is_rejected_with_its_hint(wrong, rejects):
    rejects(check_may_commit, wrong.answer, wrong.hint)


@pytest.mark.parametrize("wrong", mistakes(RULE), ids=lambda m: m.name)
def test_no_other_rule_mistakes_hint_shows_up(wrong):
    with pytest.raises(CheckFailed) as failure:
        check_may_commit(wrong.answer)
    others = [m.name for m in mistakes(RULE) if m is not wrong and m.hint in str(failure.value)]
    assert not others, (wrong.name, others)


def test_a_rule_that_answers_with_a_truthy_value_or_raises_is_rejected(rejects):
    rejects(check_may_commit, lambda t, c, e, n: int(t == c and n < e), "return True or False")
    rejects(check_may_commit, lambda t, c, e, n: None if t != c else n < e,
            "return True or False")

    def stub(token, current_token, expires_at, now):
        raise NotImplementedError
    rejects(check_may_commit, stub, "is not written yet")


def test_a_rule_that_refuses_the_holder_is_told_so(rejects):
    failure = rejects(check_may_commit, lambda t, c, e, n: t == c and n < e - 1,
                      "should be True, got False")
    assert "may_commit(token=1, current_token=1, expires_at=10.0, now=9.5)" in str(failure)


def test_the_kits_rule():
    assert may_commit(2, 2, 22.0, 14.0) is True
    assert may_commit(1, 2, 22.0, 14.0) is False          # stale holder
    assert may_commit(2, 2, 22.0, 22.0) is False          # expired at the boundary
    assert may_commit(2, 2, 0.0, 1.0) is False            # released


# -- the lease store: right answers ------------------------------------------------------
class SplitDicts:
    """Right, the lesson's layout: three dicts, the token count apart from the expiry."""

    def __init__(self, data, clock):
        self.data, self.clock = data, clock
        self.tokens, self.expires, self.ttls = {}, {}, {}

    def _held(self, key, token):
        return self.tokens.get(key) == token and self.clock() < self.expires.get(key, 0)

    def acquire(self, key, ttl):
        now = self.clock()
        if key in self.expires and now < self.expires[key]:
            return None
        self.tokens[key] = self.tokens.get(key, 0) + 1
        self.expires[key], self.ttls[key] = now + ttl, ttl
        return self.tokens[key]

    def renew(self, key, token):
        if not self._held(key, token):
            return False
        self.expires[key] = self.clock() + self.ttls[key]
        return True

    def release(self, key, token):
        if not self._held(key, token):
            return False
        del self.expires[key]              # the token count stays in self.tokens
        return True

    def commit(self, key, token, value):
        if not self._held(key, token):
            return False
        self.data[key] = value
        return True


@dataclass
class _Record:
    token: int = 0
    expires_at: float = float("-inf")
    ttl: float = 0.0
    holder_history: list = field(default_factory=list)


class WithHistory:
    """Right, another design: a record object per key with extra state (every token it
    handed out and when), the clock read once per call, released leases expire at -inf."""

    def __init__(self, data, clock):
        self.data, self.clock, self.records = data, clock, {}
        self.calls = 0

    def _record(self, key):
        return self.records.setdefault(key, _Record())

    def _current(self, key, token, now):
        record = self.records.get(key)
        return record is not None and record.token == token and now < record.expires_at

    def acquire(self, key, ttl):
        self.calls += 1
        now, record = self.clock(), self._record(key)
        if now < record.expires_at:
            return None
        record.token += 1
        record.expires_at, record.ttl = now + ttl, ttl
        record.holder_history.append((record.token, now))
        return record.token

    def renew(self, key, token):
        now = self.clock()
        if self._current(key, token, now):
            self.records[key].expires_at = now + self.records[key].ttl
            return True
        return False

    def release(self, key, token):
        if self._current(key, token, self.clock()):
            self.records[key].expires_at = float("-inf")
            return True
        return False

    def commit(self, key, token, value):
        if not self._current(key, token, self.clock()):
            return False
        self.data[key] = value
        return True


@pytest.mark.parametrize("answer", [SplitDicts, WithHistory, _Leases, KitLeaseStore],
                         ids=["split-dicts", "with-history", "plain-records", "kit-store"])
def test_right_lease_stores_pass(answer, passes):
    passes(check_lease_store, answer, "lease store")


# -- the lease store: wrong answers ------------------------------------------------------
@pytest.mark.parametrize("wrong", mistakes(STORE), ids=lambda m: m.name)
def test_each_wrong_lease_store_is_rejected_with_its_hint(wrong, rejects):
    rejects(check_lease_store, wrong.answer, wrong.hint)


@pytest.mark.parametrize("wrong", mistakes(STORE), ids=lambda m: m.name)
def test_no_other_lease_store_mistakes_hint_shows_up(wrong):
    with pytest.raises(CheckFailed) as failure:
        check_lease_store(wrong.answer)
    others = [m.name for m in mistakes(STORE) if m is not wrong and m.hint in str(failure.value)]
    assert not others, (wrong.name, others)


def test_the_registries_hold_the_typical_mistakes():
    assert {m.name for m in mistakes(RULE)} == {
        "expiry-inclusive", "no-expiry-check", "older-token-accepted", "no-token-check",
        "expired-means-free"}
    assert {m.name for m in mistakes(STORE)} == {
        "token-reset-on-release", "never-expires", "expiry-off-by-one",
        "counts-refused-acquires", "renew-after-expiry", "stale-release", "no-fencing",
        "commit-ignores-expiry", "renew-fixed-ttl", "renew-from-old-expiry"}


class CopiesData(_Leases):
    """Wrong: writes into a copy of the dict it was given."""

    def __init__(self, data, clock):
        super().__init__(dict(data), clock)


class WallClock(_Leases):
    """Wrong: reads time.time() instead of the clock it was given."""

    def __init__(self, data, clock):
        super().__init__(data, time.time)


class OneCounterForAllKeys(_Leases):
    """Wrong: one token count shared by every key."""

    def __init__(self, data, clock):
        super().__init__(data, clock)
        self.counter = 0

    def acquire(self, key, ttl):
        now, lease = self.clock(), self.leases.get(key)
        if lease is not None and self.live(lease, now):
            return None
        self.counter += 1
        self.leases[key] = [self.counter, now + ttl, ttl]
        return self.counter


class RenewsFromOldExpiry(_Leases):
    """Wrong: renew adds the ttl to the old expiry instead of to now."""

    def renew(self, key, token):
        if not self.held(key, token, self.clock()):
            return False
        self.leases[key][1] += self.leases[key][2]
        return True


class WritesLeasesIntoData(_Leases):
    """Wrong: keeps its lease records in the data dict."""

    def __init__(self, data, clock):
        super().__init__(data, clock)
        self.leases = data


class RaisesOnAStaleCommit(_Leases):
    """Wrong: raises instead of returning False."""

    def commit(self, key, token, value):
        if not self.held(key, token, self.clock()):
            raise RuntimeError("lease lost")
        return super().commit(key, token, value)


@pytest.mark.parametrize("wrong, hints", [
    (CopiesData, ["into the dict you were given", "scenario 'one worker, one turn"]),
    (WallClock, ["never read the clock it was given", "scenario 'one worker, one turn"]),
    (OneCounterForAllKeys, ["never reset or skipped", "two sessions"]),
    (RenewsFromOldExpiry, ["renewing before expiry keeps the lease"]),
    (WritesLeasesIntoData, ["left data ="]),
    (RaisesOnAStaleCommit, ["raised RuntimeError: lease lost", "scenario 'a lease is held"]),
], ids=["copies-data", "wall-clock", "one-counter", "renew-from-old-expiry",
        "leases-in-data", "raises"])
def test_wrong_stores_the_registry_does_not_list_are_rejected_too(wrong, hints, rejects):
    rejects(check_lease_store, wrong, *hints)


def test_a_stub_and_a_missing_method_are_rejected(rejects):
    class Stub:
        def __init__(self, data, clock):
            raise NotImplementedError

    class NoRelease(_Leases):
        release = None
    rejects(check_lease_store, Stub, "is not written yet")
    rejects(check_lease_store, NoRelease, "release should be a function")


def test_the_failure_names_the_steps_before_it(rejects):
    failure = rejects(check_lease_store, mistakes(STORE)[0].answer)
    text = str(failure)
    assert "t=2 s B: acquire('s1', ttl=10) returned 1, the kit's store returns 2" in text
    assert "t=2 s A: release('s1', token=1) -> True" in text


def test_the_scenarios_say_what_the_kits_store_does():
    """The reference's answers on two named scenarios, spelled out."""
    from kit.checks.lease import _run
    paused = dict(SCENARIOS)["a worker paused past its ttl"]
    assert [result for _, result, _ in _run(KitLeaseStore, paused, learner=False)[0]] == [
        1, 2, False, False, False, None, True, True, 3]
    dies = dict(SCENARIOS)["a worker dies holding the lease"]
    played, reads = _run(KitLeaseStore, dies, learner=False)
    assert [result for _, result, _ in played] == [1, None, 2, True]
    assert played[-1][2] == {"s1": "B's turn"} and reads >= len(dies)


def test_a_rule_the_registry_does_not_name_gets_the_general_hint(rejects):
    """`token >= current_token` accepts a newer token: no registered mistake answers every
    case as it does, so the hint is the rule itself, not another mistake's."""
    rejects(check_may_commit, lambda token, current, expires_at, now:
            token >= current and now < expires_at, "not a newer one the store never handed out")


@pytest.mark.parametrize("wrong", [CopiesData, OneCounterForAllKeys, WritesLeasesIntoData],
                         ids=["copies-data", "one-counter", "leases-in-data"])
def test_an_unregistered_store_gets_the_rule_and_no_other_mistakes_hint(wrong, rejects):
    from kit.checks.hints import blamed
    message = str(rejects(check_lease_store, wrong, "Rule: "))
    assert blamed(message, STORE) == [] and "Hint:" not in message, message


def test_a_renew_uses_the_leases_own_ttl_from_now(rejects):
    """A lease of 4 s renewed at 2 s runs to 6 s: not 12 (a fixed 10 s), not 8 (from the
    old expiry); each wrong renew gets its own hint."""
    by_name = {m.name: m.answer for m in mistakes(STORE)}
    rejects(check_lease_store, by_name["renew-fixed-ttl"],
            "a renew extends by the lease's own ttl", "the ttl the lease was acquired with")
    rejects(check_lease_store, by_name["renew-from-old-expiry"], "not expires_at + ttl")
