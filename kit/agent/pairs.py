"""The pair invariant of an agent's context: every tool result right after its call, every
call answered before the next message.

Providers refuse a request that breaks it: a ``tool`` message whose call is not in the
assistant message before it (an *orphaned result*, e.g. after a window slid past the
call, or a compaction folded the call and kept the result), or a call with no result
after it (a *dangling call*). The one exception is a call still running: the last
assistant message's calls may wait for their results at the end of the context (never in
a request: the loop sends the next request only when every result is in).

:func:`pair_problems` reads chat dicts (``messages()`` of any context, the learner's
included); it runs in time linear in the number of messages and calls.
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["pair_problems", "call_ids"]


def call_ids(message: dict) -> list[str]:
    """The ids of a chat dict's ``tool_calls`` ([] for none or a malformed list)."""
    calls = message.get("tool_calls") or []
    return [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def pair_problems(messages: Sequence[dict], running: bool = True) -> list[str]:
    """What breaks the pair invariant in ``messages`` (chat dicts, oldest first), one short
    sentence per problem ([] when it holds). ``running``: whether calls of the last
    message may still be waiting for their results (True after an add, False for a request
    about to be sent)."""
    problems, waiting = [], {}
    for i, message in enumerate(messages):
        if message.get("role") == "tool":
            call = message.get("tool_call_id")
            if call in waiting:
                del waiting[call]
            else:
                problems.append(f"message {i} is a result of {call!r} with no call before it "
                                f"(an orphaned result)")
            continue
        if waiting:
            problems.append(f"call {', '.join(map(repr, waiting))} has no result before "
                            f"message {i} (a dangling call)")
            waiting = {}
        waiting = {call: i for call in call_ids(message)}
    if waiting and not running:
        problems.append(f"call {', '.join(map(repr, waiting))} has no result at the end of "
                        f"the request (a dangling call)")
    return problems
