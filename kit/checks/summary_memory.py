"""Checker for lesson 03's whole-mechanism exercise: a summary memory class, end to end.

:func:`check_summary_memory` takes the learner's class (any design) and builds it as
``cls(summariser, budget, keep_recent, measure)``, or ``cls(summariser, budget,
keep_recent, measure, system)`` in the case with a system prompt. It observes only the
learner protocol (:mod:`kit.checks.protocol`: ``add(role, content)``, ``context()``,
``messages()``, ``size``) and the summariser and measure it passes in.

What the class must do (the rules of :class:`kit.memory.SummaryMemory`):

- ``size`` (an int): system prompt + summary + verbatim turns, each text measured with
  the measure given, in its unit (role labels and titles not counted).
- After each add, if ``size > budget`` and something is older than the ``keep_recent``
  newest turns, one compaction: call the summariser once with
  ``build_summary_prompt(summary, old)`` (the previous summary and only the old turns,
  :class:`kit.messages.Message` objects; the checker's summarisers read that layout),
  then the reply is the new summary and the old turns are gone. The split is
  :func:`kit.memory.split_for_compaction`'s: a reply never loses its question,
  ``keep_recent=0`` folds everything. ``keep_recent`` wins over the budget: over budget
  with nothing older than the ``keep_recent`` newest turns, no call. ``keep_recent`` is
  an int >= 0, odd or even: the checker passes 0, 1, 2, 3 and 4. An odd one follows the
  same split (the kit's class accepts it): after a reply the split moves back to its
  question, so ``keep_recent + 1`` turns stay; an even one gives whole pairs after a reply.
- Compute first, then commit. If the summariser raises, the exception propagates out of
  ``add`` (as it is, or wrapped with it as the ``__cause__``) and nothing is lost: either
  the new message is kept and all else is unchanged (as the kit does), or the memory is
  exactly as before the add (the checker then adds the message again, as a caller
  would). The next compaction folds the larger span, from the same summary.
- ``messages()``: a new list of new dicts (the checker clears the list and edits the
  dicts it got, then reads again): first ``"system"`` messages (the system prompt, and the summary's text
  verbatim inside one of them), then the verbatim turns as ``{"role", "content"}`` dicts,
  oldest first. ``context()``: a str holding the system prompt, the summary and the
  verbatim turns' texts, in that order (any labels).

The check, in order (sizes in words, one case in characters):

(a) replay, add by add, against the kit's ``SummaryMemory`` with the same settings and
    the same stub summariser: the same summariser prompts at the same adds, then the
    same verbatim turns, summary and size. Cases: the laptop example (budget 20 words,
    ``keep_recent=2``: sizes 7, 11, 19, 26 words, one compaction at message 4, then 11
    summary + 15 verbatim words; also compared with :func:`kit.conversations.laptop_memory`),
    the laptop chat with budget 15 (nothing can be folded at message 3), shopping chats
    with ``keep_recent`` 4 and 0, one in characters with a system prompt, and two with an
    odd ``keep_recent`` (1 and 3, compactions after a reply and after a question).
(b) retention: after ``shopping_chat(50)`` with a fact-keeping stub, the order id, the
    allergy and the budget (:data:`kit.conversations.PLANTED_FACTS`) are in ``context()``.
(c) failures: 60 numbered shopping-chat messages (budget 40 words, ``keep_recent=2``,
    the fact-listing stub) with :class:`kit.llm.FailingLLM` failing on 9 of the first 28
    calls, picked by ``random.Random(3)``: the summariser's error propagates, the state rule above holds, every message
    is in the context exactly once after each successful add, and the first compaction
    after a failure starts from the same summary and folds at least the failed span.
(d) measure calls over ``shopping_chat(1000, seed=4)`` (budget 1,500 words,
    ``keep_recent=2``, a stub with a short summary: 5 compactions): the counted calls per
    add over all 1,000 adds must be at most 1.1 x max(1, those per add over the first
    10). *Counted*:
    every call of the measure made during ``add``, except calls on a text of a summariser
    call made in the same add (the prompt, the turns it folds: building the prompt from
    Message objects may measure them again) and on any summary the summariser returned.
    So measuring each message once, plus prompt building and summary measuring, passes;
    re-measuring the verbatim turns on every add does not. Then reading ``size``,
    ``context()`` and ``messages()`` twice makes no measure call at all.
(e) ``size`` is checked after every add of (a) against the kit's size (the summary and
    the system prompt counted), and after every successful add of (c) against
    measure(summary) + the verbatim texts.

The summariser calls over the chat of (d) must also be as many as the kit's.

Prints one pass line (:func:`kit.checks.passed`) or raises :class:`kit.checks.CheckFailed`
naming the case, what was expected, what came back, why it matters and a hint. The check
is four parts, one per rubric category of the drill ``summary-memory`` (:data:`RUBRIC`;
each returns the cases it passed): correctness ((a) on the laptop and shopping_chat(50),
(b), (e)), edge cases ((a) on the other replays: a reply kept with its question,
``keep_recent=0``, over budget with at most ``keep_recent`` turns, a system prompt in
characters, an odd ``keep_recent``), failure safety ((c), then ``messages()`` cleared and edited by the caller)
and complexity ((d) and the summariser calls). A failure names a registered mistake only
when that mistake gives the same outputs (:mod:`kit.checks.hints`), else the rule it
breaks (:data:`RULES`).
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from kit.checks import CheckFailed, Turns, as_messages, expect, passed
from kit.checks.hints import judge, judged
from kit.checks.protocol import add, build, check_copies, state
from kit.conversations import (LAPTOP_TURNS, PLANTED_FACTS, facts_in, laptop_memory,
                               shopping_chat)
from kit.llm import FailingLLM, fact_listing_summariser, prompt_following_summariser
from kit.memory import SummaryMemory, build_summary_prompt
from kit.messages import span
from kit.prompts import parse_summary_turns
from kit.tokens import CallCounter, Measure, count_characters, count_words, unit_of

__all__ = ["check_summary_memory", "check_summary_memory_correctness",
           "check_summary_memory_failure_safety", "check_summary_memory_edge_cases",
           "check_summary_memory_complexity", "PARTS", "RUBRIC"]

_NAME = "memory"
_FAIL_SEED = 3          # random.Random(3) picks the failing summariser calls of (c)


@dataclass
class _Call:
    """One summariser call: the prompt, what it holds, and the reply or the error."""

    prompt: str
    summary: str
    turns: Turns
    reply: str | None = None
    error: BaseException | None = None


class _Summariser:
    """The checker's summariser: a prompt model ``str -> str`` that reads the prompt as
    the kit's stubs do, answers with ``model`` (through a :class:`FailingLLM` when
    ``fail_on`` is given) and records every call. A call with anything but one prompt
    string, or a prompt the stubs cannot read, raises CheckFailed, kept in ``misuse``
    so that it is reported even if the learner's code caught it."""

    def __init__(self, model: Callable[[str], str], fail_on: set[int] | None = None) -> None:
        self.model = FailingLLM(model, fail_on) if fail_on else model
        self.calls: list[_Call] = []
        self.misuse: CheckFailed | None = None
        self.where = "memory"

    def __call__(self, *args: object, **kwargs: object) -> str:
        if len(args) != 1 or kwargs or not isinstance(args[0], str):
            shown = ", ".join([f"{a!r:.40}" for a in args] + [f"{k}=..." for k in kwargs])
            self.misuse = CheckFailed(
                f"{self.where}: your memory called summariser({shown}). A summariser is a "
                f"prompt model str -> str. Why: the instructions, the summary and the turns "
                f"all travel in that one prompt. Hint: call it with exactly one argument, the "
                f"prompt string: self.summariser(build_summary_prompt(self.summary, old)).")
            raise self.misuse
        try:
            summary, turns = parse_summary_turns(args[0])
        except ValueError:
            self.misuse = CheckFailed(
                f"{self.where}: the summariser could not read your prompt "
                f"{args[0][:80]!r}. Why: it needs a 'Current summary:' and a 'New turns:' "
                f"section, as a real summarisation prompt needs the summary and the turns. "
                f"Hint: build it with kit.memory.build_summary_prompt(self.summary, old), "
                f"old a list of kit.messages.Message (see make_message).")
            raise self.misuse from None
        call = _Call(args[0], summary, turns)
        self.calls.append(call)
        try:
            call.reply = self.model(args[0])
        except Exception as exc:
            call.error = exc
            raise
        return call.reply

    def reraise_misuse(self) -> None:
        if self.misuse is not None:
            failure = CheckFailed(str(self.misuse))
            failure.observed = True        # it says what the call was: no cause guessed
            raise failure from None


