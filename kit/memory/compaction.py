"""The pieces of a compaction that do not touch a memory: calling a summariser (with a
timeout), checking its reply, capping the summary, and the value a compaction commits.

A compaction is split in three so that the model call can run anywhere (even on a
worker thread, see :mod:`kit.memory.background`) while the memory changes in one
short step:

1. ``plan_compaction()``: which turns to fold (pure);
2. ``compute_summary(summary, old)``: the model call(s), returning a
   :class:`SummaryUpdate` (the memory is not touched);
3. ``commit_compaction(update, old, recent)``: swap the new summary and turns in.

:class:`Compactor` is step 2 with everything it needs and no memory: the model call (on a
worker thread when there is a ``timeout``), the ``fallback`` when the model fails (the
FEMentor write-up: "context must survive LLM failures"), the structured JSON reply (from
the same write-up), and the summary cap: re-summarise once, then a flagged truncation (the
summary-memory lesson: "when it passes the cap, re-summarise the summary"; the FEMentor
write-up caps it at ~900 characters). Sources: the summary-memory lesson and the FEMentor
write-up; the compute-then-commit style of LangMem's ``summarize_messages``.
"""
from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace

from kit.extractive import extractive_summariser
from kit.llm import PromptModel
from kit.memory.facts import MOST, missing_facts, off_topic, repair
from kit.messages import Message, check_text
from kit.prompts import SHORTEN_PROMPT, STRUCTURED_SHORTEN_PROMPT, build_summary_prompt
from kit.structured import StructuredSummary, parse_structured_summary
from kit.tokens import Measure, measured, unit_of
from kit.validation import check_seconds

__all__ = ["SummaryUpdate", "SummariserFailed", "Compactor", "checked_update", "call_model",
           "check_timeout", "truncate_to_cap", "describe", "TRUNCATION_MARK",
           "callers", "LostFacts", "CallSlots", "Backoff"]

TRUNCATION_MARK = " …"


@dataclass(frozen=True)
class SummaryUpdate:
    """A new running summary, computed but not yet committed.

    ``text``: the summary (stripped, non-empty); ``tokens``: its size in the memory's
    unit; ``by``: who wrote it ("model" or "fallback"); ``note``: what else happened, in
    words ("" when nothing did), added to the trace note; ``structured``: the parsed
    :class:`kit.structured.StructuredSummary` in structured mode, else None.
    """

    text: str
    tokens: int
    by: str = "model"
    note: str = ""
    structured: object | None = None


class SummariserFailed(Exception):
    """Both the model and the fallback failed. ``errors`` maps "model" and "fallback" to
    their exceptions; the fallback's is also the ``__cause__``."""

    def __init__(self, model_error: Exception, fallback_error: Exception) -> None:
        super().__init__(f"the model failed ({describe(model_error)}) and so did the "
                         f"fallback ({describe(fallback_error)})")
        self.errors = {"model": model_error, "fallback": fallback_error}


class LostFacts(ValueError):
    """A summary that kept fewer than half of the facts of what it replaced (see
    :mod:`kit.memory.facts`): not a summary of these turns, rejected like an empty one."""


def describe(error: BaseException) -> str:
    """``"TimeoutError: model timed out"``: an exception in a few words."""
    return f"{type(error).__name__}: {error}"


def check_timeout(timeout: object) -> float | None:
    """:func:`check_seconds` for a model-call ``timeout``."""
    return check_seconds("timeout", timeout)


