"""The memory-policy evaluator: how much of what a question needs is still in the context?

Feed a :class:`~kit.locomo.LongConversation` turn by turn into any memory through
the common interface (``add``, ``context``), then, for each question, build the
context the model would get (the question is *not* added to the memory) and record:

- **all evidence** / **any evidence**: whether every / at least one of the turns
  annotated as holding the answer is in the context (None when the question has no
  evidence);
- **answer present**: the expected answer string occurs in the context,
  case-insensitively (None for adversarial questions, which have no answer);
- **context tokens**: the size of the context, in the measure's unit: the size the
  memory reports under its own counting rule (``context_size``; for the kit's memories
  with ``count="rendered"``, everything the text holds), or the text measured whole for
  a memory that reports none;
- **model calls** (of the models the memory keeps as ``summariser`` / ``fallback``,
  wrapped in :class:`kit.llm.CountingLLM`, plus a ``model_calls`` count the memory
  keeps itself) and **tokenizer calls**, while adding the turns and while building the
  contexts.

Results come per category (LoCoMo's 1 multi-hop, 2 temporal, 3 open-domain,
4 single-hop, with their total "1-4"), with adversarial questions (5) apart: their
"evidence" is the turn they try to confuse the model with, not an answer.

Which evidence is present, two rules:

- **text** (every memory): a turn is present if the content it was added with
  (:func:`render_turn`: ``"Speaker: text"``, or the bare text when the speaker went as
  a keyword) occurs in the context, whitespace squashed and case ignored. Weakness: a short turn ("Leo: Thanks!") also
  matches where the same words were said at another time, and a summary that quotes a
  turn verbatim counts as keeping it. :attr:`EvalRun.ambiguous` lists the evidence turns
  whose text occurs inside another turn, the ones this rule may over-count.
- **numbers**: a memory that reports which messages its last context holds, as a
  ``context_numbers`` attribute (message numbers, 1-based in the order added) or a
  ``context_numbers(query)`` method, is checked by number: exact, no false matches.
  ``rule="auto"`` (the default) uses numbers when the memory reports them, else text.

Efficiency: a context's size is the one the memory already knows (a check mode
re-counts a sample and fails on any disagreement); every turn is measured once,
through a :class:`CachedMeasure` that
several runs can share (the tokenizer calls reported are the real ones, cache misses);
a memory whose ``context`` takes no query gives every question the same context, so it
is built, measured and searched once. Turns are added with the speaker and the session
date as keywords (``add(role, text, speaker=..., when=...)``) when the memory's ``add``
accepts them, else as ``"Speaker: text"`` (see :func:`render_turn`); ``context`` gets
``query=`` the question when it accepts one. The measures follow LoCoMo (Maharana et
al., ACL 2024), which scores retrieval by recall of the annotated evidence turns. The
result types and tables are in :mod:`kit.memory_scores`.
"""
from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Iterable, Mapping, Sequence

from kit.llm import CountingLLM
from kit.locomo import LongConversation, LongTurn
from kit.memory_scores import (CategoryScore, EvalRun, QuestionResult, category_table,
                               coverage_table)
from kit.tokens import CallCounter, Measure, measured, tiktoken_counter, unit_of
from kit.validation import check_int

__all__ = ["CachedMeasure", "MemoryFactory", "QuestionResult", "CategoryScore", "EvalRun",
           "RULES", "SIZES", "MODEL_ATTRIBUTES", "render_turn", "evaluate", "evaluate_all",
           "coverage_table", "category_table"]

MemoryFactory = Callable[..., object]   # measure -> a fresh memory (or no argument)
RULES = ("auto", "text", "numbers")
SIZES = ("memory", "measured")                # where context sizes come from
MODEL_ATTRIBUTES = ("summariser", "fallback")   # models wrapped in CountingLLM