def _keeps_facts(prompt: str) -> str:
    """A fact-keeping stub whatever the prompt's instructions: the kit's
    prompt_following_summariser on the kit's own prompt for the same summary and turns
    (keeps the previous summary and every turn with a number or constraint word)."""
    summary, turns = parse_summary_turns(prompt)
    return prompt_following_summariser(build_summary_prompt(summary, as_messages(turns)))


def _short(prompt: str) -> str:
    """A stub whose summary stays short: ``summary of N more turns``."""
    return f"summary of {len(parse_summary_turns(prompt)[1])} more turns"


def _numbered(chat: Turns) -> Turns:
    """Each text with a unique marker `` [mN]``, so a lost or doubled message shows."""
    return [(role, f"{text} [m{n}]") for n, (role, text) in enumerate(chat, start=1)]


@dataclass(frozen=True)
class _Case:
    title: str
    chat: Turns
    budget: int
    keep_recent: int
    measure: Measure
    model: Callable[[str], str]
    system: str | None = None
    why: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return (f"{self.title} (budget {self.budget} {unit_of(self.measure)}, keep_recent="
                f"{self.keep_recent}{', a system prompt' if self.system else ''})")


_LAPTOP = _Case("the laptop example", LAPTOP_TURNS, 20, 2, count_words,
                fact_listing_summariser,
                why="the lesson's worked example: sizes 7, 11, 19, 26 words, one compaction "
                    "at message 4, then 11 summary + 15 verbatim words (keep_recent wins)")