class CallSlots:
    """The model calls of one memory still running on a worker thread, by model: at
    most one call per model is in flight. A call that timed out keeps its slot until
    the model returns, so a hung model costs one thread, not one per compaction.

    A call is running until its answer (or exception) is handed over, not until its
    thread has exited: a thread lingers for a moment after its target returns (longer
    on Python 3.13), and a finished call must not block the next one."""

    def __init__(self) -> None:
        self._calls: dict[int, Future] = {}
        self._lock = threading.Lock()

    def busy(self, model: object) -> bool:
        """Whether a call of ``model`` is still running (its answer not yet handed over)."""
        with self._lock:
            call = self._calls.get(id(model))
            return call is not None and not call.done()

    def claim(self, model: object, call: Future) -> bool:
        """Record ``call``, the future that receives ``model``'s answer, unless a call of
        ``model`` is still running (then False, nothing recorded): the check and the
        record are one step, so two threads never both start a call of one model."""
        with self._lock:
            running = self._calls.get(id(model))
            if running is not None and not running.done():
                return False
            self._calls[id(model)] = call
            return True

    def __len__(self) -> int:
        """How many calls are still running."""
        with self._lock:
            return sum(not call.done() for call in self._calls.values())


class Backoff:
    """When to skip a failing model: after ``k`` failures in a row it is skipped for the
    next ``min(2**(k-1) - 1, cap)`` messages (0, 1, 3, 7, ...: the first failure retries
    at once); an answer resets it; ``cap`` 0 never skips. Message numbers are the
    memory's ``added``."""

    def __init__(self, cap: int) -> None:
        self.cap, self.failures, self.retry_at = cap, 0, 0

    def allows(self, number: int) -> bool:
        """Whether the model may be called for message ``number``."""
        return number >= self.retry_at

    def failed(self, number: int) -> None:
        self.failures += 1
        skip = min(2 ** (self.failures - 1) - 1, self.cap)
        self.retry_at = number + 1 + skip if skip else 0

    def answered(self) -> None:
        self.failures, self.retry_at = 0, 0

    def record(self, number: int, by: str) -> None:
        """After a compaction at message ``number`` written ``by`` "model" or not."""
        self.answered() if by == "model" else self.failed(number)

    def run(self, number: int, compute: Callable[[bool], SummaryUpdate]) -> SummaryUpdate:
        """``compute(use_model)`` for message ``number``, the model allowed or not, with
        the outcome recorded: an exception or a summary not written by the model is a
        failure (only when the model was allowed). The exception propagates."""
        use_model = self.allows(number)
        try:
            update = compute(use_model)
        except Exception:
            if use_model:
                self.failed(number)
            raise
        if use_model:
            self.record(number, update.by)
        return update

    def __str__(self) -> str:
        when = (f"the model is tried again at message {self.retry_at}" if self.retry_at
                else "the model is tried again at the next compaction")
        return (f"the model failed {self.failures} time{'s' * (self.failures > 1)} in a row; "
                f"{when}")


def call_model(model: Callable[[str], object], prompt: str, timeout: float | None,
               slots: CallSlots | None = None) -> object:
    """``model(prompt)``, on a worker thread when ``timeout`` (seconds) is given.

    Raises TimeoutError if no answer came within ``timeout``, and whatever the model
    raised (KeyboardInterrupt included). A model that times out keeps running on its
    daemon thread and its late answer is dropped: a thread cannot be killed, so give
    a real client its own timeout as well. With ``slots``, a model whose earlier call
    is still running is not called again: TimeoutError at once, no new thread. A
    ``concurrent.futures.Future`` carries the answer; the thread is a daemon so a hung
    model never blocks interpreter exit, and it records the thread that started it
    (see :func:`callers`).
    """
    if timeout is None:
        return model(prompt)
    future: Future = Future()
    if slots is not None and not slots.claim(model, future):
        raise TimeoutError("the summariser is still running a call that timed out; "
                           "not starting another")

    def work() -> None:
        try:
            future.set_result(model(prompt))
        except BaseException as exc:          # handed to the caller, re-raised there
            future.set_exception(exc)

    thread = threading.Thread(target=work, name="summariser", daemon=True)
    thread.started_by = threading.current_thread()      # type: ignore[attr-defined]
    try:
        thread.start()
    except BaseException:
        future.cancel()                  # never ran: its slot is free again
        raise
    try:
        return future.result(timeout=timeout)
    except FutureTimeout:
        raise TimeoutError(f"the summariser did not answer within {timeout:g} s") from None


