"""The learner protocol: all a whole-mechanism checker observes of a learner's memory.

A learner's memory is any object (any class, any design) with:

- ``add(role, content)``: role ``"user"`` or ``"assistant"``, content a str;
- ``context() -> str``: the text the model would get;
- ``messages() -> list[dict]``: the same as chat messages, ``{"role", "content"}``;
- ``size -> int`` (a property or attribute): the texts of the messages and the summary
  it holds, in the unit of the measure it was given (labels and titles not counted).

Besides these, a checker sees only what it passes in: the measure (wrapped in a
:class:`~kit.tokens.CallCounter`), the summariser or model (scripted, counted, failing
on seeded calls) and the clock. So a learner's own design passes when it behaves right.
A summariser's exception must propagate out of ``add`` (the learner's class may wrap it),
with nothing lost. Helpers here build the learner's object and read its state through
:func:`kit.checks.call_learner`, so a crash in the learner's code becomes a
:class:`~kit.checks.CheckFailed` naming the call.
"""
from __future__ import annotations

import copy
import inspect

from kit.checks import CheckFailed, call_learner, expect

__all__ = ["PROTOCOL", "build", "add", "state", "size_of", "check_copies", "CheckerClock"]

PROTOCOL = ("add", "context", "messages", "size")


class CheckerClock:
    """The clock a checker passes in: returns ``now`` (seconds), which the checker
    sets; ``calls`` counts the reads (a learner's code that never reads it is told)."""

    def __init__(self) -> None:
        self.now, self.calls = 0.0, 0

    def __call__(self) -> float:
        self.calls += 1
        return self.now


def build(cls: object, *args, name: str, shown: str | None = None):
    """``cls(*args)``, checked to follow the protocol (and its ``size`` read once, as
    :func:`size_of` does). Raises CheckFailed naming what is missing (a method or
    ``size``), a ``size`` not written yet or not an int, or the call that raised."""
    expect(callable(cls), f"{name} should be a class, got {cls!r:.80}")
    memory = call_learner(cls, *args, name=name, shown=shown)
    missing = []
    for attr in PROTOCOL:     # looked up without running a property (size calls nothing)
        try:
            inspect.getattr_static(memory, attr)
        except AttributeError:
            missing.append(attr)
    expect(not missing, f"{name}(...) has no {', '.join(missing)}: a memory needs "
                        f"add(role, content), context(), messages() and size")
    size_of(memory, name)                     # a new memory must report its size too
    return memory


def add(memory: object, role: str, content: str, *, name: str,
        expected: tuple[type[BaseException], ...] = ()) -> None:
    """``memory.add(role, content)``; exceptions as :func:`kit.checks.call_learner`."""
    call_learner(memory.add, role, content, name=f"{name}.add",
                 shown=f"{name}.add({role!r}, {content!r:.60})", expected=expected)


def size_of(memory: object, name: str) -> int:
    """``memory.size`` (read as an attribute or property), checked to be an int."""
    try:
        size = memory.size
    except NotImplementedError as exc:
        raise CheckFailed(f"{name}.size is not written yet") from exc
    except Exception as exc:
        raise CheckFailed(f"reading {name}.size raised {type(exc).__name__}: {exc}") from exc
    if callable(size):
        raise CheckFailed(f"{name}.size is a method; make it a property (@property) or an "
                          f"attribute, so memory.size is an int")
    expect(isinstance(size, int) and not isinstance(size, bool),
           f"{name}.size should be an int, got {type(size).__name__}: {size!r:.60}")
    return size


def state(memory: object, name: str) -> tuple[str, list[dict], int]:
    """``(context(), messages(), size)``, each checked for its type; a deep copy, so a
    later change to the memory cannot alter it."""
    context = call_learner(memory.context, name=f"{name}.context", shown=f"{name}.context()")
    expect(isinstance(context, str),
           f"{name}.context() should return a str, got {type(context).__name__}")
    messages = call_learner(memory.messages, name=f"{name}.messages",
                            shown=f"{name}.messages()")
    expect(isinstance(messages, list) and all(isinstance(m, dict) for m in messages),
           f"{name}.messages() should return a list of dicts, got {messages!r:.80}")
    return context, copy.deepcopy(messages), size_of(memory, name)


def check_copies(memory: object, name: str, where: str) -> int:
    """``messages()`` returns a new list of new dicts: clearing the list it returned, or
    editing one of its dicts, must not change what the next call returns. Raises
    CheckFailed naming which (and ``where``: the case); returns 2 (the checks made)."""
    shown = f"{where}: {name}.messages()"
    first = call_learner(memory.messages, name=f"{name}.messages", shown=shown)
    kept = copy.deepcopy(first)
    first.clear()
    again = call_learner(memory.messages, name=f"{name}.messages", shown=shown)
    expect(again == kept,
           f"{where}: after the caller cleared the list {name}.messages() returned, "
           f"messages() gave {again!r:.80} instead of the {len(kept)} messages. Why: a "
           f"caller that edits the request it sends (adds the question, trims it) would "
           f"change the memory. Hint: {name}.messages() returned its own list; return a new "
           f"list on every call (a list comprehension or list(...)).")
    for message in again:
        if isinstance(message, dict):
            message["content"] = "edited by the caller"
    third = call_learner(memory.messages, name=f"{name}.messages", shown=shown)
    expect(third == kept,
           f"{where}: after the caller edited the dicts {name}.messages() returned, "
           f"messages() gave {third!r:.80} instead of the {len(kept)} messages as they were. "
           f"Why: a caller that redacts or trims a message it got would rewrite the memory. "
           f"Hint: messages() returned the dicts it keeps: build new dicts on every call "
           f"({{'role': ..., 'content': ...}} in a list comprehension).")
    return 2