_CASES = [
    _LAPTOP,
    _Case("the laptop chat", LAPTOP_TURNS, 15, 2, count_words, fact_listing_summariser,
          why="at message 3 the context (19 words) is over budget, but the split lands on "
              "message 2, a reply, and moves back to its question: nothing can be folded "
              "until message 4"),
    _Case("shopping_chat(50)", shopping_chat(50), 80, 4, count_words, _keeps_facts,
          why="the planted facts of message 1 must survive 21 compactions", extra={"facts": True}),
    _Case("shopping_chat(24, seed=1)", shopping_chat(24, seed=1), 40, 0, count_words,
          _keeps_facts, why="keep_recent=0 folds every turn, the newest too"),
    _Case("shopping_chat(10, seed=3)", shopping_chat(10, seed=3), 20, 4, count_words,
          _keeps_facts, why="keep_recent wins over the budget: over budget from message 2, "
                            "but nothing is older than the 4 newest turns until message 5, "
                            "and message 5's split moves back to a question: the first "
                            "compaction is at message 6"),
    _Case("shopping_chat(30, seed=2)", shopping_chat(30, seed=2), 400, 2, count_characters,
          _keeps_facts, system="You are the shop's assistant. Answer in one sentence.",
          why="sizes in characters, with the measure passed in; the system prompt counts "
              "against the budget"),
    _Case("shopping_chat(16, seed=5)", shopping_chat(16, seed=5), 40, 1, count_words,
          _keeps_facts, why="an odd keep_recent follows the same split: the compaction at "
                            "message 4, a reply, moves the split back to its question and "
                            "keeps 2 turns; those after a question keep 1"),
    _Case("shopping_chat(16, seed=5)", shopping_chat(16, seed=5), 55, 3, count_words,
          _keeps_facts, why="an odd keep_recent follows the same split: the compaction at "
                            "message 6, a reply, keeps 4 turns (the reply's question too); "
                            "those after a question keep 3"),
]


def _cut(text: str, width: int = 60) -> str:
    """``repr(text)``, shortened to about ``width`` characters with "..." inside the quotes."""
    return repr(text) if len(text) <= width else repr(text[:width - 3] + "...")


def _numbers(pairs: Turns, transcript: Turns) -> list[int] | None:
    """The message numbers of ``pairs`` as the last contiguous run of ``transcript``."""
    for start in range(len(transcript) - len(pairs), -1, -1):
        if transcript[start:start + len(pairs)] == pairs:
            return list(range(start + 1, start + len(pairs) + 1))
    return None


def _show(pairs: Turns, transcript: Turns) -> str:
    if not pairs:
        return "no turns"
    numbers = _numbers(pairs, transcript)
    if numbers:
        return f"message{'s' * (len(numbers) > 1)} {span(numbers)}"
    return f"{len(pairs)} turns {pairs!r:.100}"


def _compare_calls(where: str, case: _Case, got: list[_Call], want: list[_Call],
                   transcript: Turns, numbers: list[int], appended: int) -> None:
    """The learner's summariser calls in one add against the kit's (0 or 1).

    ``numbers``: the kit's verbatim turns once the new message was appended;
    ``appended``: the kit's size at that moment."""
    unit, budget, keep = unit_of(case.measure), case.budget, case.keep_recent
    turns = [transcript[n - 1] for n in numbers]
    naive = turns[:max(len(turns) - keep, 0)]
    if not want and got:
        if appended <= budget:
            fits = (f"exactly the budget. A context equal to the budget fits: compact only "
                    f"when size > budget, not >=" if appended == budget else
                    f"under the budget of {budget}")
            raise CheckFailed(
                f"{where}: your memory called the summariser, but the context was "
                f"{appended} {unit}, {fits}. Why: every compaction costs a model call and "
                f"loses detail. Hint: after adding the message, compact only if self.size > "
                f"self.budget.")
        if got[0].turns == naive and naive:
            raise CheckFailed(
                f"{where}: your memory folded {_show(naive, transcript)}, so the verbatim "
                f"part starts with a reply whose question went into the summary. Why: "
                f"{case.why}; a reply without its question confuses the model. Hint: move "
                f"the split back while turns[split] is a reply, or use "
                f"kit.memory.split_for_compaction(turns, keep_recent).")
        raise CheckFailed(
            f"{where}: your memory called the summariser with {_show(got[0].turns, transcript)}"
            f", but nothing can be folded yet: keep_recent={keep} and a reply stays with "
            f"its question. Why: {case.why}. Hint: split with split_for_compaction and "
            f"call the summariser only `if old:`.")
    if want and not got:
        zero = (" With keep_recent=0 everything is old; turns[-0:] is the whole list "
                "(-0 == 0), so slicing with -keep_recent keeps every turn. Hint: compute the "
                "split as len(turns) - keep_recent, or use split_for_compaction."
                if keep == 0 else
                " Hint: after adding, if self.size > self.budget, split with "
                "split_for_compaction(turns, keep_recent) and fold `old` if there is any.")
        raise CheckFailed(
            f"{where}: the context was {appended} {unit}, over the budget of {budget}, and "
            f"{_show(want[0].turns, transcript)} can be folded, but your memory did not call "
            f"the summariser. Why: {case.why}.{zero}")
    if len(got) > 1:
        raise CheckFailed(
            f"{where}: your memory called the summariser {len(got)} times in one add. Why: "
            f"one compaction folds everything older than keep_recent, so a second call "
            f"only costs time and money. Hint: compact once per add.")
    if not got:
        return
    got_call, want_call = got[0], want[0]
    if got_call.turns != want_call.turns:
        shown = _show(got_call.turns, transcript)
        expected = _show(want_call.turns, transcript)
        found = _numbers(got_call.turns, transcript) or []
        why = case.why
        if got_call.turns == naive:
            why = ("the verbatim part then starts with a reply whose question you folded, "
                   "and a reply without its question confuses the model")
            hint = ("move the split back while turns[split] is a reply (split_for_compaction "
                    "does)")
        elif found and found[0] < numbers[0]:
            hint = ("not incremental: your prompt re-sends turns that are already in the "
                    "summary. Send the previous summary plus only the turns to fold now: "
                    "build_summary_prompt(self.summary, old); re-reading the whole "
                    "transcript makes every compaction slower and dearer")
        elif found and found[-1] > (_numbers(want_call.turns, transcript) or [0])[-1]:
            hint = (f"the prompt holds turns that stay verbatim: the newest keep_recent="
                    f"{keep} turns are not folded")
        else:
            hint = "fold exactly the `old` part of split_for_compaction(turns, keep_recent)"
        raise CheckFailed(
            f"{where}: the prompt's new turns should be {expected}, got {shown}. Why: "
            f"{why}. Hint: {hint}.")
    if got_call.summary != want_call.summary:
        if not got_call.summary:
            raise CheckFailed(
                f"{where}: the prompt's current summary should be {_cut(want_call.summary)}, "
                f"got (none): the summary was overwritten instead of updated. Why: the "
                f"new summary replaces the old one, so everything folded earlier is lost. "
                f"Hint: pass the previous summary: build_summary_prompt(self.summary, old).")
        raise CheckFailed(
            f"{where}: the prompt's current summary should be the summariser's last reply "
            f"{_cut(want_call.summary)}, got {_cut(got_call.summary)}. Why: an update rewrites "
            f"the summary the model wrote last, or facts drift. Hint: store the reply "
            f"as it is, and pass it in the next build_summary_prompt(self.summary, old).")


