"""Named wrong answers: the mistakes learners (and well-known libraries) make, as code.

Each :class:`Mistake` is a small, plausible, wrong implementation of one exercise's
mechanism (a token window, a summary memory, a map-reduce, a chatbot turn), registered
with a name, what it does, why that hurts a user, and a piece of the hint the checker
gives when it catches it. One module per mechanism (``kit.mistakes.window``, ...)
registers its mistakes with the :func:`mistake` decorator.

Three readers share the registry:

- the checker tests run each whole-mechanism checker on every mistake of its mechanism
  and expect a :class:`~kit.checks.CheckFailed` whose message holds ``hint``;
- the drills' self-checks run the same checkers on a candidate's own code;
- the instructor guide lists ``what`` and ``why`` as the common mistakes to watch for.

Usage::

    from kit.mistakes import mistakes
    for m in mistakes("summary memory"):
        print(m.name, "-", m.what)
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, TypeVar

__all__ = ["Mistake", "mistake", "mistakes", "mechanisms"]

T = TypeVar("T")


@dataclass(frozen=True)
class Mistake:
    """One named wrong implementation.

    ``mechanism``: the exercise it answers, e.g. ``"token window"``; ``name``: a short
    id, e.g. ``"recounts-every-add"``; ``what``: what the code does, one sentence;
    ``why``: what goes wrong for the user, one sentence; ``hint``: a piece of the
    checker's failure message that names this mistake; ``answer``: the wrong class or
    function, with the exercise's signature.
    """

    mechanism: str
    name: str
    what: str
    why: str
    hint: str
    answer: object


_REGISTRY: dict[tuple[str, str], Mistake] = {}


def mistake(mechanism: str, name: str, what: str, why: str, hint: str
            ) -> Callable[[T], T]:
    """Decorator: register the decorated class or function as a :class:`Mistake`.

    Returns the object unchanged. Raises ValueError if ``(mechanism, name)`` is taken
    or a text field is blank.
    """
    for field, value in (("mechanism", mechanism), ("name", name), ("what", what),
                         ("why", why), ("hint", hint)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{field} must be a non-empty str, got {value!r}")

    def register(answer: T) -> T:
        key = (mechanism, name)
        if key in _REGISTRY and _REGISTRY[key].answer is not answer:
            raise ValueError(f"mistake {name!r} of {mechanism!r} is registered twice")
        _REGISTRY[key] = Mistake(mechanism, name, what, why, hint, answer)
        return answer
    return register


def _load() -> None:
    """Import every module of this package, so all mistakes are registered."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def mechanisms() -> list[str]:
    """The mechanisms that have mistakes, sorted."""
    _load()
    return sorted({m.mechanism for m in _REGISTRY.values()})


def mistakes(mechanism: str | None = None) -> list[Mistake]:
    """The registered mistakes of ``mechanism`` (all if None), in registration order.

    Raises ValueError naming the known mechanisms for one that has none.
    """
    _load()
    found = [m for m in _REGISTRY.values() if mechanism is None or m.mechanism == mechanism]
    if mechanism is not None and not found:
        raise ValueError(f"no mistakes registered for {mechanism!r}; known: "
                         f"{', '.join(mechanisms()) or 'none'}")
    return found
