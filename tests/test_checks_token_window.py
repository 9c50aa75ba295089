"""The lesson-02 whole-mechanism checker (a token window class) accepts right designs and
rejects every registered wrong one with its hint."""
from __future__ import annotations

import sys
import time
from collections import deque
from pathlib import Path

import nbformat
import pytest

from kit.checks import CheckFailed
from kit.checks import token_window as checks
from kit.checks.hints import blamed
from kit.checks.token_window import CASES, _system, _text, check_token_window
from kit.memory import TokenWindow
from kit.mistakes import mistakes
from kit.tokens import count_words

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "solutions" / "02_sliding_window.ipynb"
sys.path.insert(0, str(ROOT / "tools"))
import lessons  # noqa: E402

NAME = "token window"


# -- two right designs, unlike each other and unlike the kit's ----------------------
class DequeWindow:
    """A deque of dicts with their sizes; size is a plain attribute kept up to date;
    the orphan rule keyed on "evicted anything yet"; context as [role] lines."""

    def __init__(self, budget, measure, system=None):
        self.budget, self.measure, self.system = budget, measure, system
        self.fixed = measure(system) if system else 0
        self.size = self.fixed
        self.kept = deque()
        self.evicted = 0

    def _pop(self):
        self.size -= self.kept.popleft()["tokens"]
        self.evicted += 1

    def _refuse(self, tokens):
        if self.fixed + tokens > self.budget:
            raise ValueError(f"{tokens} > {self.budget - self.fixed}")

    def add(self, role, content):
        tokens = self.measure(content)
        self._refuse(tokens)
        self.kept.append({"role": role, "content": content, "tokens": tokens})
        self.size += tokens
        while self.size > self.budget:
            self._pop()
        while (self.evicted and self.kept[0]["role"] == "assistant"
               and any(m["role"] == "user" for m in self.kept)):
            self._pop()

    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [{"role": m["role"], "content": m["content"]} for m in self.kept]

    def context(self):
        return "\n".join(f"[{m['role']}] {m['content']}" for m in self.messages())


class CommitWindow:
    """Compute first, then commit: a tuple of (number, role, content, size); each add
    builds the new tuple (the longest suffix that fits, then the orphan rule on the
    first kept number, as the kit does) and swaps it in; context as a block of text."""

    def __init__(self, budget, measure, system=None):
        self.budget, self.measure, self.system = budget, measure, system
        self.fixed = measure(system) if system else 0
        self.state, self.count, self.total = (), 0, 0

    def add(self, role, content):
        size = self.measure(content)
        if self.fixed + size > self.budget:
            raise ValueError("too big")
        candidate = self.state + ((self.count + 1, role, content, size),)
        start, total = len(candidate), self.fixed
        while start and total + candidate[start - 1][3] <= self.budget:
            start, total = start - 1, total + candidate[start - 1][3]
        kept = candidate[start:]
        while (kept[0][0] > 1 and kept[0][1] == "assistant"
               and any(turn[1] == "user" for turn in kept)):
            total, kept = total - kept[0][3], kept[1:]
        self.state, self.count, self.total = kept, self.count + 1, total

    @property
    def size(self):
        return self.total

    def messages(self):
        chat = [{"role": role, "content": content} for _, role, content, _ in self.state]
        return ([{"role": "system", "content": self.system}] if self.system else []) + chat

    def context(self):
        body = "\n".join(f"{role.upper()} > {content}" for _, role, content, _ in self.state)
        return f"{self.system}\n---\n{body}" if self.system else body


def _lesson_cell() -> str:
    """The source of the lesson's whole-mechanism exercise cell (class BudgetWindow)."""
    cells = [c for c in nbformat.read(LESSON, as_version=4).cells
             if "exercise" in c.metadata.get("tags", []) and "class BudgetWindow" in c.source]
    assert len(cells) == 1
    return cells[0].source


def _defined(source: str):
    namespace: dict = {}
    exec(source, namespace)
    return namespace["BudgetWindow"]


def test_the_kit_own_class_passes(passes):
    passes(check_token_window, TokenWindow, NAME)


def test_the_lesson_reference_answer_passes(passes):
    passes(check_token_window, _defined(_lesson_cell()), NAME)


@pytest.mark.parametrize("right", [DequeWindow, CommitWindow])
def test_different_right_designs_pass(right, passes):
    passes(check_token_window, right, NAME)


def test_the_learner_stub_is_not_written_yet(rejects):
    stub = _defined(lessons.replace_solutions(_lesson_cell(), lessons.CODE_STUB))
    rejects(check_token_window, stub, "BudgetWindow is not written yet")


class SizeStub(DequeWindow):
    """Everything written but a size property that is still the stub."""

    size = property(lambda self: (_ for _ in ()).throw(NotImplementedError("stub")),
                    lambda self, value: None)


def test_a_size_stub_is_not_written_yet(rejects):
    rejects(check_token_window, SizeStub, "SizeStub.size is not written yet")


@pytest.mark.parametrize("wrong", mistakes(NAME), ids=lambda m: m.name)
def test_every_registered_mistake_is_rejected_with_its_hint(wrong, rejects):
    failure = rejects(check_token_window, wrong.answer, wrong.hint)
    message = str(failure)
    assert "Why: " in message and "Hint: " in message, message


def test_the_registry_holds_the_typical_mistakes():
    names = {m.name for m in mistakes(NAME)}
    assert len(names) >= 5
    assert {"recounts-every-add", "system-not-counted", "evicts-at-budget",
            "evicts-before-append", "keeps-orphan", "accepts-oversized",
            "raises-after-evicting", "zero-slice", "messages-aliased",
            "size-counts-labels"} <= names


