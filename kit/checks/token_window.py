"""Checker for lesson 02's whole-mechanism exercise: a token window class, end to end.

The exercise: write a class (``BudgetWindow`` in the lesson; any name, any design) that
keeps the newest messages of a conversation within a token budget. The checker builds
it as ``cls(budget, measure)`` or ``cls(budget, measure, system)`` and observes only the
learner protocol (:mod:`kit.checks.protocol`):

- ``budget``: an int > 0, in the measure's unit. ``measure``: ``str -> int``; the
  checker passes :func:`kit.tokens.count_words` wrapped in a
  :class:`~kit.tokens.CallCounter`, so every size here is in words. ``system``: a system
  prompt (str) or None.
- ``add(role, content)``: role ``"user"`` or ``"assistant"``, content a str.
- ``context() -> str``: holds the system prompt and exactly the kept messages' texts,
  oldest first. The layout (labels, separators) is up to the learner.
- ``messages() -> list[dict]``: ``{"role": "system", "content": system}`` first when
  there is a system prompt, then the kept messages as ``{"role", "content"}``, oldest
  first; a new list of new dicts on every call (the checker clears the list and edits
  the dicts it got, then reads again).
- ``size -> int`` (property or attribute): the system prompt plus the kept messages'
  texts, in the measure's unit; role labels are not counted (DECISIONS §1, the default).

The rules are those of :class:`kit.memory.TokenWindow`, which the checker runs on the
same input as the reference (its ``messages()`` and ``size``):

1. The system prompt is pinned (never evicted) and counts against the budget.
2. After appending a message, evict the oldest while the size is over the budget (a
   total equal to the budget fits), so ``size <= budget`` after every add.
3. Once the window has slid (something was evicted, now or earlier) it never starts
   with an assistant reply that a user message follows
   (:func:`kit.memory.window.orphan_reply`): evict such replies too, as many as there
   are, on every add once it has slid (also on an add that evicts nothing). An opening
   assistant greeting stays until the window first slides; replies that no user message
   follows stay.
4. A message bigger than what the system prompt leaves (``budget`` minus its size)
   raises ValueError and changes nothing: ``context()``, ``messages()`` and ``size``
   are as before, and the adds after it behave as if it never came (it takes no
   message number: a greeting after a refusal is still the opening greeting).
5. Count once: the measure is called once for the system prompt and once per ``add``
   (on the new text, a refused one included); ``context()``, ``messages()`` and
   ``size`` never call it. Calls per add stay flat: over 1,000 adds at most 1.1 times
   the calls per add of the first 10.

:func:`check_token_window` prints one pass line or raises
:class:`~kit.checks.CheckFailed` naming the case, what was expected, what came back,
why it matters and a hint. Deterministic (a seeded conversation), offline, < 1 s.

It runs four parts, one per rubric category of the drill ``token-window``
(:data:`RUBRIC`; each returns the cases it passed): correctness (the spec's cases),
edge cases (system prompt, orphans, greeting, exact fits, replies kept then a question
that evicts nothing), failure safety (refusals, a refusal before the greeting or between
the slide and the question, ``messages()`` not aliased, the long seeded chat) and
complexity (rule 5). A failure names a registered mistake only when that mistake gives
the same outputs (:mod:`kit.checks.hints`), else the rule it breaks (:data:`RULES`).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from kit.checks import CheckFailed, call_learner, expect, passed
from kit.checks.hints import judge, judged
from kit.checks.protocol import build, check_copies, state
from kit.memory import TokenWindow
from kit.memory.window import orphan_reply
from kit.messages import Message, span
from kit.tokens import CallCounter, count_words

__all__ = ["check_token_window", "check_token_window_correctness",
           "check_token_window_failure_safety", "check_token_window_edge_cases",
           "check_token_window_complexity", "PARTS", "RUBRIC", "CASES", "Case"]

_FILLER = ("tea", "cake", "jam", "bread", "rice", "fig", "plum", "oat", "nut", "bun")
_SYSTEM_WORDS = "Be brief and kind to every customer of the snack shop".split()
_TAG = re.compile(r"\bm\d{2,4}\b")     # each message's text starts with its tag, m01 ...
_SEED = 2
MECHANISM = "token window"              # its wrong answers in kit.mistakes
_FLAT = 1.1                             # calls per add may grow by at most 10 %


@dataclass(frozen=True)
class Case:
    """One conversation: ``budget`` and ``system`` (words of the system prompt, 0 for
    none) in words; ``turns``: ``(role, words)`` pairs, oldest first."""

    name: str
    budget: int
    system: int
    turns: tuple[tuple[str, int], ...]


def _turns(spec: str) -> tuple[tuple[str, int], ...]:
    """"u4 a4 u11" -> (("user", 4), ("assistant", 4), ("user", 11))."""
    roles = {"u": "user", "a": "assistant"}
    return tuple((roles[item[0]], int(item[1:])) for item in spec.split())


def _long_case() -> Case:
    """A seeded 60-message chat: sizes 1-9 words, now and then a reply or question
    twice in a row, and three messages too big for what the system prompt leaves."""
    rng = random.Random(_SEED)
    turns, role = [], "user"
    for number in range(1, 61):
        size = 23 if number in (17, 33, 50) else rng.randint(1, 9)
        turns.append((role, size))
        if rng.random() > 0.15:
            role = "assistant" if role == "user" else "user"
    return Case("a long conversation", 25, 3, tuple(turns))


CASES: list[Case] = [
    Case("nothing to evict", 30, 3, _turns("u5 a5 u5 a5")),
    Case("the window slides", 12, 0, _turns("u4 a4 u4 a4 u4 a4")),
    Case("the system prompt counts", 16, 4, _turns("u4 a4 u4 a4")),
    Case("two orphaned replies", 12, 0, _turns("u6 a2 a2 u4")),
    Case("an opening greeting", 14, 0, _turns("a4 u4 a4 u4 a4")),
    Case("replies no user message follows", 9, 0, _turns("u6 a3 a3")),
    Case("a message bigger than the budget leaves", 12, 2, _turns("u4 a4 u11 u10")),
    Case("replies kept, then a question", 12, 0, _turns("u5 a5 a5 u2")),
    Case("a refusal, then a greeting", 12, 0, _turns("u13 a4 u4 a4 u4")),
    Case("replies kept, a refusal, a question", 12, 0, _turns("u5 a5 a5 u13 u2")),
    _long_case(),
]


def _text(number: int, words: int) -> str:
    """Message ``number``'s text: its tag (``m07``), then filler, ``words`` words in all."""
    return " ".join([f"m{number:02d}"] + [_FILLER[(number + i) % len(_FILLER)]
                                          for i in range(words - 1)])


