"""Wrong fencing rules and wrong lease stores (lesson 10's exercises, mechanisms "fencing
rule" and "lease store").

The fencing rules have the signature ``may_commit(token, current_token, expires_at,
now) -> bool`` of :func:`kit.checks.lease.check_may_commit`; the right rule is "the
current token, and unexpired" (``token == current_token and now < expires_at``).

The lease stores have the protocol of :func:`kit.checks.lease.check_lease_store`,
``cls(data, clock)`` with ``acquire(key, ttl)``, ``renew(key, token)``,
``release(key, token)`` and ``commit(key, token, value)``. They share the plain, right
store :class:`_Leases` and override the one step they get wrong, so the mistake is the
only difference you read. The checkers reject each with a message that holds its
``hint``.
"""
from __future__ import annotations

from kit.mistakes import mistake

__all__ = ["expiry_inclusive", "no_expiry_check", "older_token_accepted", "no_token_check",
           "expired_means_free", "ResetsTokenOnRelease", "NeverExpires", "ExpiryOffByOne",
           "CountsRefusedAcquires", "RenewsAfterExpiry", "AnyoneReleases", "NoFencing",
           "CommitIgnoresExpiry"]

RULE, STORE = "fencing rule", "lease store"


# -- the fencing rule ----------------------------------------------------------------------
@mistake(RULE, "expiry-inclusive",
         what="accepts a write at the very second the lease expires (now <= expires_at)",
         why="at expires_at another worker may already hold the next token, so for that "
             "instant two workers may write; the stores use now < expires_at",
         hint="at now == expires_at the lease is over")
def expiry_inclusive(token, current_token, expires_at, now):
    return token == current_token and now <= expires_at


@mistake(RULE, "no-expiry-check",
         what="compares the tokens and never looks at the clock",
         why="a worker that paused past its ttl, or already released its lease, writes "
             "as if it still held it; the service promised the session to others",
         hint="an expired lease writes nothing, even the current token's")
def no_expiry_check(token, current_token, expires_at, now):
    return token == current_token


@mistake(RULE, "older-token-accepted",
         what="accepts any token up to the current one (token <= current_token)",
         why="the stale worker's late commit overwrites the turn of the worker that holds "
             "the newer lease: the lost update fencing exists to stop",
         hint="an older token is a stale holder, and only the current token writes")
def older_token_accepted(token, current_token, expires_at, now):
    return token <= current_token and now < expires_at


@mistake(RULE, "no-token-check",
         what="checks only that the current lease is unexpired, whatever the token",
         why="that is a lock without fencing: any worker writes while someone holds the "
             "lease, a token the store never handed out included",
         hint="compare the tokens (token == current_token)")
def no_token_check(token, current_token, expires_at, now):
    return now < expires_at


@mistake(RULE, "expired-means-free",
         what="accepts any token once the current lease has expired (nobody holds the "
              "session, so the write looks harmless)",
         why="an expired lease looks the same as a released one, so a worker can commit "
             "again after its turn was done, or after a newer worker finished",
         hint="an expired lease is nobody's, so no token may write until one is acquired")
def expired_means_free(token, current_token, expires_at, now):
    return token == current_token if now < expires_at else True


# -- the lease store -----------------------------------------------------------------------
class _Leases:
    """A right lease store, as a learner would write it: one record per key,
    ``[token, expires_at, ttl]``; a released lease keeps its token and expires now."""

    def __init__(self, data, clock):
        self.data, self.clock, self.leases = data, clock, {}

    def live(self, lease, now):
        return now < lease[1]

    def held(self, key, token, now):
        lease = self.leases.get(key)
        return lease is not None and lease[0] == token and self.live(lease, now)

    def acquire(self, key, ttl):
        now, lease = self.clock(), self.leases.get(key)
        if lease is not None and self.live(lease, now):
            return None
        token = (lease[0] if lease else 0) + 1
        self.leases[key] = [token, now + ttl, ttl]
        return token

    def renew(self, key, token):
        now = self.clock()
        if not self.held(key, token, now):
            return False
        self.leases[key][1] = now + self.leases[key][2]
        return True

    def release(self, key, token):
        now = self.clock()
        if not self.held(key, token, now):
            return False
        self.leases[key][1] = now
        return True

    def commit(self, key, token, value):
        if not self.held(key, token, self.clock()):
            return False
        self.data[key] = value
        return True


@mistake(STORE, "token-reset-on-release",
         what="deletes the key's record on release, so the next lease gets token 1 again",
         why="two leases then carry the same token, and a stale worker holding the old "
             "token 1 passes the fence of the new one",
         hint="the token count must survive a release")
class ResetsTokenOnRelease(_Leases):
    def release(self, key, token):
        if not self.held(key, token, self.clock()):
            return False
        del self.leases[key]
        return True