def _split_messages(where: str, messages: list[dict]) -> tuple[list[dict], Turns]:
    """(the leading system messages, the verbatim turns as (role, content))."""
    head = 0
    while head < len(messages) and messages[head].get("role") == "system":
        head += 1
    for m in messages[head:]:
        expect(m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str),
               f"{where}: messages() should be the system messages (system prompt, summary) "
               f"and then the verbatim turns, each {{'role': 'user' or 'assistant', "
               f"'content': str}}; got {m!r:.80} among the turns. Why: a chat API reads the "
               f"instructions first, then the conversation. Hint: put the summary in a "
               f"'system' message before the turns.")
    return messages[:head], [(m["role"], m["content"]) for m in messages[head:]]


def _size_hint(case: _Case, size: int, ref: object, context: str, transcript: Turns,
               counter: CallCounter) -> str:
    measure, unit = case.measure, unit_of(case.measure)
    system = measure(case.system) if case.system else 0
    summary = measure(ref.summary) if ref.summary else 0
    verbatim = sum(measure(m.content) for m in ref.turns)
    want = system + summary + verbatim
    parts = (f"{f'{system} (system prompt) + ' if case.system else ''}{summary} (summary) + "
             f"{verbatim} (verbatim turns) = {want} {unit}")
    if summary and size == want - summary:
        return (f"size should be {parts}, got {size}: the summary is not counted. Why: the "
                f"summary is sent with every request, so it takes room in the budget like "
                f"any turn; uncounted, the memory sends more than the budget and compacts "
                f"too late. Hint: keep the summary's size (measure it once, when it comes "
                f"back) and add it in size.")
    if system and size == want - system:
        return (f"size should be {parts}, got {size}: the system prompt is not counted. "
                f"Why: it is sent with every request. Hint: measure it once in __init__ and "
                f"add it in size.")
    if counter.calls == 0:
        return (f"size should be {parts}, got {size}, and your memory never called the "
                f"measure it was given. Why: sizes must be in the caller's unit. Hint: "
                f"size every text with self.measure(text), "
                f"not with a fixed count such as len(text.split()).")
    if size == measure(context):
        return (f"size should be {parts}, got {size}, the size of the whole context "
                f"string. Why: size counts the texts only, so every memory counts alike. "
                f"Hint: count only the texts: role labels and the "
                f"summary title are not part of size.")
    if size == sum(measure(text) for _, text in transcript):
        return (f"size should be {parts}, got {size}, the size of every message so far. "
                f"Why: the folded turns are no longer sent. Hint: after a compaction "
                f"subtract the sizes of the folded turns and add the summary's.")
    return (f"size should be {parts}, got {size}. Why: {case.why}. Hint: measure each text "
            f"once with the measure given and keep running totals of what you hold.")