def _system(words: int) -> str | None:
    return " ".join(_SYSTEM_WORDS[:words]) + "." if words else None


def _label(case: Case, name: str) -> str:
    system = f"a {case.system}-word system prompt" if case.system else "no system prompt"
    roles = " ".join(f"{role[0]}{words}" for role, words in case.turns)
    shown = roles if len(roles) <= 60 else roles[:57] + "..."
    return (f'{name}, case "{case.name}" (budget {case.budget} words, {system}; messages '
            f'{shown})')


# -- describing what came back -----------------------------------------------------
def _pairs(messages: list[dict]) -> list[tuple[object, object]]:
    return [(m.get("role"), m.get("content")) for m in messages]


def _describe(pairs: list[tuple], numbers: dict[str, int], system: str | None) -> str:
    """``the system prompt and messages 3-4 (u a)``, or the raw list when it is not
    made of the case's texts."""
    head = "the system prompt" if pairs[:1] == [("system", system)] else ""
    turns = pairs[1:] if head else pairs
    if all(role in ("user", "assistant") and isinstance(content, str) and content in numbers
           for role, content in turns):
        if not turns:
            return f"only {head}" if head else "no messages"
        kept = [numbers[content] for _, content in turns]
        roles = " ".join(role[0] for role, _ in turns)
        body = f"message{'s' * (len(kept) > 1)} {span(kept)} ({roles})"
        return f"{head} and {body}" if head else body
    return f"{[{'role': r, 'content': c} for r, c in pairs]!r:.160}"