def callers(thread: threading.Thread | None = None) -> list[threading.Thread]:
    """``thread`` (default: the current one), then the thread that started it to call a
    model (:func:`call_model`), and so on: a summariser running with a ``timeout`` can
    tell which compaction it belongs to."""
    chain, thread = [], thread or threading.current_thread()
    while thread is not None and thread not in chain:
        chain.append(thread)
        thread = getattr(thread, "started_by", None)
    return chain


def checked_update(reply: object, measure: Measure, n_turns: int, by: str = "model",
                   note: str = "") -> SummaryUpdate:
    """Check a summariser's ``reply`` and measure it (one call to ``measure``).

    Raises TypeError for a non-str reply, ValueError for an empty one (``n_turns``, the
    number of turns it should have covered, goes into the message), and what
    :func:`kit.tokens.measured` raises for a measure that does not return an int >= 0.
    """
    if not isinstance(reply, str):
        raise TypeError(f"summariser must return str, got {type(reply).__name__}")
    text = reply.strip()
    if not any(ch.isalnum() for ch in text):           # "", "...", "\u200b", "\x00"
        raise ValueError(f"the summariser returned an empty summary for {n_turns} turns; "
                         f"kept the summary and turns as they were")
    if not text.isascii():
        check_text("the summary", text)               # no lone surrogates
    return SummaryUpdate(text, measured(measure, text), by, note)


def _word_ends(text: str) -> list[int]:
    return [m.end() for m in re.finditer(r"\S+", text)]


def truncate_to_cap(text: str, cap: int, measure: Measure) -> str:
    """The longest run of leading words of ``text``, ending in " …", whose size is at
    most ``cap`` (in the measure's unit). Where even the first word is over the cap (a
    language written without spaces, Chinese or Japanese, is one "word" a sentence), the
    longest leading run of its characters, at least one.

    Keeps the *start*: a running summary holds its oldest facts there. Binary search,
    so about log2(words) + log2(characters) calls to ``measure`` (it must grow with the
    text, as every counter in :mod:`kit.tokens` does).
    """
    def fits(end: int) -> bool:
        return measured(measure, text[:end] + TRUNCATION_MARK) <= cap

    ends = _word_ends(text)
    if not ends:
        return text
    lo, hi = 1, len(ends) - 1            # the answer keeps between 1 and all-but-one word
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(ends[mid - 1]):
            lo = mid
        else:
            hi = mid - 1
    if len(ends) > 1 and fits(ends[lo - 1]):
        return text[:ends[lo - 1]] + TRUNCATION_MARK
    start = ends[0] - len(text.split(None, 1)[0])  # inside the first word, by characters
    lo, hi = start + 1, ends[0] - 1
    if hi < lo or not fits(lo):           # not even one character fits: nothing to gain
        return text if len(ends) == 1 else text[:ends[0]] + TRUNCATION_MARK
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + TRUNCATION_MARK


