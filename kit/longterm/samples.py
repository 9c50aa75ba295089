"""Sample data: three mock-interview sessions of one full-stack candidate.

Written for the kit (deterministic, no model involved). The sessions are built so
that the lesson can show:

- session ``s1`` is longer than the 2,200-character budget, so its oldest turns
  overflow into the summary;
- "cache invalidation" is a weakness twice within ``s1`` (stable by turn count);
- "composite index column order" and "race conditions" appear once in ``s1`` and once
  in ``s2`` (one-off in each session, stable only once the profiles are merged);
- in ``s3`` the candidate fixes the index question (a new strength) while older
  weaknesses stay in the counted evidence.
"""
from __future__ import annotations

from kit.longterm.session import InterviewSession, InterviewTurn

__all__ = ["sample_sessions", "SAMPLE_ROLE"]

SAMPLE_ROLE = "full-stack engineer"


def _t(topic, score, question, answer, weaknesses=(), strengths=()):
    return InterviewTurn(question, answer, score, tuple(weaknesses), tuple(strengths), topic)


def _s1() -> InterviewSession:
    return InterviewSession("s1", (
        _t("caching", 7,
           "A product-details endpoint takes 400 ms. How would you put a cache in front of it?",
           "I would use cache-aside: read from Redis first, on a miss load from Postgres and "
           "write the result back with a TTL of five minutes. In my last project we built "
           "exactly this for the catalogue and p95 latency went from 480 ms to 60 ms. The "
           "key would be product id plus locale.",
           ["cache invalidation"], ["concrete production numbers", "clear trade-off reasoning"]),
        _t("caching", 4,
           "The price of a product changes. How long can a stale price be shown, and how do "
           "you prevent it?",
           "Up to the TTL, so five minutes. I guess we could lower the TTL. I am not sure "
           "whether to delete the key on write or update it; I have not thought about two "
           "writers updating the same product at once.",
           ["cache invalidation", "race conditions"]),
        _t("SQL indexes", 5,
           "A query filters orders by customer_id and sorts by created_at. Which index "
           "would you add?",
           "One index on customer_id and another one on created_at, and the planner can "
           "combine them. I would check with EXPLAIN ANALYZE that the index is used and "
           "that the sort does not spill to disk.",
           ["composite index column order"], ["reads query plans"]),
        _t("React rendering", 8,
           "A table of 2,000 rows re-renders on every keystroke in a search box above it. "
           "Why, and what would you do?",
           "The search text lives in the parent state, so every keystroke re-renders the "
           "parent and all rows. I would move the input state down or memoise the rows with "
           "React.memo and stable keys, compute the filtered list with useMemo, and "
           "virtualise the table. We shipped a virtualised table with react-window that "
           "kept typing under 16 ms per frame.",
           [], ["react rendering model", "clear trade-off reasoning"]),
        _t("HTTP caching", 5,
           "What do Cache-Control: no-cache and an ETag do together?",
           "no-cache means the browser must not store the response at all, and the ETag "
           "is a hash the server uses to detect changes. So with both set, every request "
           "goes to the server and downloads the full body again; I would rather use "
           "max-age for the static assets.",
           ["http cache headers"]),
        _t("incidents", 8,
           "Tell me about a production incident you handled.",
           "At my last job our team had a checkout outage when a migration locked the "
           "orders table. I rolled it back, added a lock timeout to every migration and "
           "wrote the postmortem; we moved large migrations to a batched backfill. Since "
           "then every migration runs against a copy of production data in CI first, and "
           "we have not had a locking incident in a year.",
           [], ["ownership of incidents", "concrete production numbers"]),
    ), SAMPLE_ROLE)


def _s2() -> InterviewSession:
    return InterviewSession("s2", (
        _t("SQL indexes", 5,
           "Which index serves WHERE status = 'paid' AND created_at > now() - interval "
           "'7 days' ORDER BY created_at?",
           "An index on (created_at, status), because created_at is the range and the sort. "
           "EXPLAIN would show whether it is an index scan.",
           ["composite index column order"], ["reads query plans"]),
        _t("caching", 8,
           "A hot key expires and 500 requests miss at once. What happens and how do you "
           "avoid it?",
           "That is a cache stampede: every request hits the database. I would coalesce "
           "requests so only one recomputes the value, add jitter to TTLs, and for the "
           "hottest keys refresh early in the background.",
           [], ["clear trade-off reasoning"]),
        _t("React rendering", 7,
           "Why does a data-fetching useEffect run twice in development?",
           "React StrictMode mounts, unmounts and mounts again in development to surface "
           "missing cleanup. The fetch itself is fine; I would use an AbortController, "
           "though I did not say where the abort goes.",
           ["effect cleanup"], ["react rendering model"]),
        _t("system design", 5,
           "How do you keep a search index in sync with the orders database?",
           "Write to Postgres and then to Elasticsearch in the same request handler. If two "
           "updates race, the last write wins, which should be fine.",
           ["race conditions", "consistency between stores"]),
    ), SAMPLE_ROLE)


def _s3() -> InterviewSession:
    return InterviewSession("s3", (
        _t("SQL indexes", 8,
           "Same query as last time: status = 'paid', a created_at range, sorted by "
           "created_at. Which index now?",
           "(status, created_at): equality columns first, then the range, so the rows come "
           "out already sorted. Putting created_at first would scan every status.",
           [], ["composite index design", "reads query plans"]),
        _t("caching", 7,
           "Back to the stale price: how do you invalidate now?",
           "Update Postgres, then delete the Redis key; the next read repopulates it. A "
           "reader can still put back an old value between the two steps, so I would add a "
           "short TTL as a safety net; versioned keys would close the gap.",
           ["race conditions"], ["clear trade-off reasoning"]),
        _t("React rendering", 5,
           "A server-rendered page logs a hydration mismatch warning. What causes it?",
           "The server and the client render different markup, for example a date formatted "
           "with the local time zone. I would render it in an effect. I am not sure how "
           "suppressHydrationWarning fits in.",
           ["hydration mismatch"], ["react rendering model"]),
    ), SAMPLE_ROLE)


def sample_sessions() -> tuple[InterviewSession, ...]:
    """The three sample sessions ``s1`` (6 turns), ``s2`` (4 turns), ``s3`` (3 turns),
    oldest first, for the target role :data:`SAMPLE_ROLE`. New objects on every call."""
    return _s1(), _s2(), _s3()