class CachedMeasure:
    """A measure ``str -> int`` that measures each distinct text once.

    ``measure``: the real measure (default: tiktoken ``cl100k_base``); ``calls``: real
    calls so far (cache misses), through a :class:`kit.tokens.CallCounter`. Share one
    across runs so that a turn is tokenised once however many memories see it. Texts
    are kept in a dict for the life of the object (a few MB for a LoCoMo file);
    :meth:`once` measures without caching (for one-off texts such as contexts).
    """

    def __init__(self, measure: Measure | None = None) -> None:
        self.counter = CallCounter(measure if measure is not None else tiktoken_counter())
        self.wrapped = self.counter            # returns what it returns (kit.tokens.inner_measure)
        self.unit = unit_of(self.counter.measure)
        self.cache: dict[str, int] = {}

    @property
    def calls(self) -> int:
        return self.counter.calls

    def __call__(self, text: str) -> int:
        size = self.cache.get(text)
        if size is None:
            size = self.cache[text] = measured(self.counter, text)
        return size

    def once(self, text: str) -> int:
        """Measure ``text`` with the real measure, not caching it (one real call)."""
        return measured(self.counter, text)


# -- feeding a memory -----------------------------------------------------------------
def _accepts(method: Callable, *names: str) -> bool:
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return True
    return all(n in params and params[n].kind is not params[n].POSITIONAL_ONLY for n in names)


def render_turn(turn: LongTurn, keywords: bool) -> tuple[str, dict[str, str]]:
    """What ``memory.add`` gets besides the role: ``(content, keyword arguments)``.

    ``keywords=True`` (the memory's ``add`` takes ``speaker=`` and ``when=``): the bare
    text, with the speaker and the session date as keywords, for the memory to render.
    Otherwise the speaker goes into the text, ``"Caroline: Hi!"``, and the date is lost.
    The one place to change how a turn is fed.
    """
    if keywords:
        return turn.text, {"speaker": turn.speaker, "when": turn.date}
    return f"{turn.speaker}: {turn.text}", {}


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


class _Squashed:
    """A context's text as the text rule compares it (:func:`_squash`: whitespace runs
    as one space, lowercased), squashed only when a needle is not found in the text
    merely lowercased: a needle (squashed itself) found there is in the squashed text
    too, and one with a word not found there is not, so most answers are settled
    without building it."""

    def __init__(self, text: str) -> None:
        self.text, self._lower, self._squashed = text, None, None

    def __contains__(self, needle: str) -> bool:
        if self._lower is None:
            self._lower = self.text.lower()
        if needle in self._lower:
            return True
        if not all(word in self._lower for word in needle.split(" ")):
            return False                       # a word of it is not there at all
        if self._squashed is None:
            self._squashed = _squash(self.text)
        return needle in self._squashed


