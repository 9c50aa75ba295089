"""Checkers for lesson 10 (from notebook to service): the fencing rule, and a whole lease
store with fencing tokens.

**Exercise 1**, :func:`check_may_commit`: ``may_commit(token, current_token, expires_at,
now) -> bool``, the rule the kit's stores apply to every fenced write. ``token``: the
fencing token of the lease the writer holds; ``current_token``: the newest token the
session handed out; ``expires_at``: when that newest lease expires (seconds, the store's
clock; a released lease has expired); ``now``: the store's clock. The rule: **the
writer's token is the current one, and it has not expired** (``now < expires_at``: at
``expires_at`` the lease is over). Nothing else: an older token is refused even while
its holder thinks it is working, and an expired lease is refused even if nobody has
taken the session over, because the store cannot tell that case from a released lease
(Redis deletes the key; SQLite marks it expired), so the writer could commit a second
time after its turn was done.

**Exercise 2**, :func:`check_lease_store`: a class ``cls(data, clock)`` (any name, any
internal layout) with the four verbs of :class:`kit.serve.stores.SessionStore`'s
leases, over a plain dict:

- ``data``: the dict the checker passes; ``commit`` writes ``data[key] = value`` into it,
  and nothing else goes into it. ``clock``: ``() -> float`` seconds, the checker's own
  (read it in every call; a lease is held while ``clock() < expires_at``);
- ``acquire(key, ttl) -> int | None``: a lease on ``key`` for ``ttl`` seconds: its
  token, 1 for the key's first lease and one more for each lease handed out (never
  reset, never skipped), or None while another lease is held and unexpired;
- ``renew(key, token) -> bool``: extend the lease to ``clock() + ttl``, from now and with
  the ttl that lease was acquired with (not a fixed ttl, not from the old expiry);
  False, nothing changed, unless ``token`` is the key's current, unexpired lease;
- ``release(key, token) -> bool``: give the lease back, so the next acquire needs not
  wait (the token count goes on); False, nothing changed, unless current and unexpired;
- ``commit(key, token, value) -> bool``: ``data[key] = value`` if ``token`` is the key's
  current, unexpired lease; else False and nothing written.

The reference is the kit's own store: :class:`kit.serve.sqlite_store.SQLiteSessionStore` on
an in-memory file with the checker's clock, seen through the same four verbs
(:class:`KitLeaseStore`). The checker replays named scenarios (a worker that dies
holding a lease, one that pauses past its ttl, a stale release, a commit after the
release...) and seeded random ones through both, step by step, and compares every
return value and the dict after every step. The wrong answers it tells apart are in
:mod:`kit.mistakes.lease`. Both checkers print one pass line (:func:`kit.checks.passed`)
or raise :class:`kit.checks.CheckFailed` naming the case and the likely mistake.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable

from kit.checks import CheckFailed, call_learner, expect, passed, safe_text
from kit.checks.hints import judge
from kit.checks.protocol import CheckerClock
from kit.serve.sqlite_store import SQLiteSessionStore
from kit.serve.stores import Lease, LeaseLost

__all__ = ["check_may_commit", "check_lease_store", "may_commit", "KitLeaseStore",
           "SCENARIOS", "RULE", "STORE"]

RULE = "fencing rule"           # the mechanisms of kit.mistakes.lease
STORE = "lease store"


def may_commit(token: int, current_token: int, expires_at: float, now: float) -> bool:
    """The stores' fencing rule: True iff ``token`` is the current one and unexpired
    (``now < expires_at``, seconds)."""
    return token == current_token and now < expires_at


# -- exercise 1 ------------------------------------------------------------------------
# (token, current_token, expires_at, now, why), in an order that lets each registered
# mistake fail first on a case that names it
_RULE_CASES = [
    (1, 1, 10.0, 5.0, "the holder, before its lease expires"),
    (3, 2, 22.0, 14.0, "token 3, which the store never handed out (its newest is 2: a "
                       "store restored from an old backup, say)"),
    (1, 2, 0.0, 15.0, "token 1 after lease 2 was released (expires_at 0): nobody holds "
                      "the session, and 1 is still not the current token"),
    (1, 1, 10.0, 12.0, "the holder's own lease expired at 10 s, nobody took over"),
    (1, 1, 10.0, 10.0, "the holder, at the very second its lease expires"),
    (1, 2, 22.0, 14.0, "a stale holder: lease 1 expired, worker B holds lease 2 until 22 s"),
    (2, 2, 22.0, 14.0, "the new holder, B, before its lease expires"),
    (4, 4, 0.0, 3.0, "the holder after it released its lease (expires_at 0)"),
    (1, 1, 10.0, 9.5, "the holder half a second before expiry"),
    (7, 7, 30.0, 29.999, "the holder a millisecond before expiry"),
]


def _rule_cases(seed: int = 10, count: int = 40) -> list[tuple]:
    """Seeded random cases: tokens 1-4, times in steps of 0.5 s, so ties happen."""
    rng = random.Random(seed)
    return [(rng.randint(1, 4), rng.randint(1, 4), rng.randint(0, 24) / 2,
             rng.randint(0, 24) / 2, "a random case") for _ in range(count)]


def _rule_hint(fn: Callable, cases: list[tuple]) -> str:
    """The hint of the registered mistake that answers every case as the learner's ``fn``
    does (cases it raises on left out); a general one if none does (a mistake the
    registry does not name)."""
    from kit.mistakes import mistakes
    answers = []
    for case in cases:
        try:
            answers.append((case[:4], fn(*case[:4])))
        except Exception:                   # noqa: BLE001 (reported when its case comes)
            pass
    for wrong in mistakes(RULE):
        if all(wrong.answer(*args) == got for args, got in answers):
            return f"{wrong.hint}: {wrong.why}"
    return ("commit only with the current token (token == current_token: not an older one, "
            "not a newer one the store never handed out) while the lease runs "
            "(now < expires_at)")


def check_may_commit(fn: Callable) -> None:
    """Check ``may_commit(token, current_token, expires_at, now)``; print one pass line or
    raise CheckFailed. Rejects: no expiry check, ``<=`` at the boundary, an older or a
    newer token accepted, any token accepted once the lease expired; a result that is not
    True or False."""
    cases, every = 0, _RULE_CASES + _rule_cases()
    for case in every:
        *args, why = case
        shown = (f"may_commit(token={args[0]}, current_token={args[1]}, "
                 f"expires_at={args[2]}, now={args[3]})")
        got = call_learner(fn, *args, name="may_commit", shown=shown)
        want = may_commit(*args)
        expect(isinstance(got, bool), f"{shown} returned {got!r:.60}: return True or False "
                                      f"(a bool), not a truthy value")
        if got != want:
            expect(False, f"{shown} should be {want}, got {got} ({why}). "
                          f"Hint: {_rule_hint(fn, every)}.")
        cases += 1
    passed("may_commit", cases)


# -- exercise 2: the reference -----------------------------------------------------------
class KitLeaseStore:
    """The exercise's four verbs over the kit's :class:`~kit.serve.sqlite_store.SQLiteSessionStore`
    (an in-memory file, the caller's ``clock``): the checker's reference. A commit writes
    ``{"value": value}`` as the session's state, fenced, then ``data[key] = value``."""

    def __init__(self, data: dict, clock: Callable[[], float]) -> None:
        self.data, self.store, self.ttls = data, SQLiteSessionStore(":memory:", clock), {}

    def _lease(self, key: str, token: int) -> Lease:
        return Lease(key, token, self.ttls.get((key, token), 1.0))

    def acquire(self, key: str, ttl: float) -> int | None:
        lease = self.store.acquire(key, ttl)
        if lease is None:
            return None
        self.ttls[(key, lease.token)] = ttl
        return lease.token

    def renew(self, key: str, token: int) -> bool:
        try:
            self.store.renew(self._lease(key, token))
        except LeaseLost:
            return False
        return True

    def release(self, key: str, token: int) -> bool:
        return self.store.release(self._lease(key, token))

    def commit(self, key: str, token: int, value: str) -> bool:
        try:
            self.store.commit(key, self._lease(key, token), [], {"value": value})
        except LeaseLost:
            return False
        self.data[key] = value
        return True

    def close(self) -> None:
        self.store.close()


# A step: (time in seconds, worker, verb, key, ttl for acquire / value for commit / None).
# A worker's token for a key is the one its last successful acquire of that key returned.
SCENARIOS: list[tuple[str, list[tuple]]] = [
    ("one worker, one turn, then the next worker", [
        (0, "A", "acquire", "s1", 10), (1, "A", "commit", "s1", "turn 1"),
        (2, "A", "release", "s1", None), (2, "B", "acquire", "s1", 10),
        (3, "B", "commit", "s1", "turn 2"), (4, "B", "release", "s1", None)]),
    ("a worker dies holding the lease", [
        (0, "A", "acquire", "s1", 10), (3, "B", "acquire", "s1", 10),
        (15, "B", "acquire", "s1", 10), (16, "B", "commit", "s1", "B's turn")]),
    ("a lease is held until the second it expires", [
        (0, "A", "acquire", "s1", 10), (5, "B", "acquire", "s1", 10),
        (9.5, "B", "acquire", "s1", 10), (10, "B", "acquire", "s1", 10),
        (10, "A", "commit", "s1", "A, too late"), (11, "B", "commit", "s1", "B's turn")]),
    ("renewing before expiry keeps the lease", [
        (0, "A", "acquire", "s1", 10), (8, "A", "renew", "s1", None),
        (15, "B", "acquire", "s1", 10), (15, "A", "commit", "s1", "A's turn"),
        (17, "A", "renew", "s1", None), (26.5, "B", "acquire", "s1", 10),
        (27, "B", "acquire", "s1", 10)]),
    ("a renew after expiry", [
        (0, "A", "acquire", "s1", 10), (12, "A", "renew", "s1", None),
        (12, "B", "acquire", "s1", 10), (13, "A", "commit", "s1", "A, too late")]),
    ("a worker paused past its ttl", [
        (0, "A", "acquire", "s1", 10), (11, "B", "acquire", "s1", 10),
        (12, "A", "commit", "s1", "A, too late"), (12, "A", "renew", "s1", None),
        (12, "A", "release", "s1", None), (13, "C", "acquire", "s1", 10),
        (13, "B", "commit", "s1", "B's turn"), (14, "B", "release", "s1", None),
        (14, "C", "acquire", "s1", 10)]),
    ("a commit after the lease ended", [
        (0, "A", "acquire", "s1", 10), (1, "A", "commit", "s1", "turn 1"),
        (2, "A", "release", "s1", None), (3, "A", "commit", "s1", "turn 1 again"),
        (4, "A", "renew", "s1", None), (5, "B", "acquire", "s1", 4),
        (20, "B", "commit", "s1", "B, expired")]),
    ("a renew extends by the lease's own ttl, from now", [
        (0, "A", "acquire", "s1", 4), (2, "A", "renew", "s1", None),
        (5.5, "B", "acquire", "s1", 10), (6, "B", "acquire", "s1", 10),
        (7, "B", "renew", "s1", None), (16.5, "C", "acquire", "s1", 2),
        (17, "C", "acquire", "s1", 2)]),
    ("two sessions, two sets of tokens", [
        (0, "A", "acquire", "s1", 10), (0, "A", "acquire", "s2", 10),
        (1, "B", "acquire", "s2", 10), (1, "A", "release", "s2", None),
        (1, "B", "acquire", "s2", 10), (2, "B", "commit", "s2", "s2 by B"),
        (2, "A", "commit", "s1", "s1 by A"), (3, "B", "acquire", "s1", 10)]),
]


def _random_scenarios(seed: int = 10, count: int = 12, steps: int = 30) -> list[tuple]:
    """Seeded scenarios: two keys, three workers, times moving on by 0 to 6 s."""
    rng, found = random.Random(seed), []
    for n in range(count):
        t, script = 0.0, []
        for i in range(steps):
            t += rng.choice([0, 0, 0.5, 1, 2, 4, 6])
            verb = rng.choice(["acquire", "acquire", "renew", "release", "commit", "commit"])
            extra = rng.choice([2, 5, 10]) if verb == "acquire" else (
                f"value {i}" if verb == "commit" else None)
            script.append((t, rng.choice("ABC"), verb, rng.choice(["s1", "s2"]), extra))
        found.append((f"random scenario {n + 1}", script))
    return found


def _show(step: tuple, token: object) -> str:
    t, who, verb, key, extra = step
    arg = {"acquire": f"ttl={extra}", "commit": f"token={token}, value={extra!r}"}.get(
        verb, f"token={token}")
    return f"t={t:g} s {who}: {verb}({key!r}, {arg})"


def _run(make: Callable, script: list[tuple], learner: bool) -> tuple[list[tuple], int]:
    """Play ``script`` on ``make(data, clock)``; return one (shown step, result, data)
    per step, stopping after a step whose call raised (result: the exception), and how
    many times the clock was read."""
    data, clock = {}, CheckerClock()
    if learner:
        store = call_learner(make, data, clock, name="your class",
                             shown="LeaseStore(data={}, clock)")
    else:
        store = make(data, clock)
    tokens: dict[tuple[str, str], int] = {}
    played = []
    try:
        for step in script:
            t, who, verb, key, extra = step
            clock.now = float(t)
            token = tokens.get((who, key), 0)
            shown = _show(step, token)
            args = (key, extra) if verb == "acquire" else (
                (key, token, extra) if verb == "commit" else (key, token))
            try:
                if learner:
                    result = call_learner(getattr(store, verb, None), *args, name=verb,
                                          shown=shown.split(": ", 1)[1])
                else:
                    result = getattr(store, verb)(*args)
            except Exception as exc:     # the learner's CheckFailed, or a wrong answer's error
                played.append((shown, exc, dict(data)))
                break
            if verb == "acquire" and isinstance(result, int) and not isinstance(result, bool):
                tokens[(who, key)] = result
            played.append((shown, result, dict(data)))
    finally:
        close = getattr(store, "close", None)
        if not learner and callable(close):
            close()
    return played, clock.calls


def _same(got: object, want: object) -> bool:
    if want is None or got is None:
        return got is want
    return type(got) is type(want) and got == want


def _divergence(played: list, reference: list) -> int | None:
    """The index of the first step whose result or data differs, or None."""
    for i, ((_, got, data), (_, want, want_data)) in enumerate(zip(played, reference)):
        if isinstance(got, BaseException) or not _same(got, want) or data != want_data:
            return i
    return None if len(played) == len(reference) else len(played)


#: The rule of the spec each kind of failure breaks: a failure box states it when no
#: registered mistake reproduces the learner's results (:mod:`kit.checks.hints`).
_STEP = r"^scenario '[^']*': t=\S+ s \w: "       # the failing step, at the head's start
RULES = (
    (_STEP + r"\w+\([^)]*\) left data", "only a commit that returns True writes "
                                        "data[key] = value, into the dict you were given; "
                                        "nothing else goes into it"),
    (_STEP + r"acquire\([^)]*\) returned None", "acquire hands out the next token once the "
                                                "key's lease expired (clock() >= expires_at) "
                                                "or was released"),
    (_STEP + r"acquire\([^)]*\) returned .*store returns None",
     "while a lease is held and unexpired (clock() < expires_at), acquire returns None"),
    (_STEP + r"acquire\(", "tokens count the leases of a key handed out: 1, 2, 3, ..., never "
                          "reset or skipped"),
    (_STEP + r"renew\(", "renew(key, token) extends the key's current, unexpired lease to "
                        "clock() + the ttl it was acquired with; else False and nothing "
                        "changed"),
    (_STEP + r"release\(", "release(key, token) gives back the key's current, unexpired "
                          "lease; else False and nothing changed"),
    (_STEP + r"commit\(", "commit(key, token, value) writes only for the key's current token "
                         "while clock() < expires_at; else False"),
)


def _store_rule(head: str) -> str:
    for pattern, rule in RULES:
        if re.search(pattern, head):
            return rule
    return "the spec of the exercise"


def _check_store(cls: Callable) -> int:
    """Every scenario, step by step against the kit's store: the steps passed."""
    cases = 0
    for name, script in SCENARIOS + _random_scenarios():
        reference, _ = _run(KitLeaseStore, script, learner=False)
        played, reads = _run(cls, script, learner=True)
        expect(reads > 0 or isinstance(played[0][1], CheckFailed),
               f"scenario {name!r}: your class never read the clock it was given. Hint: "
               f"call clock() for the time in every method (never time.time()): the "
               f"checker sets the time of each step on that clock.")
        index = _divergence(played, reference)
        if index is None:
            cases += len(script)
            continue
        shown, got, data = played[index]
        if isinstance(got, CheckFailed):                 # the learner's code raised
            raise CheckFailed(f"scenario {name!r}: {got}") from got.__cause__
        before = "; ".join(f"{s} -> {r!r}" for s, r, _ in reference[max(0, index - 5):index])
        want, want_data = reference[index][1], reference[index][2]
        what = (f"returned {safe_text(got, 60)}, the kit's store returns {want!r}"
                if not _same(got, want) else
                f"left data = {safe_text(data, 100)}, the kit's store {want_data!r}")
        head = f"scenario {name!r}: {shown} {what}. Steps before it: {before or 'none'}."
        rule = _store_rule(head)
        raise CheckFailed(f"{head} Why: the rule is that {rule}. Hint: {rule}.")
    return cases


def check_lease_store(cls: Callable) -> None:
    """Check a lease store class ``cls(data, clock)`` against the kit's SQLite store, step
    by step; print one pass line or raise CheckFailed naming the scenario, the steps
    before the failing one, what came back and what the kit's store returns; the hint of a
    registered mistake only when that mistake returns the very same results up to there
    (:mod:`kit.checks.hints`), else the rule the step breaks."""
    passed("lease store", judge(_check_store, cls, STORE, RULES, "the spec of the exercise"))