def _words(pairs: list[tuple]) -> int:
    return sum(count_words(c) for r, c in pairs if r != "system" and isinstance(c, str))


# -- naming the mistake behind a wrong window ----------------------------------------
_ORPHAN_WHY = ("a reply whose question has left the window answers nothing the model can "
               "see: it may take it for its own unprompted claim, and some chat APIs refuse "
               "a conversation whose first turn is the assistant's")
_OVER_WHY = ("the budget is what the model can take (and what you pay per call): a window "
             "over it fails or costs more on every call")


def _window_hint(got: list[tuple], want: list[tuple], before: list[tuple], case: Case,
                 numbers: dict[str, int], text_words: dict[str, int]) -> tuple[str, str]:
    """(why, hint) for a learner window ``got`` where the kit keeps ``want``; ``before``
    is the kit's window before this add, plus the new message."""
    system = _system(case.system)
    if system and got[:1] != [("system", system)]:
        return ("messages() is what a chat API receives, and the instructions travel with it",
                "messages() should start with the system prompt, {'role': 'system', "
                "'content': system}, then the kept messages")
    turns, wanted = [p for p in got if p[0] != "system"], want[1:] if system else want
    if any(not isinstance(c, str) or c not in numbers or r not in ("user", "assistant")
           for r, c in turns):
        return ("the checker compares the kept messages with the kit's TokenWindow",
                "messages() should hold the kept messages unchanged, as {'role': ..., "
                "'content': ...} dicts with the role and text given to add, oldest first")
    got_n, want_n = [numbers[c] for _, c in turns], [numbers[c] for _, c in wanted]
    if got_n == want_n:
        return ("each message keeps the role it was added with",
                "keep each message's role next to its text")
    total = case.system + _words(turns)
    if set(want_n) < set(got_n):                       # the learner kept more
        if total > case.budget:
            if case.system and _words(turns) <= case.budget:
                return (_OVER_WHY + "; the system prompt is sent on every call, so it uses "
                        "the budget too",
                        f"count the system prompt against the budget: {case.system} + "
                        f"{_words(turns)} = {total} words is over {case.budget}, so evict "
                        f"while system prompt + messages > budget")
            if len(wanted) == 1 and got == before:
                return (_OVER_WHY,
                        f"nothing was evicted although only the new message fits ({total} "
                        f"words > {case.budget}). If you keep the newest k messages with "
                        f"turns[-k:], note that k = 0 keeps the whole list: turns[-0:] is "
                        f"turns, not []")
            return (_OVER_WHY,
                    f"{total} words is over the budget of {case.budget}: the window keeps "
                    f"one message too many. Append the new message first, then evict the "
                    f"oldest while the total, system prompt and new message included, is "
                    f"over the budget")
        first = turns[0]
        if orphan_reply([Message(r, c, 0) for r, c in turns]):
            previous = [p for p in before if p[0] != "system" and numbers[p[1]] == got_n[0] - 1]
            if (previous and previous[0][0] == "assistant"
                    and total + text_words[previous[0][1]] <= case.budget):
                return (_ORPHAN_WHY,
                        "the window still starts with a reply whose question has left: keep "
                        "dropping leading replies while a user message follows them (a "
                        "while, not an if)")
            return (_ORPHAN_WHY,
                    f"message {numbers[first[1]]} is a reply whose question has left the "
                    f"window: once the window has slid, drop that reply too (while it starts "
                    f"with an assistant message and a user message follows)")
        return ("the kept messages must be what the kit's TokenWindow keeps",
                "evict the oldest while over the budget, then the replies whose question "
                "has left; nothing else")
    if set(got_n) < set(want_n):                       # the learner kept fewer
        first = wanted[0]
        if numbers[first[1]] == 1 and first[0] == "assistant" and got_n == want_n[1:]:
            return ("nothing was evicted yet, so the opening greeting answers no lost "
                    "question: it is no orphan, and the user's reply refers to it",
                    "an opening assistant greeting stays until the window first slides: "
                    "drop a leading reply only after something was evicted")
        if case.system + _words(wanted) == case.budget:
            return ("the budget is a limit the window may reach; every message evicted "
                    "early is context the model loses for nothing",
                    f"a total equal to the budget fits ({case.budget} words here): evict "
                    f"while the size is over the budget (>), not when it reaches it (>=)")
        if first[0] == "assistant" and not any(r == "user" for r, _ in wanted):
            return ("a reply is an orphan only when a question after it shows the model "
                    "that its own question is gone; dropping more empties the window",
                    "drop a leading reply only when a user message follows it: here none "
                    "does, so keep the replies")
        return ("every message evicted early is context the model loses for nothing",
                "evict the oldest only while the total is over the budget, then only "
                "the replies whose question has left")
    return ("the kept messages must be a contiguous run of the newest",
            "keep the newest messages that fit, oldest first, as a contiguous run "
            "(never skip one to keep an older one)")