def _compare_state(where: str, case: _Case, got: tuple, ref: SummaryMemory,
                   transcript: Turns, counter: CallCounter) -> None:
    """The learner's (context, messages, size) against the kit memory ``ref``."""
    context, messages, size = got
    head, tail = _split_messages(where, messages)
    want = [(m.role, m.content) for m in ref.turns]
    if tail != want:
        extra = ""
        if len(tail) > len(want) and tail[len(tail) - len(want):] == want:
            extra = (" The older ones were folded into the summary: once the summariser "
                     "returned, drop them.")
        raise CheckFailed(
            f"{where}: messages() should end with the verbatim turns {_show(want, transcript)},"
            f" got {_show(tail, transcript)}.{extra} Why: {case.why}. Hint: after a "
            f"compaction keep only the `recent` part of split_for_compaction(turns, "
            f"keep_recent), and list the turns after the system messages, oldest first.")
    if ref.summary:
        expect(any(ref.summary in m.get("content", "") for m in head),
               f"{where}: one of the system messages before the turns should hold the summary "
               f"{_cut(ref.summary)}; got {head!r:.160}. Why: the summary is the memory of "
               f"the folded turns. Hint: store the summariser's reply as it is and send it "
               f"as a 'system' message, e.g. 'Summary of earlier conversation:\\n' + summary.")
    if case.system:
        expect(any(case.system in m.get("content", "") for m in head),
               f"{where}: the first messages() should be the system prompt {case.system!r}; "
               f"got {head!r:.160}. Why: it holds the assistant's standing instructions. Hint: "
               f"send it first, every time; it is never folded or evicted.")
    pieces = [p for p in (case.system, ref.summary) if p] + [text for _, text in want]
    at = 0
    for piece in pieces:
        found = context.find(piece, at)
        expect(found >= 0,
               f"{where}: context() should hold the system prompt, the summary and the "
               f"verbatim turns, in that order; {_cut(piece)} is missing or out of order in "
               f"{_cut(context, 160)}. Why: context() is the text the model gets. Hint: build it "
               f"from the same parts as messages().")
        at = found + len(piece)
    if size != ref.size:
        raise CheckFailed(f"{where}: {_size_hint(case, size, ref, context, transcript, counter)}")


def _replay(cls: object, case: _Case) -> tuple[list[int], tuple]:
    """(a), (e): add by add against the kit's SummaryMemory; returns the sizes after each
    add and the final state."""
    mine, kits = _Summariser(case.model), _Summariser(case.model)
    counter = CallCounter(case.measure)
    args = (mine, case.budget, case.keep_recent, counter) + ((case.system,) if case.system else ())
    shown = (f"{getattr(cls, '__name__', 'your class')}(summariser, {case.budget}, "
             f"{case.keep_recent}, {getattr(case.measure, '__name__', 'measure')}"
             f"{', system' if case.system else ''})")
    memory = build(cls, *args, name=getattr(cls, "__name__", "your class"), shown=shown)
    kit = SummaryMemory(kits, case.budget, case.keep_recent, case.measure, system=case.system)
    transcript: Turns = []
    sizes, got = [], None
    for n, (role, content) in enumerate(case.chat, start=1):
        where = f"{case.name}, message {n} ({role}: {_cut(content, 40)})"
        numbers = [m.number for m in kit.turns] + [n]
        appended = kit.size + case.measure(content)
        transcript.append((role, content))
        mine.where, start, kit_start = where, len(mine.calls), len(kits.calls)
        try:
            add(memory, role, content, name=_NAME)
        except CheckFailed:
            mine.reraise_misuse()
            raise
        mine.reraise_misuse()
        kit.add(role, content)
        _compare_calls(where, case, mine.calls[start:], kits.calls[kit_start:], transcript,
                       numbers, appended)
        got = state(memory, _NAME)
        expect(counter.calls > 0,
               f"{where}: your memory never called the measure it was given. Why: sizes "
               f"must be in the caller's unit (tokens of its model, words here). Hint: "
               f"measure each message once with self.measure(content) (make_message(role, "
               f"content, self.measure) does), not with len(content.split()).")
        _compare_state(where, case, got, kit, transcript, counter)
        sizes.append(got[2])
    return sizes, got


def _check_laptop(cls: object) -> int:
    """(a): the laptop replay, then the kit's own laptop_memory() and its trace."""
    sizes, got = _replay(cls, _LAPTOP)
    ref = laptop_memory()
    want = [e.size_after for e in ref.trace]
    expect(sizes == want,
           f"{_LAPTOP.name}: the sizes after each add should be {want} words (the kit's "
           f"laptop_memory().trace), got {sizes}. Why: {_LAPTOP.why}. Hint: size = summary + "
           f"verbatim turns, compacting only when over budget.")
    _compare_state(f"{_LAPTOP.name}, at the end", _LAPTOP, got, ref, list(LAPTOP_TURNS),
                   CallCounter(count_words))
    return len(LAPTOP_TURNS) + 1


def _check_retention(case: _Case, context: str) -> None:
    """(b): the planted facts are still in the context."""
    lost = [f"{fact} ({PLANTED_FACTS[fact]})" for fact, kept in facts_in(context).items()
            if not kept]
    expect(not lost,
           f"{case.name}, at the end: context() should still hold the facts of message 1, "
           f"but {', '.join(lost)} {'is' if len(lost) == 1 else 'are'} gone. Why: a user "
           f"expects the memory to remember an order id or an allergy said once. Hint: "
           f"pass the previous summary to every update, and send the summary in context().")


