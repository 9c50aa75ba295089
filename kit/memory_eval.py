"""The memory-policy evaluator: how much of what a question needs is still in the context?

Feed a :class:`~kit.locomo.LongConversation` turn by turn into any memory through
the common interface (``add``, ``context``), then, for each question, build the
context the model would get (the question is *not* added to the memory) and record:

- **all evidence** / **any evidence**: whether every / at least one of the turns
  annotated as holding the answer is in the context (None when the question has no
  evidence);
- **answer present**: the expected answer string occurs in the context,
  case-insensitively (None for adversarial questions, which have no answer);
- **context tokens**: the size of the context text, in the measure's unit;
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

Efficiency: every turn is measured once, through a :class:`CachedMeasure` that
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
from collections.abc import Callable, Iterable, Mapping

from kit.llm import CountingLLM
from kit.locomo import LongConversation, LongTurn
from kit.memory_scores import (CategoryScore, EvalRun, QuestionResult, category_table,
                               coverage_table)
from kit.tokens import CallCounter, Measure, measured, tiktoken_counter, unit_of

__all__ = ["CachedMeasure", "MemoryFactory", "QuestionResult", "CategoryScore", "EvalRun",
           "RULES", "MODEL_ATTRIBUTES", "render_turn", "evaluate", "evaluate_all",
           "coverage_table", "category_table"]

MemoryFactory = Callable[..., object]   # measure -> a fresh memory (or no argument)
RULES = ("auto", "text", "numbers")
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


def _reported_numbers(memory, query: str) -> frozenset[int] | None:
    numbers = getattr(memory, "context_numbers", None)
    if numbers is None:
        return None
    if callable(numbers):
        numbers = numbers(query) if _accepts(numbers, "query") else numbers()
    return frozenset(numbers)


def _ambiguous(conversation: LongConversation, needles: dict[str, str]) -> tuple[str, ...]:
    wanted = sorted({e for q in conversation.questions for e in q.evidence},
                    key=conversation.position)
    texts = list(needles.items())
    return tuple(e for e in wanted
                 if any(needles[e] in text for other, text in texts if other != e))


# -- the evaluator --------------------------------------------------------------------
def evaluate(conversation: LongConversation, factory: MemoryFactory, name: str | None = None,
             *, measure: CachedMeasure | Measure | None = None, rule: str = "auto") -> EvalRun:
    """Feed ``conversation`` into ``factory(measure)``, then build each question's context.

    ``factory``: ``measure -> memory`` (or a function of no argument), called once; the
    memory should measure with the ``measure`` it is given so its tokenizer calls are
    counted and cached. ``measure``: a :class:`CachedMeasure` to share, or a measure to
    cache (default tiktoken ``cl100k_base``); ``rule``: "auto", "text" or "numbers"
    (see the module docstring). Returns an :class:`EvalRun`.

    Raises TypeError for a factory that is not callable or builds something without
    ``add``/``context``, ValueError for a memory that is not empty, a conversation
    without turns or questions, an unknown rule, or ``rule="numbers"`` with a memory
    that reports no ``context_numbers``. Errors of the memory itself propagate.
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
    used_rule = None
    for i, q in enumerate(conversation.questions):
        if last is None or with_query:
            text = memory.context(query=q.question) if with_query else memory.context()
            numbers = _reported_numbers(memory, q.question)
            if last is None or text != last[0]:
                last = (text, _squash(text), cache.once(text), numbers)
            else:
                last = last[:3] + (numbers,)
        _, squashed, tokens, numbers = last
        if rule == "numbers" and numbers is None:
            raise ValueError(f"rule='numbers' needs a memory that reports context_numbers; "
                             f"{label!r} does not")
        used_rule = "numbers" if numbers is not None and rule != "text" else "text"
        if used_rule == "numbers":
            found = tuple(e for e in q.evidence if conversation.position(e) in numbers)
        else:
            found = tuple(e for e in q.evidence if needles[e] in squashed)
        answer = (None if q.category == 5 or not q.answer
                  else _squash(q.answer) in squashed)
        results.append(QuestionResult(i, q.category, q.question, q.evidence, found, answer,
                                      tokens))
    return EvalRun(conversation.name, label, len(conversation.turns), tuple(results),
                   cache.unit, used_rule, "keywords" if keywords else "prefix", add_model,
                   model_calls() - add_model, add_tokenizer, cache.calls - start,
                   _ambiguous(conversation, needles) if used_rule == "text" else ())


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