def _size_hint(got: int, want: int, pairs: list[tuple], case: Case) -> str:
    turns = sum(1 for r, _ in pairs if r != "system")
    if got - want in (turns, turns + (1 if case.system else 0)) and got > want:
        return ("size counts the role labels: measure each message's text only "
                "(measure(content), not measure(f'{role}: {content}'))")
    if case.system and want - got == case.system:
        return "size should include the system prompt: system prompt + kept messages"
    return ("size is the system prompt plus the kept messages' texts, in the measure's "
            "unit: keep a running total of the sizes measured on add")


def _build(cls: object, *args, name: str, shown: str):
    """:func:`kit.checks.protocol.build`, also when reading a ``size`` property raises
    (``hasattr`` there runs the property: a stub's NotImplementedError, say)."""
    try:
        return build(cls, *args, name=name, shown=shown)
    except NotImplementedError as exc:
        raise CheckFailed(f"{name}.size is not written yet: replace the `raise "
                          f"NotImplementedError` line with your answer") from exc
    except CheckFailed:
        raise
    except Exception as exc:
        raise CheckFailed(f"{shown}: reading size raised {type(exc).__name__}: {exc}. "
                          f"Hint: size should work from the start (0 messages).") from exc


def _observe(memory: object, name: str, where: str) -> tuple[str, list[dict], int]:
    """:func:`kit.checks.protocol.state`, with ``where`` (the case) in front of any failure."""
    try:
        return state(memory, name)
    except CheckFailed as exc:
        raise CheckFailed(f"{where}: {exc}") from exc.__cause__


def _compare(memory: object, ref: TokenWindow, case: Case, name: str, step: str,
             before: list[tuple], numbers: dict[str, int], text_words: dict[str, int]) -> None:
    """Raise CheckFailed unless the learner's state matches the kit's."""
    where = f"{_label(case, name)}, {step}"
    context, messages, size = _observe(memory, name, where)
    got, want = _pairs(messages), _pairs(ref.messages())
    system = _system(case.system)
    if got != want:
        why, hint = _window_hint(got, want, before, case, numbers, text_words)
        raise CheckFailed(f"{where}: messages() should be {_describe(want, numbers, system)}, "
                          f"got {_describe(got, numbers, system)}. Why: {why}. Hint: {hint}.")
    if size != ref.size:
        raise CheckFailed(
            f"{where}: size should be {ref.size} words, got {size}. Why: the size is what "
            f"the window compares with the budget, so a wrong size evicts the wrong "
            f"messages. Hint: {_size_hint(size, ref.size, got, case)}.")
    if system and system not in context:
        raise CheckFailed(f"{where}: context() should hold the system prompt {system!r}, got "
                          f"{context!r:.120}. Why: the system prompt is pinned: the model "
                          f"gets it on every call. Hint: put it at the top of context().")
    kept = [c for r, c in want if r != "system"]
    tags = [_TAG.search(c).group() for c in kept]
    if _TAG.findall(context) != tags or not all(c in context for c in kept):
        raise CheckFailed(
            f"{where}: context() should hold the texts of {_describe(want, numbers, system)}, "
            f"in that order and nothing else, got {context!r:.160}. Why: context() is the "
            f"text the model receives, so it must be what messages() holds. Hint: build "
            f"context() from the same kept messages as messages(), one text each, oldest "
            f"first.")