def _caused_by(exc: BaseException | None, error: BaseException) -> bool:
    """``error`` is ``exc`` or in its chain of causes (as a traceback shows it)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if exc is error:
            return True
        seen.add(id(exc))
        exc = exc.__cause__ if exc.__cause__ is not None else (
            None if exc.__suppress_context__ else exc.__context__)
    return False


def _check_failed_add(where: str, before: tuple, after: tuple, content: str,
                      transcript: Turns) -> str:
    """The state after an add whose summariser failed: "kept" (the new message kept, all
    else unchanged) or "rolled back" (exactly as before); else CheckFailed."""
    if after == before:
        return "rolled back"
    head0, tail0 = _split_messages(where, before[1])
    head1, tail1 = _split_messages(where, after[1])
    new = transcript[-1]
    if head1 == head0 and tail1 == tail0 + [new] and after[2] == before[2] + count_words(content):
        return "kept"
    gone = [t for t in tail0 if t not in tail1]
    if gone:
        raise CheckFailed(
            f"{where}: the summariser raised TimeoutError, and {_show(gone, transcript)} "
            f"{'is' if len(gone) == 1 else 'are'} gone: neither verbatim nor in the summary. "
            f"Why: a timeout must lose nothing; those turns were removed before the "
            f"summariser call. Hint: compute first, then commit: call the summariser, and "
            f"only when it returned replace the summary and drop the old turns.")
    if head1 != head0:
        raise CheckFailed(
            f"{where}: the summariser raised TimeoutError, yet the summary part of messages() "
            f"changed from {head0!r:.100} to {head1!r:.100}. Why: a failed call has no reply "
            f"to commit. Hint: assign the new summary only after the summariser returned.")
    want = before[2] + count_words(content)
    raise CheckFailed(
        f"{where}: the summariser raised TimeoutError; keep the new message and leave the "
        f"rest as it was (size {want} words), or leave the memory exactly as before the add "
        f"(size {before[2]}); got verbatim {_show(tail1, transcript)} and size {after[2]}. "
        f"Why: a failed compaction must change nothing else. Hint: compute the new state "
        f"in local variables and assign it only after the summariser returned.")


def _check_failures(cls: object) -> int:
    """(c): seeded summariser failures: the error propagates, nothing is lost, and the
    memory recovers."""
    chat, budget, keep = _numbered(shopping_chat(60, seed=5)), 40, 2
    fail_on = set(random.Random(_FAIL_SEED).sample(range(1, 29), 9))
    summariser = _Summariser(fact_listing_summariser, fail_on)
    error = summariser.model.error
    label = f"{budget} words, keep_recent={keep}, summariser failing on calls {sorted(fail_on)}"
    memory = build(cls, summariser, budget, keep, CallCounter(count_words),
                   name=getattr(cls, "__name__", "your class"))
    held: Turns = []          # the messages the memory holds (added successfully)
    pending: _Call | None = None
    cases = 0
    for n, (role, content) in enumerate(chat, start=1):
        for attempt in range(1, 11):
            where = (f"numbered shopping_chat(60) ({label}), message {n}"
                     f"{f' (added again, attempt {attempt})' if attempt > 1 else ''}")
            summariser.where = where
            before, start, raised = state(memory, _NAME), len(summariser.calls), None
            try:
                add(memory, role, content, name=_NAME, expected=(Exception,))
            except CheckFailed:
                summariser.reraise_misuse()
                raise
            except Exception as exc:
                raised = exc
            summariser.reraise_misuse()
            calls = summariser.calls[start:]
            for call in calls:
                if pending is not None:
                    expect(call.summary == pending.summary
                           and call.turns[:len(pending.turns)] == pending.turns,
                           f"{where}: after the failed compaction of "
                           f"{_show(pending.turns, held + [(role, content)])}, the next one "
                           f"should start from the same summary and fold at least those "
                           f"turns; got {_show(call.turns, held + [(role, content)])} with "
                           f"summary {_cut(call.summary)}. Why: nothing the failed call was "
                           f"to fold may be skipped. Hint: keep summary and turns as they "
                           f"were on a failure; the next compaction then folds the larger span.")
                pending = call if call.error is not None else None
            failed = any(call.error is not None for call in calls)
            if failed and raised is None:
                raise CheckFailed(
                    f"{where}: the summariser raised TimeoutError('model timed out'), but "
                    f"memory.add returned normally. Why: a caller that never hears of the "
                    f"failure cannot log it or retry, and the memory silently stops "
                    f"compacting. Hint: let the exception propagate out of add (no "
                    f"try/except around the summariser call, or re-raise it).")
            if raised is not None and not failed:
                detail = type(raised).__name__ + (f": {raised}" if str(raised) else "")
                raise CheckFailed(f"{where}: memory.add raised {detail}, but the summariser "
                                  f"did not fail. Why: only the summariser's own failure may "
                                  f"escape add. Hint: run that add yourself to see the "
                                  f"whole traceback.") from raised
            if failed and not _caused_by(raised, error):
                raise CheckFailed(
                    f"{where}: the summariser raised TimeoutError('model timed out'), but "
                    f"memory.add raised {type(raised).__name__}({str(raised)!r:.60}) without "
                    f"it as its cause. Why: the caller must see what really failed (a "
                    f"timeout, a quota, a bad key) to decide what to do. Hint: re-raise it as "
                    f"it is, or wrap it with `raise YourError(...) from err`.")
            after = state(memory, _NAME)
            cases += 1
            if failed:
                if _check_failed_add(where, before, after, content, held + [(role, content)]) \
                        == "rolled back":
                    continue                       # not added: add it again, as a caller would
                held.append((role, content))
                break
            held.append((role, content))
            context, messages, size = after
            for number in range(1, n + 1):
                marker = f"[m{number}]"
                times = context.count(marker)
                expect(times == 1,
                       f"{where}: message {number} ({_cut(chat[number - 1][1], 40)}) should be in "
                       f"context() exactly once (verbatim or in the summary), found {times} "
                       f"times. Why: the fact-listing summariser keeps every text, so a "
                       f"message that is missing was lost, and one found twice is both "
                       f"folded and verbatim. Hint: fold each turn once, and commit the new "
                       f"summary and the new turn list together, after the call returned.")
            summary = next((c.reply for c in reversed(summariser.calls) if c.error is None), "")
            _, tail = _split_messages(where, messages)
            want = count_words(summary) + sum(count_words(text) for _, text in tail)
            expect(size == want,
                   f"{where}: size should be {count_words(summary)} (summary) + "
                   f"{want - count_words(summary)} (verbatim turns) = {want} words, got {size}. "
                   f"Why: the size decides when to compact. Hint: after a failure, keep the "
                   f"running totals in step with what you kept.")
            break
        else:
            raise CheckFailed(f"{where}: the add still failed after 10 attempts. Why: the "
                              f"summariser fails on a few calls only. Hint: call it once per "
                              f"compaction, with the prompt of that compaction.")
    cases += check_copies(memory, _NAME, f"numbered shopping_chat(60) ({label}), at the end")
    expect(summariser.model.calls > max(fail_on),
           f"numbered shopping_chat(60) ({label}): your memory called the summariser "
           f"{summariser.model.calls} times, fewer than the failures planned. Why: the "
           f"summary outgrows the budget, so most replies need a compaction. Hint: "
           f"compact after every add that leaves the context over budget.")
    return cases


def _check_measure_calls(cls: object) -> int:
    """(d): measure calls per add stay flat from 10 to 1,000 messages (see the module
    docstring for what is counted), and the summariser calls are the kit's."""
    seen: list[tuple[int, str]] = []      # (add number, text) of every measure call
    adding = [0]

    def words(text: str) -> int:
        seen.append((adding[0], text))
        return count_words(text)
    words.unit = "words"                   # type: ignore[attr-defined]

    summariser, budget, keep = _Summariser(_short), 1500, 2
    memory = build(cls, summariser, budget, keep, CallCounter(words),
                   name=getattr(cls, "__name__", "your class"))
    skip: dict[int, set[str]] = {}
    replies: set[str] = set()
    name = f"shopping_chat(1000, seed=4) (budget {budget} words, keep_recent={keep})"
    for n, (role, content) in enumerate(shopping_chat(1000, seed=4), start=1):
        adding[0] = n
        summariser.where, start = f"{name}, message {n}", len(summariser.calls)
        add(memory, role, content, name=_NAME)
        summariser.reraise_misuse()
        for call in summariser.calls[start:]:
            skip.setdefault(n, set()).update([call.prompt, *(t for _, t in call.turns)])
            replies.add(call.reply or "")
    adding[0] = 0
    counted = [n for n, text in seen if n and text not in replies and text not in skip.get(n, ())]
    at_10 = sum(1 for n in counted if n <= 10) / 10
    at_1000 = len(counted) / 1000
    expect(summariser.calls, f"{name}: your memory never called the summariser in 1,000 "
                             f"messages (about 7,000 words). Why: the context grew past the "
                             f"budget. Hint: compact when size > budget.")
    expect(counted, f"{name}: your memory never called the measure it was given. Why: sizes "
                    f"must be in the caller's unit. Hint: measure each message with "
                    f"self.measure(content).")
    expect(at_1000 <= 1.1 * max(at_10, 1.0),
           f"{name}: your memory called the measure {at_1000:.1f} times per add over 1,000 "
           f"messages, against {at_10:.1f} over the first 10 (not counting the prompt, the "
           f"folded turns and the summary of a compaction): the calls per add grew. Why: "
           f"the well-known libraries recount the whole buffer on every add, so each add "
           f"gets slower as the chat grows. Hint: your memory re-measures messages it has "
           f"already measured: measure each message once, when it is added, and keep running "
           f"totals (add its size; subtract the sizes of the turns you fold; keep the "
           f"summary's size).")
    kits = _Summariser(_short)
    kit = SummaryMemory(kits, budget, keep, count_words)
    for role, content in shopping_chat(1000, seed=4):
        kit.add(role, content)
    expect(len(summariser.calls) == len(kits.calls),
           f"{name}: your memory called the summariser {len(summariser.calls)} times over "
           f"1,000 messages, the kit's SummaryMemory {len(kits.calls)} times. Why: each call "
           f"is a model call (time, money and a little detail lost), so the count is the "
           f"cost of the memory. Hint: one compaction per add that leaves the context over "
           f"the budget, folding everything older than keep_recent in that one call.")
    held = len(seen)
    for _ in range(2):
        state(memory, _NAME)
    expect(len(seen) == held,
           f"{name}, after the 1,000 adds: reading size, context() and messages() twice "
           f"called the measure {len(seen) - held} times, on "
           f"{_cut(seen[held][1] if len(seen) > held else '', 50)} first. Why: the context "
           f"is read before every model call, so a read that measures costs a tokenizer "
           f"pass each time. Hint: reading size, context() and messages() should not call "
           f"the measure: keep the sizes of the system prompt, the summary and the turns as "
           f"numbers, measured once.")
    return 1