@mistake(STORE, "never-expires",
         what="refuses a new lease while any lease is recorded and not released, however "
              "old it is",
         why="a worker that dies holding the lease blocks its session for ever, where "
             "the ttl should free it after a few seconds",
         hint="a lease that expired (clock() >= expires_at) is free to acquire")
class NeverExpires(_Leases):
    def __init__(self, data, clock):
        super().__init__(data, clock)
        self.released = set()            # keys whose last lease was given back

    def acquire(self, key, ttl):
        if key in self.leases and key not in self.released:
            return None
        self.released.discard(key)
        return super().acquire(key, ttl)

    def release(self, key, token):
        done = super().release(key, token)
        if done:
            self.released.add(key)
        return done


@mistake(STORE, "expiry-off-by-one",
         what="treats a lease as held at the second it expires (clock() <= expires_at)",
         why="at expires_at the old holder and the new one may both act; the boundary "
             "belongs to the next worker",
         hint="at clock() == expires_at the lease has expired")
class ExpiryOffByOne(_Leases):
    def live(self, lease, now):
        return now <= lease[1]


@mistake(STORE, "counts-refused-acquires",
         what="increments the token on every acquire, the refused ones included",
         why="tokens no longer count the leases handed out: gaps in the turn log's tokens "
             "read as workers that took the session and wrote nothing",
         hint="a refused acquire hands out no token; the count grows only when a lease "
              "is given")
class CountsRefusedAcquires(_Leases):
    def __init__(self, data, clock):
        super().__init__(data, clock)
        self.counter = {}

    def acquire(self, key, ttl):
        now, lease = self.clock(), self.leases.get(key)
        self.counter[key] = self.counter.get(key, 0) + 1
        if lease is not None and self.live(lease, now):
            return None
        self.leases[key] = [self.counter[key], now + ttl, ttl]
        return self.counter[key]


@mistake(STORE, "renew-after-expiry",
         what="renews any lease with the current token, an expired one too",
         why="a worker that paused past its ttl takes its session back as if nothing "
             "happened, while another worker may have acquired and left it",
         hint="an expired lease cannot be renewed")
class RenewsAfterExpiry(_Leases):
    def renew(self, key, token):
        lease = self.leases.get(key)
        if lease is None or lease[0] != token:
            return False
        lease[1] = self.clock() + lease[2]
        return True


@mistake(STORE, "stale-release",
         what="releases the key's lease whoever asks, without checking the token",
         why="a stale worker that wakes up and releases frees the lease of the worker "
             "that took over, so a third worker enters beside it",
         hint="only the current holder may release (check the token and the expiry)")
class AnyoneReleases(_Leases):
    def release(self, key, token):
        if key not in self.leases:
            return False
        self.leases[key][1] = self.clock()
        return True


@mistake(STORE, "no-fencing",
         what="commits whenever the key's lease is held and unexpired, whoever holds it",
         why="a lock without a fence lets the stale worker's late commit overwrite the "
             "turn of the worker that holds the lease now",
         hint="commit must compare the token with the key's current one")
class NoFencing(_Leases):
    def commit(self, key, token, value):
        lease = self.leases.get(key)
        if lease is None or not self.live(lease, self.clock()):
            return False
        self.data[key] = value
        return True


@mistake(STORE, "commit-ignores-expiry",
         what="commits with the current token without looking at the clock",
         why="after its lease expired or was released, the worker's commit still "
             "lands, and one turn is written twice",
         hint="commit only while the lease is unexpired (clock() < expires_at)")
class CommitIgnoresExpiry(_Leases):
    def commit(self, key, token, value):
        lease = self.leases.get(key)
        if lease is None or lease[0] != token:
            return False
        self.data[key] = value
        return True


@mistake(STORE, "renew-fixed-ttl",
         what="renews by a fixed 10 seconds (clock() + 10) instead of the lease's own ttl",
         why="a lease taken for 4 s and renewed runs for 10: the session stays blocked "
             "long after a dead worker's lease should have freed it",
         hint="renew extends to clock() + the ttl the lease was acquired with")
class RenewsFixedTtl(_Leases):
    def renew(self, key, token):
        now = self.clock()
        if not self.held(key, token, now):
            return False
        self.leases[key][1] = now + 10
        return True


@mistake(STORE, "renew-from-old-expiry",
         what="renews from the old expiry (expires_at + ttl) instead of from now",
         why="each renew pushes the end further than the ttl from now: a worker that "
             "renews often holds the session long after it died",
         hint="renew extends from now: clock() + ttl, not expires_at + ttl")
class RenewsFromOldExpiry(_Leases):
    def renew(self, key, token):
        now = self.clock()
        if not self.held(key, token, now):
            return False
        self.leases[key][1] = self.leases[key][1] + self.leases[key][2]
        return True