# -- running the cases -------------------------------------------------------------
def _add(memory: object, role: str, content: str, name: str, fits: bool, room: int,
         where: str) -> bool:
    """``memory.add(role, content)``; True if it raised ValueError."""
    hint = (f"a message that fits what the system prompt leaves ({room} words, exactly "
            f"{room} included) must be accepted" if fits else
            f"this message is bigger than the {room} words the system prompt leaves: it "
            f"should raise ValueError, before anything changes")
    try:
        call_learner(memory.add, role, content, name=f"{name}.add", hint=hint,
                     shown=f"{where}: {name}.add({role!r}, {content!r:.40})",
                     expected=() if fits else (ValueError,))
    except ValueError:
        return True
    return False


def _run_case(cls: object, case: Case, name: str) -> tuple[object, int]:
    """Replay ``case`` into the learner's class and the kit's; compare after every add.
    Returns the learner's memory and the number of states compared."""
    system = _system(case.system)
    texts = [_text(i, words) for i, (_, words) in enumerate(case.turns, 1)]
    numbers = {text: i for i, text in enumerate(texts, 1)}
    text_words = {text: count_words(text) for text in texts}
    args = (case.budget, CallCounter(count_words)) + ((system,) if system else ())
    shown = f"{name}({case.budget}, words{', ' + repr(system) if system else ''})"
    memory = _build(cls, *args, name=name, shown=shown)
    ref = TokenWindow(case.budget, count_words, system)
    room = case.budget - case.system
    label = _label(case, name)
    compared = 0
    for number, ((role, words), text) in enumerate(zip(case.turns, texts), 1):
        before = _pairs(ref.messages())
        step = f"after adding message {number} ({role}, {words} words)"
        try:
            ref.add(role, text)
        except ValueError:
            held = _observe(memory, name, label)
            if not _add(memory, role, text, name, False, room, label):
                context, messages, size = _observe(memory, name, label)
                raise CheckFailed(
                    f"{label}: adding message {number} ({role}, {words} words) "
                    f"should raise ValueError, got no error (now "
                    f"{_describe(_pairs(messages), numbers, system)}, {size} words). Why: it "
                    f"is bigger than the {room} words the system prompt leaves, so it can "
                    f"never fit; keeping it breaks the budget and evicting to make room "
                    f"loses the conversation for nothing. Hint: measure it first and raise "
                    f"ValueError before changing anything when it is over budget - system "
                    f"prompt.")
            after = _observe(memory, name, label)
            if after != held:
                raise CheckFailed(
                    f"{label}: the refused message {number} ({words} words) "
                    f"should leave the memory as it was, "
                    f"{_describe(_pairs(held[1]), numbers, system)} and {held[2]} words, got "
                    f"{_describe(_pairs(after[1]), numbers, system)} and {after[2]} words. "
                    f"Why: a refused add must change nothing, so the caller can split or "
                    f"summarise the message and try again. Hint: check the size before you "
                    f"evict or append; raise first, change the state after.")
            step = f"after refusing message {number} ({role}, {words} words)"
        else:
            _add(memory, role, text, name, True, room, label)
            before = before + [(role, text)]
        _compare(memory, ref, case, name, step, before, numbers, text_words)
        compared += 1
    return memory, compared