# -- the parts: one per rubric category of the drill summary-memory -------------------
def check_summary_memory_correctness(cls: object) -> int:
    """(a), (b), (e): the laptop trace (and :func:`kit.conversations.laptop_memory`), then
    ``shopping_chat(50)`` with ``keep_recent=4`` replayed against the kit's SummaryMemory
    (the same summariser prompts at the same adds, the same turns, summary and size, the
    summary counted) and its planted facts still in ``context()``. Returns the cases."""
    cases = _check_laptop(cls)
    for case in _CASES[1:]:
        if case.extra.get("facts"):
            sizes, (context, _, _) = _replay(cls, case)
            _check_retention(case, context)
            cases += len(sizes) + 1
    return cases


def check_summary_memory_failure_safety(cls: object) -> int:
    """(c): seeded summariser failures: the error propagates (as it is or as the cause),
    no turn is lost or doubled, and the next compaction folds at least the failed span
    from the same summary. Returns the adds checked."""
    return _check_failures(cls)


def check_summary_memory_edge_cases(cls: object) -> int:
    """(a), (e) on the boundaries: a reply never separated from its question (nothing
    can be folded at message 3 of the laptop chat with budget 15), ``keep_recent=0``
    (everything folds, the newest message too), a system prompt with sizes in
    characters, and an odd ``keep_recent`` (1 and 3: the same split). No compaction under the budget, or at it, in any of them. Returns the
    adds compared."""
    cases = 0
    for case in _CASES[1:]:
        if not case.extra.get("facts"):
            cases += len(_replay(cls, case)[0])
    return cases


