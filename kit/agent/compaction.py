"""Compaction inside the tool loop: fold all but the newest messages into a task-state
summary (lesson 11).

Past a trigger, an agent's context is rewritten as: the system prompt, one summary of the
task so far, the live question (the newest user message, verbatim, wherever it was) and
the newest ``keep_recent`` messages. What must survive is the *task state*, not the chat:
the goal and every user request verbatim (so the planted facts: ids, amounts, deadlines,
constraints, names), what was done (calls per tool, files read, the last call) and what
is open. The folded tool results themselves are not kept: the agent calls a tool again.

The split never separates a call from its result: the kept part never starts with a tool
result (the cut moves back to the call), so the pair invariant holds after it.

:func:`compact_turns` is the compute step, pure, with the production summary memory's
safety (lesson 04): the model's reply is checked (a str, not empty, shorter than what
it folds), then fact-checked
against the folded user messages and the previous summary
(:func:`kit.memory.facts.missing_facts`): most facts kept, it is repaired (the lines that
stated the missing ones appended); fewer than half, or a model that raised, and the
rule-based :func:`task_state` writes it (the fallback). The context manager commits the
result only after it returned (compute, then commit). :class:`TaskStateModel` is the stub
model of the lesson: it answers the prompt with :func:`task_state`.

What a compaction costs under a prompt cache: the summariser reads what it folds, and the
next request rewrites everything after the system prompt (the new summary and the kept
tail). With ``CompactInLoop(cached=True)`` the summariser is billed for the request of
:func:`fold_request` (the agent's request plus the instruction; the stub reads the same
messages as the fold prompt), whose prefix the cache already holds: a fold then costs a
cached read of the context, the summary and the tail written, so folding often with a
short tail keeps every request small at little cost
(:func:`kit.agent.meter.cached_compaction`).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kit.agent.loop import SUMMARY_HEAD
from kit.memory.facts import MOST, missing_facts, repair
from kit.messages import Message, render
from kit.validation import check_int

__all__ = ["CompactInLoop", "Compacted", "split_pairs", "task_state", "compact_turns",
           "TaskStateModel", "TASK_PROMPT", "fold_request"]

TASK_PROMPT = ("Rewrite the state of this agent's task as a summary: the goal and every "
               "user request verbatim (ids, amounts, dates, constraints, names), the calls "
               "made per tool, the files read, the last call, and what is still open.")
_PREVIOUS, _MESSAGES = "Previous summary:", "Messages to fold:"


@dataclass(frozen=True)
class CompactInLoop:
    """When to compact: past ``trigger`` (tokens, int >= 0), keeping the newest
    ``keep_recent`` messages (int >= 0; more when the cut moves back to a call).
    ``cached`` (bool): the summariser's request is the agent's own request with the
    instruction appended (:func:`fold_request`), so a provider reads its prefix from the
    prompt cache, as a server-side compaction does; else (the default) it is a prompt of
    its own, billed at the uncached price. Raises TypeError/ValueError naming a bad
    option."""

    trigger: int = 150_000
    keep_recent: int = 10
    cached: bool = False

    def __post_init__(self) -> None:
        check_int("trigger", self.trigger, 0)
        check_int("keep_recent", self.keep_recent, 0)
        if not isinstance(self.cached, bool):
            raise TypeError(f"cached must be a bool, got {self.cached!r:.60}")


@dataclass(frozen=True)
class Compacted:
    """One computed compaction: the new ``summary`` text, the ``kept`` messages (the live
    question first when it was older than the cut), ``folded`` (messages folded), ``by``
    ("model" or "fallback"), ``repaired`` (facts put back by the fact check) and
    ``requests`` (every user message folded so far, verbatim: the fact check's sources)."""

    summary: str
    kept: list
    folded: int
    by: str
    repaired: tuple = ()
    requests: tuple = ()


def split_pairs(turns: Sequence[Message], keep_recent: int) -> tuple[list[Message], list[Message]]:
    """``(old, kept)``: the newest ``keep_recent`` messages are kept, the cut moved back
    while it would keep a tool result without its call; the newest user message (the live
    question) is kept too, first, when it was older than the cut. New lists."""
    cut = max(0, len(turns) - keep_recent)
    while 0 < cut < len(turns) and turns[cut].role == "tool":
        cut -= 1
    question = max((i for i, m in enumerate(turns) if m.role == "user"), default=None)
    old, kept = list(turns[:cut]), list(turns[cut:])
    if question is not None and question < cut:
        kept.insert(0, old.pop(question))
    return old, kept


def _calls(line: str) -> tuple[str, str]:
    """``("name", "-> call ...")`` of a ``"  -> call id: name(args)"`` line."""
    call = line.strip()
    rest = call.partition(": ")[2]
    return rest.partition("(")[0], call


def task_state(previous: str, transcript: str) -> str:
    """The rule-based task state (the fallback): from the ``previous`` summary and the
    folded messages' ``transcript`` (:func:`kit.messages.render` lines), a summary that
    starts with :data:`~kit.agent.loop.SUMMARY_HEAD`. Linear in the texts' length."""
    requests, counts, files, last = [], Counter(), {}, ""   # requests: lists of parts
    for line in previous.split("\n"):
        if line.startswith("- request: "):
            requests.append([line[len("- request: "):]])
        elif line.startswith("calls: ") and line != "calls: none":
            for item in line[len("calls: "):].split(", "):
                name, _, number = item.rpartition(" ")
                ok = number.isascii() and number.isdigit() and len(number) < 10
                counts[name] += int(number) if ok else 0
        elif line.startswith("files read: ") and line != "files read: none":
            files.update(dict.fromkeys(line[len("files read: "):].split(", ")))
        elif line.startswith("last call: "):
            last = line[len("last call: "):]
    role = ""
    for line in transcript.split("\n"):
        if line.startswith("  -> call "):
            name, last = _calls(line)
            counts[name] += 1
            path = last.partition('"path": "')[2].partition('"')[0]
            if path:
                files[path] = None
        elif line.startswith("  ") and role == "user":
            requests[-1].append(line.strip())
        else:
            role = line.partition(":")[0]
            if role == "user":
                requests.append([line[len("user: "):]])
    return "\n".join([f"{SUMMARY_HEAD} (goal and requests verbatim, then what was done):",
                      *(f"- request: {' '.join(r)}" for r in requests),
                      f"calls: {', '.join(f'{n} {c}' for n, c in counts.items()) or 'none'}",
                      f"files read: {', '.join(files) or 'none'}",
                      f"last call: {last or 'none'}",
                      "open: finish the task; earlier results are not kept (call the tool "
                      "again to see one)"])


def fold_request(messages: Sequence[dict], keep_recent: int) -> list[dict]:
    """The request a cached summariser is sent (chat dicts): the agent's request as it
    stands (``messages``) and one user message asking for the task state of all but the
    newest ``keep_recent`` messages. Its prefix is the agent's last request, so a prompt
    cache reads it; only the messages added since and the instruction are new. A new list."""
    ask = (f"{TASK_PROMPT} Fold everything above except the newest {keep_recent} messages; "
           f"reply with the summary only.")
    return [*messages, {"role": "user", "content": ask}]


def _prompt(previous: str, old: Sequence[Message]) -> str:
    return f"{TASK_PROMPT}\n\n{_PREVIOUS}\n{previous}\n\n{_MESSAGES}\n{render(list(old))}"


class TaskStateModel:
    """A stub summariser: answers a compaction prompt with :func:`task_state` of the
    previous summary and the messages in it. ``calls`` counts the calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, prompt: str) -> str:
        self.calls += 1
        head, _, transcript = prompt.partition(f"\n\n{_MESSAGES}\n")
        return task_state(head.partition(f"{_PREVIOUS}\n")[2], transcript)


def _checked(summary: str, sources: list[str]) -> tuple[str | None, tuple]:
    """The fact check: (summary, ()) if it keeps every fact; repaired if it keeps most;
    (None, ()) if fewer than half."""
    missing, needed = missing_facts(sources, summary)
    if not missing:
        return summary, ()
    if len(missing) > needed * (1 - MOST):
        return None, ()
    return repair(summary, sources, missing), tuple(missing)


def compact_turns(previous: str, turns: Sequence[Message], keep_recent: int,
                  summariser: Callable[[str], object], requests: Sequence[str] = ()
                  ) -> Compacted | None:
    """Compute one compaction (nothing is changed): None if nothing is old enough to fold;
    else the :class:`Compacted` state. ``requests``: the user messages folded by earlier
    compactions. The ``summariser`` (``str -> str``) is called once; its summary must keep
    the facts of every folded user message (the task's facts; the summary's own counts
    are not facts): if it raises, returns a non-str or empty reply, a reply no shorter (in
    characters) than the previous summary and the folded messages together (not a
    summary: each fold would grow the context), or loses most facts, the rule-based :func:`task_state` writes the summary (``by="fallback"``). A summary
    not starting with :data:`~kit.agent.loop.SUMMARY_HEAD` gets it as its first line."""
    old, kept = split_pairs(turns, keep_recent)
    if not old:
        return None
    sources = [*requests, *(m.content for m in old if m.role == "user")]
    summary, repaired, by = None, (), "model"
    folded = len(previous) + len(render(old))      # characters the summary replaces
    try:
        reply = summariser(_prompt(previous, old))
        if isinstance(reply, str) and 0 < len(reply.strip()) < folded:
            summary, repaired = _checked(reply.strip(), sources)
    except Exception:                    # noqa: BLE001 (any model failure: the fallback)
        summary = None
    if summary is None:
        by = "fallback"
        summary, repaired = _checked(task_state(previous, render(old)), sources)
        summary = summary or repair(task_state(previous, render(old)), sources,
                                    missing_facts(sources, "")[0])
    if not summary.startswith(SUMMARY_HEAD):
        summary = f"{SUMMARY_HEAD}:\n{summary}"
    return Compacted(summary, kept, len(old), by, repaired, tuple(sources))