@dataclass(frozen=True)
class Compactor:
    """The model calls of one compaction, with no memory attached (step 2).

    ``model``: the summariser; ``measure``: ``str -> int`` (sizes in its unit);
    ``instructions``: the summary prompt; ``fallback``: a prompt model or None;
    ``timeout``: seconds or None; ``structured``: expect ``{"summary", "open_points"}``
    JSON; ``cap``: largest summary size, or None; ``fact_check``: check that the new
    summary kept the facts (:mod:`kit.memory.facts`): reject one that kept fewer than
    half, repair one that dropped a few; ``slots``: the memory's :class:`CallSlots`.
    ``RobustSummaryMemory.compactor`` builds one from the memory's settings.
    """

    model: PromptModel
    measure: Measure
    instructions: str
    fallback: PromptModel | None = None
    timeout: float | None = None
    structured: bool = False
    cap: int | None = None
    fact_check: bool = False
    slots: CallSlots | None = field(default=None, compare=False)

    def compute(self, summary: str, old: Sequence[Message],
                points: tuple[str, ...] = (), use_model: bool = True) -> SummaryUpdate:
        """Fold ``old`` into ``summary``: the model, else the fallback, then the fact
        check and the cap.

        ``summary``: the current summary as the memory holds it (in structured mode its
        rendered text, open points included); ``points``: the open points so far
        (structured mode); ``use_model=False`` goes straight to the fallback (the
        memory's back-off). With ``fact_check``, a reply that lost most facts is
        rejected (:class:`LostFacts`) and the fallback, or without one the extractive
        summariser of :mod:`kit.extractive`, writes the summary; then the facts still
        missing are put back (:func:`kit.memory.facts.repair`). Raises the model's
        error when there is no fallback (a ``LostFacts`` has one, see above),
        :class:`SummariserFailed` when both fail; KeyboardInterrupt and SystemExit
        propagate at once.
        """
        prompt = build_summary_prompt(summary, old, self.instructions)
        sources = [summary, *(m.line() for m in old)] if self.fact_check else []
        try:
            if not use_model:
                raise TimeoutError("the model is in back-off after repeated failures")
            update = self.checked_facts(
                self.attempt(self.model, prompt, len(old), "model", points), sources)
        except Exception as model_error:
            fallback = self.fallback
            if fallback is None and isinstance(model_error, LostFacts):
                fallback = extractive_summariser
            if fallback is None:
                raise
            prompt = build_summary_prompt(self.fallback_summary(summary, points), old,
                                          self.instructions)
            try:
                update = self.attempt(fallback, prompt, len(old), "fallback", points,
                                      f"summarised by the fallback: the model failed "
                                      f"({describe(model_error)})")
            except Exception as fallback_error:
                raise SummariserFailed(model_error, fallback_error) from fallback_error
        return self.capped(self.repaired(update, sources), points)

    def checked_facts(self, update: SummaryUpdate, sources: list[str]) -> SummaryUpdate:
        """``update``, or :class:`LostFacts` if it kept fewer than half of the facts of
        ``sources`` (nothing to check without ``fact_check``)."""
        if not sources:
            return update
        missing, needed = missing_facts(sources, update.text)
        if needed and needed - len(missing) < MOST * needed:
            raise LostFacts(f"the summary kept {needed - len(missing)} of the {needed} facts "
                            f"of the summary and turns it replaces")
        if not needed and off_topic(sources, update.text):
            raise LostFacts("the summary shares no word with the summary and turns it "
                            "replaces")
        return update

    def repaired(self, update: SummaryUpdate, sources: list[str]) -> SummaryUpdate:
        """``update`` with the facts of ``sources`` it dropped put back (the lines that
        stated them appended; in structured mode to the summary field), noted."""
        if not sources:
            return update
        missing, _ = missing_facts(sources, update.text)
        if not missing:
            return update
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        note = "; ".join(n for n in (update.note, f"fact check: {len(missing)} fact"
                         f"{'s' * (len(missing) > 1)} put back ({shown})") if n)
        parsed = update.structured
        if isinstance(parsed, StructuredSummary):
            parsed = StructuredSummary(repair(parsed.summary, sources, missing).replace("\n", " "),
                                       parsed.open_points)
            text = parsed.render()
        else:
            text = repair(update.text, sources, missing)
        return SummaryUpdate(text, measured(self.measure, text), update.by, note, parsed)

    def fallback_summary(self, summary: str, points: tuple[str, ...]) -> str:
        """The current summary as the fallback sees it: in structured mode the summary
        field alone, without the "Open points:" section that
        :meth:`~kit.structured.StructuredSummary.render` appends (the compactor carries
        the points over itself, so a rule-based fallback cannot copy one into its
        summary text); else ``summary`` unchanged."""
        if not (self.structured and points):
            return summary
        section = StructuredSummary("x", points).render()[1:]     # "\nOpen points:\n- ..."
        return summary[:-len(section)] if summary.endswith(section) else summary

    def attempt(self, model: PromptModel, prompt: str, n_turns: int, by: str,
                points: tuple[str, ...] = (), note: str = "") -> SummaryUpdate:
        """One call of ``model``, its reply checked (and parsed, in structured mode).

        In structured mode the fallback sees the summary field alone (see
        :meth:`fallback_summary`), so it cannot close an open point: ``points`` carry
        over, followed by any new ones it answers in JSON; a plain-text answer becomes
        the summary field. Raises as :func:`call_model`, :func:`checked_update` and
        :func:`kit.structured.parse_structured_summary` do.
        """
        reply = call_model(model, prompt, self.timeout, self.slots)
        if not self.structured:
            return checked_update(reply, self.measure, n_turns, by, note)
        try:
            parsed = parse_structured_summary(reply)
        except ValueError:
            if by == "model":
                raise
            parsed = StructuredSummary(checked_update(reply, len, n_turns).text)
        if by != "model":
            parsed = StructuredSummary(parsed.summary, tuple(points) + tuple(
                p for p in parsed.open_points if p not in points))
        text = parsed.render()
        return SummaryUpdate(text, measured(self.measure, text), by, note, parsed)

    def capped(self, update: SummaryUpdate, points: tuple[str, ...] = ()) -> SummaryUpdate:
        """``update`` if it fits the cap; else re-summarised once with the shorten
        prompt by the same summariser (a fallback again sees the summary field alone,
        and the update's open points carry over), and if still over, truncated. The
        note says what happened; a failed re-summarise is noted, not raised."""
        cap, unit = self.cap, unit_of(self.measure)
        if cap is None or update.tokens <= cap:
            return update
        notes = [update.note] if update.note else []
        notes.append(f"the summary ({update.tokens} {unit}) was over its cap of {cap} {unit}")
        model = self.model if update.by == "model" else self.fallback
        shorten = STRUCTURED_SHORTEN_PROMPT if self.structured else SHORTEN_PROMPT
        if isinstance(update.structured, StructuredSummary):
            points = update.structured.open_points            # the update's own points
        text = (update.text if update.by == "model"
                else self.fallback_summary(update.text, points))
        best = update
        try:
            shorter = self.attempt(model, build_summary_prompt(text, [], shorten), 0,
                                   update.by, points)
            if self.fact_check:                    # the shorter one must keep the facts too
                shorter = self.checked_facts(shorter, [update.text])
                lost, _ = missing_facts([update.text], shorter.text)
                if lost:
                    notes.append(f"re-summarising dropped {len(lost)} fact"
                                 f"{'s' * (len(lost) > 1)} ({', '.join(lost[:5])})")
            notes.append(f"re-summarised to {shorter.tokens} {unit}")
            if shorter.tokens < best.tokens:
                best = shorter
        except Exception as exc:
            notes.append(f"re-summarising failed ({describe(exc)})")
        if best.tokens <= cap:
            return replace(best, note="; ".join(notes))
        return self.truncated(best, notes)

    def truncated(self, update: SummaryUpdate, notes: list[str]) -> SummaryUpdate:
        """``update`` cut to the cap with :func:`truncate_to_cap` (structured: the
        summary field is cut, the open points kept), the truncation in the note."""
        cap, unit, parsed = self.cap, unit_of(self.measure), update.structured
        if isinstance(parsed, StructuredSummary):
            points = parsed.open_points
            parsed = StructuredSummary(truncate_to_cap(
                parsed.summary, cap, lambda s: self.measure(StructuredSummary(s, points).render())),
                points)
            text = parsed.render()
        else:
            text = truncate_to_cap(update.text, cap, self.measure)
        tokens = measured(self.measure, text)
        if text == update.text:
            notes.append("it could not be cut (a single character): still over the cap")
        else:
            notes.append(f"TRUNCATED to {tokens} {unit}: the end of the summary was cut, "
                         f"facts there are lost" + ("" if tokens <= cap else
                                                    "; still over the cap"))
        return SummaryUpdate(text, tokens, update.by, "; ".join(notes), parsed)