def check_summary_memory_complexity(cls: object) -> int:
    """(d): counted measure calls stay flat per add over 1,000 turns, and the summariser
    is called as often as the kit's. Returns 1."""
    return _check_measure_calls(cls)


MECHANISM = "summary memory"         # its wrong answers in kit.mistakes
#: The rule of the spec each kind of failure breaks (stated when no registered mistake
#: reproduces the learner's outputs: :mod:`kit.checks.hints`).
RULES = (
    (r"after the caller (cleared|edited)", "messages() returns a new list of new dicts"),
    (r"reading size", "reading size, context() and messages() makes no measure call"),
    (r"called the summariser, but the context was",
     "compact only when size > budget after the add (a context equal to the budget fits)"),
    (r"nothing can be folded yet|folded .*, so the verbatim|prompt's new turns",
     "the turns folded are split_for_compaction's: all but the keep_recent newest, the split "
     "moved back so a reply stays with its question; keep_recent wins over the budget (when "
     "nothing is older than keep_recent, no call)"),
    (r"did not call the summariser|times in one add|called the summariser \d+ times over",
     "after each add that leaves size > budget with something older than keep_recent, "
     "exactly one compaction"),
    (r"current summary|same summary",
     "each compaction's prompt is build_summary_prompt(previous summary, the turns folded)"),
    (r"TimeoutError|but the summariser did not fail|attempts",
     "compute first, then commit: the summariser's error propagates out of add, and nothing "
     "is lost (the new message kept and all else unchanged, or the add undone)"),
    (r"measure", "each text is measured once with the measure given; calls per add stay flat"),
    (r"size should be", "size = system prompt + summary + verbatim turns, in the measure's unit"),
    (r"exactly once|facts of message 1", "every message is in context() once, verbatim or in "
                                         "the summary, and the summary carries what was folded"),
    (r"messages\(\)", "messages(): the system messages (system prompt, then the summary) "
                       "first, then the verbatim turns, oldest first"),
    (r"context\(\)", "context() holds the system prompt, the summary and the verbatim turns, "
                      "in that order"),
)
_judged = judged(MECHANISM, RULES)
check_summary_memory_correctness = _judged(check_summary_memory_correctness)
check_summary_memory_failure_safety = _judged(check_summary_memory_failure_safety)
check_summary_memory_edge_cases = _judged(check_summary_memory_edge_cases)
check_summary_memory_complexity = _judged(check_summary_memory_complexity)

#: The parts in the order :func:`check_summary_memory` runs them (the lesson's cases
#: first, so a learner's first failure is the simplest case that shows it).
PARTS = (check_summary_memory_correctness, check_summary_memory_edge_cases,
         check_summary_memory_failure_safety, check_summary_memory_complexity)
RUBRIC = {"correctness": check_summary_memory_correctness,
          "failure safety": check_summary_memory_failure_safety,
          "edge cases": check_summary_memory_edge_cases,
          "complexity": check_summary_memory_complexity}


def check_summary_memory(cls: Callable[..., object]) -> None:
    """Check the learner's summary memory class ``cls(summariser, budget, keep_recent,
    measure, system=None)``; print one pass line or raise CheckFailed.

    Runs (a) to (e) of the module docstring, as the four parts of :data:`PARTS` (the
    rubric of the drill ``summary-memory``). Rejects, among others: turns removed before
    the summariser call, the summary (or the system prompt) not counted in size,
    ``turns[-0:]`` with ``keep_recent=0``, re-measuring every message on every add, a
    reply orphaned from its question, re-summarising the whole transcript, overwriting
    the summary instead of updating it, compacting within the budget (or at it), a
    swallowed or unchained summariser error, and a memory that ignores the measure.
    """
    passed("summary memory", judge(_all_parts, cls, MECHANISM, RULES))


def _all_parts(cls: object) -> int:
    """Every part, unjudged, in order: the cases passed."""
    return sum(part.raw(cls) for part in PARTS)