def _build(factory: MemoryFactory, measure: CachedMeasure, name: str | None):
    if not callable(factory):
        raise TypeError(f"memory factory must be callable (measure -> memory), got {factory!r:.60}")
    try:
        params = [p for p in inspect.signature(factory).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    except (TypeError, ValueError):
        params = [None]
    memory = factory(measure) if params else factory()
    label = name or getattr(memory, "name", type(memory).__name__)
    for verb in ("add", "context"):
        if not callable(getattr(memory, verb, None)):
            raise TypeError(f"memory {label!r} has no {verb}() method (got {memory!r:.60}); "
                            f"the factory must build a memory with add(role, content) and context()")
    held = getattr(memory, "added", 0) or len(getattr(memory, "turns", ()))
    if held:
        raise ValueError(f"memory {label!r} already holds {held} messages; "
                         f"the factory must return a fresh memory")
    return memory, label


def _count_models(memory) -> Callable[[], int]:
    """Wrap the memory's models (:data:`MODEL_ATTRIBUTES`) in CountingLLM; return a
    function giving the calls so far (plus a ``model_calls`` count the memory keeps)."""
    counters = []
    for attr in MODEL_ATTRIBUTES:
        model = getattr(memory, attr, None)
        if callable(model):
            counter = model if isinstance(model, CountingLLM) else CountingLLM(model)
            setattr(memory, attr, counter)
            counters.append((counter, counter.calls))

    def calls() -> int:
        own = getattr(memory, "model_calls", 0)
        return sum(c.calls - start for c, start in counters) + (own if isinstance(own, int) else 0)
    return calls


def _numbers_reader(memory) -> Callable[[str], frozenset[int] | None]:
    """``question -> the message numbers the memory reports for its context``
    (``context_numbers``: an attribute, or a method taking the query or not), or None."""
    numbers = getattr(memory, "context_numbers", None)
    if numbers is None:
        return lambda question: None
    if not callable(numbers):
        return lambda question: frozenset(memory.context_numbers)
    if _accepts(numbers, "query"):
        return lambda question: frozenset(numbers(question))
    return lambda question: frozenset(numbers())


def _ambiguous(conversation: LongConversation, needles: dict[str, str]) -> tuple[str, ...]:
    wanted = sorted({e for q in conversation.questions for e in q.evidence},
                    key=conversation.position)
    everything = "\x00".join(needles.values())      # no needle holds a \x00
    return tuple(e for e in wanted                    # found in another turn's text too
                 if everything.count(needles[e]) > needles[e].count(needles[e]))


# -- the evaluator --------------------------------------------------------------------
def _size_reader(memory, with_query: bool) -> Callable[[str], int | None]:
    """``question -> the size the memory reports for its context`` (its
    ``context_size``; None from a memory that reports none)."""
    size = getattr(memory, "context_size", None)
    if not callable(size):
        return lambda question: None
    asks = with_query and _accepts(size, "query")

    def read(question: str) -> int | None:
        found = size(query=question) if asks else size()
        if found is not None and (isinstance(found, bool) or not isinstance(found, int)
                                  or found < 0):
            raise ValueError(f"context_size must return an int >= 0 or None, got {found!r}")
        return found
    return read


def _check_sizes(memory, label: str, picked: Sequence[int], loads: dict) -> None:
    """Re-count the sampled loads with the memory's own rule (``recount``); raise
    ValueError naming the first that disagrees with what the memory reported."""
    recount = getattr(memory, "recount", None)
    if not callable(recount):
        raise ValueError(f"check needs a memory that can re-count its context (recount()); "
                         f"{label!r} reports context_size but has no recount")
    for i in picked:
        query, reported = loads[i]
        found = recount(query=query) if query is not None else recount()
        if type(found) is not int or found != reported:
            raise ValueError(f"memory {label!r}, question {i}: it reports a context of "
                             f"{reported!r} but re-counting it by its own rule gives {found!r}")


def evaluate(conversation: LongConversation, factory: MemoryFactory, name: str | None = None,
             *, measure: CachedMeasure | Measure | None = None, rule: str = "auto",
             sizes: str = "memory", check: int = 0) -> EvalRun:
    """Feed ``conversation`` into ``factory(measure)``, then build each question's context.

    ``factory``: ``measure -> memory`` (or a function of no argument), called once; the
    memory should measure with the ``measure`` it is given so its tokenizer calls are
    counted and cached. ``measure``: a :class:`CachedMeasure` to share, or a measure to
    cache (default tiktoken ``cl100k_base``); ``rule``: "auto", "text" or "numbers"
    (see the module docstring). ``sizes``: where the context sizes come from,
    ``"memory"`` (the default: the size the memory reports with ``context_size(query)``
    under its own counting rule, no tokenizer call; a memory without it is measured) or
    ``"measured"`` (every context text measured whole). ``check``: int >= 0, how many
    loads (a seeded sample of the questions; all of them when ``check`` is larger) to
    re-count with the memory's own rule (its ``recount(query)``) against what it
    reported: any disagreement raises. A memory that reports no sizes is measured, and
    then has nothing to check: the run's ``sizes`` says "measured" and ``checked`` 0.
    Returns an :class:`EvalRun`.

    Raises TypeError for a factory that is not callable or builds something without
    ``add``/``context``, ValueError for a memory that is not empty, a conversation
    without turns or questions, an unknown rule or sizes, a bad check, ``rule="numbers"``
    with a memory that reports no ``context_numbers``, or a size that re-counting
    contradicts. Errors of the memory itself propagate.
    """
    if not isinstance(conversation, LongConversation):
        raise TypeError(f"conversation must be a kit.locomo.LongConversation, "
                        f"got {type(conversation).__name__}")
    if not conversation.turns:
        raise ValueError(f"conversation {conversation.name!r} has no turns to feed")
    if not conversation.questions:
        raise ValueError(f"conversation {conversation.name!r} has no questions to evaluate")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}; got {rule!r}")
    if sizes not in SIZES:
        raise ValueError(f"sizes must be one of {', '.join(SIZES)}; got {sizes!r}")
    check_int("check", check, 0)
    cache = measure if isinstance(measure, CachedMeasure) else CachedMeasure(measure)
    memory, label = _build(factory, cache, name)
    model_calls = _count_models(memory)
    keywords = _accepts(memory.add, "speaker", "when")
    with_query = _accepts(memory.context, "query")

    start, needles = cache.calls, {}
    for turn in conversation.turns:
        content, extra = render_turn(turn, keywords)
        memory.add(conversation.role_of(turn.speaker), content, **extra)
        needles[turn.dia_id] = _squash(content)
    add_model, add_tokenizer = model_calls(), cache.calls - start

    start, results, last = cache.calls, [], None
    used_rule, loads = None, {}
    reported_size = (_size_reader(memory, with_query) if sizes == "memory"
                     else lambda question: None)
    reported_numbers = _numbers_reader(memory)
    for i, q in enumerate(conversation.questions):
        if last is None or with_query:
            text = memory.context(query=q.question) if with_query else memory.context()
            numbers = reported_numbers(q.question)
            reported = reported_size(q.question)
            if reported is not None:
                loads[i] = (q.question if with_query else None, reported)
            if last is not None and text == last[0]:        # the same context again
                last = (text, last[1], last[2] if reported is None else reported, numbers)
            else:
                last = (text, _Squashed(text), cache.once(text) if reported is None else reported,
                        numbers)
        _, squashed, tokens, numbers = last
        if rule == "numbers" and numbers is None:
            raise ValueError(f"rule='numbers' needs a memory that reports context_numbers; "
                             f"{label!r} does not")
        used_rule = "numbers" if numbers is not None and rule != "text" else "text"
        if used_rule == "numbers":
            found = tuple(e for e in q.evidence if conversation.position(e) in numbers)
        else:
            found = tuple(e for e in q.evidence if needles[e] in squashed)
        answer = None if q.category == 5 or not q.answer else _squash(q.answer) in squashed
        results.append(QuestionResult(i, q.category, q.question, q.evidence, found, answer,
                                      tokens))
    picked = sorted(random.Random(0).sample(sorted(loads), min(check, len(loads))))
    if picked:
        _check_sizes(memory, label, picked, loads)
    return EvalRun(conversation.name, label, len(conversation.turns), tuple(results),
                   cache.unit, used_rule, "keywords" if keywords else "prefix", add_model,
                   model_calls() - add_model, add_tokenizer, cache.calls - start,
                   _ambiguous(conversation, needles) if used_rule == "text" else (),
                   "memory" if loads else "measured", len(picked))


