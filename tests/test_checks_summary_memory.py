"""Lesson 03's whole-mechanism checker: every registered wrong answer is rejected with its
hint; the lesson's answer, the kit's own SummaryMemory and two other designs pass."""
from __future__ import annotations

import sys
from collections import deque
from pathlib import Path

import pytest

from kit.checks import CheckFailed
from kit.checks.summary_memory import check_summary_memory
from kit.memory import SummaryMemory, build_summary_prompt, split_for_compaction
from kit.messages import Message, make_message
from kit.mistakes import mistakes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lessons  # noqa: E402

NAME = "summary memory"
LESSON = ROOT / "solutions" / "03_summary_memory.ipynb"


def _lesson_cells() -> tuple[str, str]:
    """The lesson's import cell and its MySummaryMemory exercise cell (the reference)."""
    cells = [c.source for c in lessons.read(LESSON).cells if c.cell_type == "code"]
    imports = next(s for s in cells if "check_summary_memory" in s and "import" in s)
    exercise = next(s for s in cells if s.startswith("class MySummaryMemory"))
    return imports, exercise


def _lesson_class(stub: bool = False) -> type:
    imports, exercise = _lesson_cells()
    if stub:                                   # what the learner's notebook holds
        exercise = lessons.replace_solutions(exercise, lessons.CODE_STUB)
    namespace: dict = {}
    exec(imports, namespace)
    exec(exercise, namespace)
    return namespace["MySummaryMemory"]


def kit_summary_memory(summariser, budget, keep_recent, measure, system=None):
    """The kit's class behind the exercise's signature (its 5th argument is the prompt)."""
    return SummaryMemory(summariser, budget, keep_recent, measure, system=system)


class SummaryFailed(Exception):
    """TupleSummaryMemory's own error, raised from the summariser's."""


class TupleSummaryMemory:
    """Another design: (role, content, size) tuples, a pure fold function, the summary
    inside the system message, and on a failure the whole add rolled back and the error
    wrapped. It re-measures the folded turns while building the prompt (make_message),
    which the measure-call rule allows."""

    def __init__(self, summariser, budget, keep_recent, measure, system=None):
        self.summariser, self.budget, self.keep, self.measure = (summariser, budget,
                                                                 keep_recent, measure)
        self.system, self.system_size = system, (measure(system) if system else 0)
        self.state = ("", 0, (), 0)          # summary, its size, turns, their total size

    @property
    def size(self):
        _, summary_size, _, turns_size = self.state
        return self.system_size + summary_size + turns_size

    def _fold(self, state):
        summary, summary_size, turns, total = state
        split = len(turns) - self.keep if self.keep else len(turns)
        split = max(split, 0)
        while 0 < split < len(turns) and turns[split][0] == "assistant":
            split -= 1
        if split == 0:
            return state
        old = [make_message(role, text, self.measure) for role, text, _ in turns[:split]]
        reply = self.summariser(build_summary_prompt(summary, old))
        return (reply, self.measure(reply), turns[split:],
                total - sum(size for _, _, size in turns[:split]))

    def add(self, role, content):
        summary, summary_size, turns, total = self.state
        size = self.measure(content)
        grown = (summary, summary_size, turns + ((role, content, size),), total + size)
        if self.system_size + summary_size + grown[3] > self.budget:
            try:
                grown = self._fold(grown)
            except Exception as err:        # self.state untouched: as before the add
                raise SummaryFailed(f"message not added: {err}") from err
        self.state = grown

    def messages(self):
        summary, _, turns, _ = self.state
        system = "\n\n".join(p for p in (self.system, summary and f"Earlier: {summary}") if p)
        head = [{"role": "system", "content": system}] if system else []
        return head + [{"role": role, "content": text} for role, text, _ in turns]

    def context(self):
        return "\n".join(m["content"] if m["role"] == "system" else
                         f"{m['role'].title()}: {m['content']}" for m in self.messages())