def _check_counting(cls: object, name: str) -> None:
    """Flat calls per add; exactly once per message and once for the system prompt;
    no calls on reading; the same final window as the kit after 1,000 adds."""
    rng = random.Random(_SEED + 1)
    texts = [_text(i, rng.randint(2, 8)) for i in range(1, 1001)]
    roles = ["user" if i % 2 == 0 else "assistant" for i in range(1000)]
    system, budget = _system(3), 400
    counter = CallCounter(count_words)
    # call_learner, not build: build's hasattr(memory, "size") would read size once
    memory = call_learner(cls, budget, counter, system, name=name,
                          shown=f"{name}({budget}, CallCounter(words), {system!r})")
    where = f"{name}({budget} words, a 3-word system prompt) with a counting measure"
    calls = []
    for number, (role, text) in enumerate(zip(roles, texts), 1):
        call_learner(memory.add, role, text, name=f"{name}.add",
                     shown=f"{where}, message {number}: {name}.add({role!r}, {text!r:.40})")
        if number in (10, 1000):
            calls.append(counter.calls)
    c10, c1000 = calls
    if c1000 / 1000 > _FLAT * c10 / 10:
        raise CheckFailed(
            f"{where}: the measure should be called about as often per add after 1,000 adds "
            f"as over the first 10, got {c10 / 10:.1f} calls per add over the first 10 and "
            f"{c1000 / 1000:.1f} over 1,000 ({c1000} calls): the calls per add grew with the "
            f"window. Why: measuring every kept message again on each add makes each add "
            f"slower as the window (or the whole conversation) grows: quadratic work over a "
            f"chat, and a real tokenizer is slow. Hint: measure each message once, when it is "
            f"added; keep its size next to it and a running total (add it on append, "
            f"subtract it on eviction).")
    twice = " (each message measured twice?)" if c10 == 21 else ""
    expect(c10 == 11 and c1000 == 1001,
           f"{where}: the measure should be called 11 times for 10 adds and 1001 times for "
           f"1,000 adds (once per message, once for the system prompt), got {c10} and "
           f"{c1000}{twice}. Why: every call to a real tokenizer costs time; the rule is "
           f"one call per message. Hint: measure each message once, when it is added (a "
           f"refused one too), and the system prompt once; keep the numbers instead of "
           f"measuring again.")
    held = counter.calls
    _observe(memory, name, where)
    _observe(memory, name, where)
    expect(counter.calls == held,
           f"{where}: reading size, context() and messages() twice should not call the "
           f"measure, got {counter.calls - held} calls. Why: the context is read before every "
           f"model call, so a size that recounts costs a tokenizer pass over the window each "
           f"time. Hint: size, context() and messages() should use the sizes measured on "
           f"add (a running total), never call the measure.")
    ref = TokenWindow(budget, count_words, system)
    for role, text in zip(roles, texts):
        ref.add(role, text)
    _, messages, size = _observe(memory, name, where)
    expect(_pairs(messages) == _pairs(ref.messages()) and size == ref.size,
           f"{where}: after 1,000 adds messages() should hold the system prompt and "
           f"{len(ref.turns)} messages ({ref.size} words), got {len(messages)} entries and "
           f"{size} words. Why: the window must stay right however long the chat. Hint: "
           f"keep the same rules on every add: evict while over budget, then orphans.")


# -- the parts: one per rubric category of the drill token-window --------------------
CORRECTNESS = ("nothing to evict", "the window slides")
EDGE_CASES = ("the system prompt counts", "two orphaned replies", "an opening greeting",
              "replies no user message follows", "replies kept, then a question")
FAILURE_SAFETY = ("a message bigger than the budget leaves", "a refusal, then a greeting",
                  "replies kept, a refusal, a question", "a long conversation")


def _cases(names: tuple[str, ...]) -> list[Case]:
    return [case for case in CASES if case.name in names]


def _replay(cls: object, names: tuple[str, ...], aliasing: bool = False) -> int:
    """Replay the cases called ``names`` (and check after the first one that
    ``messages()`` returns a new list); the number of cases passed."""
    name = getattr(cls, "__name__", "your class")
    cases = 0
    for case in _cases(names):
        memory, compared = _run_case(cls, case, name)
        cases += compared
        if aliasing and case.name == names[0]:
            check_copies(memory, name, _label(case, name))
            cases += 1
    return cases


def check_token_window_correctness(cls: object) -> int:
    """The spec's cases, add by add against :class:`kit.memory.TokenWindow`
    (``messages()``, ``size`` and ``context()`` after every add): "nothing to evict" and
    "the window slides" (the oldest question and its reply leave together). Returns the
    states compared; raises CheckFailed at the first difference."""
    return _replay(cls, CORRECTNESS)


def check_token_window_failure_safety(cls: object) -> int:
    """Refusals: a message bigger than what the system prompt leaves raises ValueError and
    changes nothing (one of exactly that size is then accepted); ``messages()`` returns a
    new list, so a caller editing it cannot change the memory; the seeded 60-message "a
    long conversation" (three refusals, orphans, double turns) stays the kit's window."""
    return _replay(cls, FAILURE_SAFETY, aliasing=True)