def evaluate_all(conversations: Iterable[LongConversation],
                 strategies: Mapping[str, MemoryFactory], *,
                 measure: CachedMeasure | Measure | None = None,
                 rule: str = "auto") -> list[EvalRun]:
    """:func:`evaluate` every strategy (name -> factory) on every conversation, sharing
    one :class:`CachedMeasure`. Runs come conversation by conversation, strategies in
    the given order. Raises TypeError for a single conversation or strategies that are
    not a mapping, ValueError for no strategies or no conversations, and what
    :func:`evaluate` raises."""
    if isinstance(conversations, (LongConversation, str)) or not hasattr(conversations,
                                                                          "__iter__"):
        raise TypeError(f"conversations must be LongConversations (a list of them), got "
                        f"{conversations!r:.60}")
    conversations = list(conversations)
    if not isinstance(strategies, Mapping):
        raise TypeError(f"strategies must map names to memory factories, got "
                        f"{strategies!r:.60}")
    if not strategies:
        raise ValueError(f"strategies must name at least one memory factory, got {strategies!r}")
    if not conversations:
        raise ValueError("conversations is empty: nothing to evaluate")
    cache = measure if isinstance(measure, CachedMeasure) else CachedMeasure(measure)
    return [evaluate(c, factory, name, measure=cache, rule=rule)
            for c in conversations for name, factory in strategies.items()]