class DequeSummaryMemory:
    """A third design: a deque of Message objects built by hand, size a plain attribute
    kept up to date, a while loop that compacts (at most once in practice), labels of its
    own, and the summariser's error raised as it is with the new message kept."""

    def __init__(self, summariser, budget, keep_recent, measure, system=None):
        self.summariser, self.budget, self.keep_recent = summariser, budget, keep_recent
        self.measure, self.system = measure, system
        self.summary, self.summary_size = "", 0
        self.turns: deque[Message] = deque()
        self.size = measure(system) if system else 0

    def _old(self) -> int:
        split = max(len(self.turns) - self.keep_recent, 0)
        while split and split < len(self.turns) and self.turns[split].role == "assistant":
            split -= 1
        return split

    def add(self, role, content):
        message = Message(role, content, self.measure(content))
        self.turns.append(message)
        self.size += message.tokens
        while self.size > self.budget and (split := self._old()):
            old = [self.turns[i] for i in range(split)]
            summary = self.summariser(build_summary_prompt(self.summary, old))
            summary_size = self.measure(summary)
            for _ in range(split):
                self.turns.popleft()
            self.size += summary_size - self.summary_size - sum(m.tokens for m in old)
            self.summary, self.summary_size = summary, summary_size

    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        if self.summary:
            head.append({"role": "system", "content": f"[summary] {self.summary}"})
        return head + [{"role": m.role, "content": m.content} for m in self.turns]

    def context(self):
        parts = [self.system or "", self.summary and f"So far: {self.summary}"]
        parts += [f"{m.role.upper()} > {m.content}" for m in self.turns]
        return "\n\n".join(p for p in parts if p)


@pytest.mark.parametrize("answer", [_lesson_class(), kit_summary_memory, TupleSummaryMemory,
                                    DequeSummaryMemory],
                         ids=["lesson", "kit", "tuples-rollback", "deque-attribute"])
def test_correct_answers_pass(answer, passes):
    passes(check_summary_memory, answer, NAME)


@pytest.mark.parametrize("wrong", mistakes(NAME), ids=lambda m: m.name)
def test_each_registered_mistake_is_rejected_with_its_hint(wrong, rejects):
    rejects(check_summary_memory, wrong.answer, wrong.hint)


def test_the_registry_holds_the_typical_mistakes():
    names = {m.name for m in mistakes(NAME)}
    assert {"removes-before-summarising", "summary-not-counted", "slices-keep-recent",
            "recounts-every-add", "orphans-reply", "resummarises-transcript",
            "overwrites-summary", "compacts-under-budget"} <= names
    hints = [m.hint for m in mistakes(NAME)]
    assert len(set(hints)) == len(hints)              # each hint names its own mistake


@pytest.mark.parametrize("wrong", mistakes(NAME), ids=lambda m: m.name)
def test_no_other_mistakes_hint_shows_up(wrong):
    """A message names one mistake: no other registered hint appears in it."""
    with pytest.raises(CheckFailed) as failure:
        check_summary_memory(wrong.answer)
    others = [m.name for m in mistakes(NAME) if m is not wrong and m.hint in str(failure.value)]
    assert not others, (wrong.name, others)


def test_the_stub_is_not_written_yet(rejects):
    failure = rejects(check_summary_memory, _lesson_class(stub=True), "is not written yet")
    assert "MySummaryMemory" in str(failure)


def test_a_half_written_class_names_the_missing_method(rejects):
    class Partial:
        def __init__(self, summariser, budget, keep_recent, measure, system=None):
            self.size = 0

        def add(self, role, content):
            pass

        def context(self):
            return ""
    rejects(check_summary_memory, Partial, "has no messages")


def test_the_failure_messages_say_why_and_give_a_hint():
    for wrong in mistakes(NAME):
        with pytest.raises(CheckFailed) as failure:
            check_summary_memory(wrong.answer)
        text = str(failure.value)
        assert text.count("Why:") == 1 and text.count("Hint:") == 1, text