class RefusesExactFit(DequeWindow):     # >= instead of >: refuses a message that fits
    def _refuse(self, tokens):
        if self.fixed + tokens >= self.budget:
            raise ValueError("no room")


class NoRefusalCheck(DequeWindow):      # no size check: evicts all, then kept[0] fails
    def _refuse(self, tokens):
        pass


def test_an_exact_fit_must_be_accepted(rejects):
    rejects(check_token_window, RefusesExactFit, "raised ValueError",
            "exactly 10 included) must be accepted",
            'case "a message bigger than the budget leaves"')


def test_a_crash_names_the_case_and_the_call(rejects):
    rejects(check_token_window, NoRefusalCheck, 'case "a message bigger than the budget leaves"',
            "NoRefusalCheck.add('user', 'm03 ", "raised IndexError", "should raise ValueError")


def test_messages_without_the_system_prompt_are_named(rejects):
    class NoSystemMessage(DequeWindow):
        def messages(self):
            return super().messages()[1:] if self.system else super().messages()
    rejects(check_token_window, NoSystemMessage, 'case "nothing to evict"',
            "Rule: rule 1: the system prompt is pinned")


def test_a_context_that_drops_a_message_is_named(rejects):
    class ShortContext(DequeWindow):
        def context(self):
            return "\n".join(m["content"] for m in self.messages()[:-1])
    rejects(check_token_window, ShortContext, "context() should hold the texts of",
            "in that order and nothing else")


def test_a_size_method_is_named(rejects):
    class SizeMethod(CommitWindow):
        def size(self):
            return self.total
    rejects(check_token_window, SizeMethod, "is a method; make it a property")


def _kit_run(case):
    window = TokenWindow(case.budget, count_words, _system(case.system))
    refused = 0
    for number, (role, words) in enumerate(case.turns, 1):
        try:
            window.add(role, _text(number, words))
        except ValueError:
            refused += 1
    return window, refused


def test_each_case_shows_the_rule_it_is_named_for():
    runs = {case.name: _kit_run(case) for case in CASES}
    assert all(not e.moved for e in runs["nothing to evict"][0].trace)
    slides = runs["the window slides"][0].trace
    assert slides[2].size_after == 12 and not slides[2].moved          # an exact fit stays
    assert slides[3].moved == (1, 2)                                   # question and reply
    assert runs["the system prompt counts"][0].trace[-1].moved == (1, 2)
    assert runs["two orphaned replies"][0].trace[-1].moved == (1, 2, 3)
    greeting = runs["an opening greeting"][0].trace
    assert not greeting[1].moved and greeting[3].moved == (1,)
    assert [m.number for m in runs["replies no user message follows"][0].turns] == [2, 3]
    big, refused = runs["a message bigger than the budget leaves"]
    assert refused == 1 and big.trace[-1].moved == (1, 2) and big.size == big.budget
    long, refused = runs["a long conversation"]
    assert refused == 3 and any("dropped a reply" in e.note for e in long.trace)


def test_the_check_is_fast_and_deterministic(capsys):
    start = time.process_time()          # CPU time: a busy machine does not add to it
    check_token_window(TokenWindow)
    check_token_window(DequeWindow)
    assert time.process_time() - start < 2
    first = capsys.readouterr().out
    check_token_window(TokenWindow)
    check_token_window(DequeWindow)
    assert capsys.readouterr().out == first
    assert checks._long_case() == checks._long_case() == CASES[-1]    # seeded


# -- wrong answers that are not in the registry: a neutral box, no other mistake named --
class EvictsNewest(DequeWindow):        # pops the newest kept message, not the oldest
    def _pop(self):
        self.size -= self.kept.pop()["tokens"] if len(self.kept) > 1 else \
            self.kept.popleft()["tokens"]
        self.evicted += 1


class DropsRepliesNoQuestionFollows(DequeWindow):   # after a slide, drops every leading reply
    def add(self, role, content):
        super().add(role, content)
        while self.evicted and len(self.kept) > 1 and self.kept[0]["role"] == "assistant":
            self._pop()


class NewestFirst(DequeWindow):         # messages() newest first
    def messages(self):
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [{"role": m["role"], "content": m["content"]}
                       for m in reversed(self.kept)]


class ForgetsAfterRefusal(DequeWindow):    # a refusal empties the slid flag: greeting rule
    def _refuse(self, tokens):
        if self.fixed + tokens > self.budget:
            self.evicted = 0
            raise ValueError("too big")


@pytest.mark.parametrize("wrong", [EvictsNewest, DropsRepliesNoQuestionFollows, NewestFirst,
                                   ForgetsAfterRefusal],
                         ids=lambda c: c.__name__)
def test_an_unregistered_mistake_gets_the_rule_and_no_other_mistakes_hint(wrong, rejects):
    message = str(rejects(check_token_window, wrong, "Rule: "))
    assert blamed(message, NAME) == [] and "Hint:" not in message, message


def test_the_new_classes_of_cases_are_checked(rejects):
    """Slid then a question without an eviction; a refusal before the greeting; a
    returned dict edited by the caller."""
    by_name = {m.name: m for m in mistakes(NAME)}
    rejects(check_token_window, by_name["orphans-only-on-eviction"].answer,
            'case "replies kept, then a question"', "once the window has slid")
    rejects(check_token_window, by_name["refused-takes-a-number"].answer,
            'case "a refusal, then a greeting"', "a refused message takes no number")
    rejects(check_token_window, by_name["messages-share-dicts"].answer,
            "after the caller edited the dicts", "returned the dicts it keeps")