def check_token_window_edge_cases(cls: object) -> int:
    """The boundaries, against the kit: the system prompt counted against the budget (and
    a total equal to the budget kept), two orphaned replies in a row, an opening greeting
    kept until the window first slides, replies that no user message follows (kept, at an
    exact fit). Returns the states compared."""
    return _replay(cls, EDGE_CASES)


def check_token_window_complexity(cls: object) -> int:
    """Counted measure calls over 1,000 adds: once per message and once for the system
    prompt, flat per add, none when reading ``size``, ``context()`` or ``messages()``;
    and the same final window as the kit. Returns 4 (the rules checked)."""
    _check_counting(cls, getattr(cls, "__name__", "your class"))
    return 4


#: The rule of the spec each kind of failure breaks: what a failure box states when no
#: registered mistake reproduces the learner's outputs (:mod:`kit.checks.hints`).
RULES = (
    (r"messages\(\) should be the system prompt.*, got (?!the system prompt)"
     r"|context\(\) should hold the system prompt",
     "rule 1: the system prompt is pinned, first in messages() and in context()"),
    (r"after the caller (cleared|edited)",
     "messages() returns a new list of new dicts on every call"),
    (r"should raise ValueError|the refused message",
     "rule 4: a message bigger than what the system prompt leaves (budget minus its size) "
     "raises ValueError and changes nothing"),
    (r"raised ValueError", "rule 4: a message that fits what the system prompt leaves, "
                           "exactly included, is accepted"),
    (r"messages\(\) should be",
     "rules 2 and 3: after each add, evict the oldest while system prompt + messages > "
     "budget (a total equal to the budget fits); whenever the window has slid (now or on an "
     "earlier add) drop leading replies that a user message follows; an opening greeting "
     "stays until the window first slides; a refused message leaves no trace"),
    (r"size should be", "size is the system prompt plus the kept messages' texts, in the "
                        "measure's unit (labels not counted)"),
    (r"context\(\) should", "context() holds the system prompt and exactly the kept "
                             "messages' texts, oldest first"),
    (r"measure", "rule 5: the measure is called once for the system prompt and once per add; "
                 "size, context() and messages() never call it"),
)
_judged = judged(MECHANISM, RULES)
check_token_window_correctness = _judged(check_token_window_correctness)
check_token_window_edge_cases = _judged(check_token_window_edge_cases)
check_token_window_failure_safety = _judged(check_token_window_failure_safety)
check_token_window_complexity = _judged(check_token_window_complexity)

#: The parts in the order :func:`check_token_window` runs them (the order of
#: :data:`CASES`, so the lesson's first failure stays the simplest case that shows it).
PARTS = (check_token_window_correctness, check_token_window_edge_cases,
         check_token_window_failure_safety, check_token_window_complexity)
RUBRIC = {"correctness": check_token_window_correctness,
          "failure safety": check_token_window_failure_safety,
          "edge cases": check_token_window_edge_cases,
          "complexity": check_token_window_complexity}


def check_token_window(cls: object) -> None:
    """Check a learner's token window class ``cls(budget, measure, system=None)``; print
    one pass line or raise CheckFailed.

    Runs the four parts of :data:`PARTS` (the rubric of the drill ``token-window``): each
    case of :data:`CASES` is replayed into ``cls`` and into :class:`kit.memory.TokenWindow`,
    comparing ``messages()``, ``size`` and ``context()`` after every add; ``messages()``
    must return a new list; then the measure's calls are counted over 1,000 adds.
    Rejects, among others: measuring every message again on each add, a size that
    recounts, the system prompt not counted, keeping one message too many or evicting
    at a total equal to the budget, keeping an orphaned reply (or dropping only one),
    dropping an opening greeting, accepting an oversized message or changing the state
    before refusing it, the ``turns[-0:]`` slice, returning the internal list, and
    counting role labels in ``size``.
    """
    passed("token window", judge(_all_parts, cls, MECHANISM, RULES))


def _all_parts(cls: object) -> int:
    """Every part, unjudged, in order: the cases passed."""
    return sum(part.raw(cls) for part in PARTS)