def test_the_check_is_deterministic(capsys):
    check_summary_memory(DequeSummaryMemory)
    first = capsys.readouterr().out
    check_summary_memory(DequeSummaryMemory)
    assert capsys.readouterr().out == first


def test_a_crash_in_add_names_the_call(rejects):
    class Crashes(DequeSummaryMemory):
        def add(self, role, content):
            if len(self.turns) == 3:
                raise KeyError("oops")
            super().add(role, content)
    rejects(check_summary_memory, Crashes, "memory.add('assistant'", "KeyError")


def test_a_summariser_called_with_two_arguments_is_named(rejects):
    class TwoArgs(DequeSummaryMemory):
        def add(self, role, content):
            real = self.summariser
            self.summariser = lambda prompt: real("You summarise.", prompt)
            try:
                super().add(role, content)
            finally:
                self.summariser = real
    rejects(check_summary_memory, TwoArgs, "exactly one argument")


def test_a_prompt_the_stubs_cannot_read_is_named(rejects):
    class OwnPrompt(DequeSummaryMemory):
        def add(self, role, content):
            real = self.summariser
            self.summariser = lambda prompt: real(prompt.replace("New turns:", "Turns:"))
            try:
                super().add(role, content)
            finally:
                self.summariser = real
    rejects(check_summary_memory, OwnPrompt, "could not read your prompt", "build_summary_prompt")


def test_a_summary_changed_by_a_failure_is_caught(rejects):
    class Doubles(DequeSummaryMemory):
        def add(self, role, content):
            try:
                super().add(role, content)
            except TimeoutError:
                self.summary = self.summary + " (pending)"
                raise
    rejects(check_summary_memory, Doubles, "yet the summary part of messages() changed")


def test_a_memory_that_forgets_its_summary_after_a_failure_is_caught(rejects):
    """The state after the failure is right, but the retry starts from an empty summary."""
    class Forgets(DequeSummaryMemory):
        failed = False

        def add(self, role, content):
            if self.failed:
                self.summary, self.failed = "", False
            try:
                super().add(role, content)
            except TimeoutError:
                self.failed = True
                raise
    rejects(check_summary_memory, Forgets, "should start from the same summary")


# -- wrong answers that are not in the registry: the rule, and no mistake's hint --------
from kit.checks.hints import blamed                      # noqa: E402
from kit.mistakes.summary import _Sound                  # noqa: E402


class KeepsTwoMore(_Sound):            # folds all but keep_recent + 2
    def split(self):
        return split_for_compaction(self.turns, self.keep_recent + 2)


class SummaryAfterTurns(_Sound):       # the summary's system message after the turns
    def messages(self):
        chat = [{"role": m.role, "content": m.content} for m in self.turns]
        head = [{"role": "system", "content": self.system}] if self.system else []
        tail = [{"role": "system", "content": f"Summary: {self.summary}"}] if self.summary else []
        return head + chat + tail


class KeepsFoldedSizes(_Sound):        # never subtracts the folded turns from the total
    def compact(self):
        total = self.turns_size
        super().compact()
        self.turns_size = total


@pytest.mark.parametrize("wrong", [KeepsTwoMore, SummaryAfterTurns, KeepsFoldedSizes],
                         ids=lambda c: c.__name__)
def test_an_unregistered_mistake_gets_the_rule_and_no_other_mistakes_hint(wrong, rejects):
    message = str(rejects(check_summary_memory, wrong, "Rule: "))
    assert blamed(message, NAME) == [] and "Hint:" not in message, message


def test_the_new_classes_of_cases_are_checked(rejects):
    """Over budget with at most keep_recent turns; reads that measure; edited dicts."""
    by_name = {m.name: m for m in mistakes(NAME)}
    rejects(check_summary_memory, by_name["budget-beats-keep-recent"].answer,
            "keep_recent wins over the budget")
    rejects(check_summary_memory, by_name["size-measures-on-read"].answer,
            "reading size, context() and messages() twice called the measure")
    rejects(check_summary_memory, by_name["messages-share-dicts"].answer,
            "after the caller edited the dicts")
