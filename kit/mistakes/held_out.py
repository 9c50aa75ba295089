"""Wrong leave-one-out choices (lesson 09's exercise 3, mechanism "leave-one-out").

Each function has the exercise's signature, ``leave_one_out(scores)`` with ``scores``
``{setting: [score on conversation 0, 1, ...]}``, returning one ``(chosen setting,
held-out score)`` per conversation (see :mod:`kit.checks.held_out` and
:func:`kit.ablation.leave_one_out`), and gets one thing wrong: most of them let the
held-out conversation take part in the choice, the mistake that makes a benchmark
figure flatter than what users will see. :func:`kit.checks.held_out.check_leave_one_out`
rejects each with a message that holds its ``hint``.
"""
from __future__ import annotations

from kit.mistakes import mistake

__all__ = ["peeks_at_held_out", "best_on_held_out", "last_of_ties", "reports_tuning_score",
           "no_length_check"]

MECHANISM = "leave-one-out"


def _check(scores):
    lengths = {len(v) for v in scores.values()}
    if not scores or len(lengths) != 1 or min(lengths) < 2:
        raise ValueError("every setting needs one score per conversation, at least 2")
    return list(scores), len(next(iter(scores.values())))


def _mean_without(values, held):
    others = [v for i, v in enumerate(values) if i != held]
    return sum(others) / len(others)


@mistake(MECHANISM, "peeks-at-held-out",
         what="chooses the setting by its mean over every conversation, the held-out one "
              "included",
         why="the figure reported was partly chosen on the very conversation it is "
             "reported on, so it promises more than unseen conversations will give",
         hint="the held-out conversation took part in the choice")
def peeks_at_held_out(scores):
    settings, n = _check(scores)
    chosen = max(settings, key=lambda s: (sum(scores[s]) / n, -settings.index(s)))
    return [(chosen, scores[chosen][held]) for held in range(n)]


@mistake(MECHANISM, "best-on-held-out",
         what="chooses, for each conversation, the setting that scores best on that "
              "conversation itself",
         why="an oracle: it reports the best case, which no user ever sees",
         hint="chose the setting by its score on the held-out conversation itself")
def best_on_held_out(scores):
    settings, n = _check(scores)
    return [(best, scores[best][held]) for held in range(n)
            for best in [max(settings, key=lambda s: (scores[s][held], -settings.index(s)))]]


@mistake(MECHANISM, "last-of-ties",
         what="breaks a tie between settings by taking the one listed last",
         why="the listed order is the stated preference (the default first); a tie must "
             "keep it, or the result depends on how the grid happens to be written",
         hint="on a tie, keep the setting listed first")
def last_of_ties(scores):
    settings, n = _check(scores)
    return [(chosen, scores[chosen][held]) for held in range(n)
            for chosen in [max(reversed(settings), key=lambda s: _mean_without(scores[s], held))]]


@mistake(MECHANISM, "reports-tuning-score",
         what="reports the chosen setting's score on the conversations it was chosen on",
         why="the score on the conversations a setting was chosen on is the tuning figure, "
             "flattering by construction; the held-out score is the one that predicts "
             "unseen conversations",
         hint="report the chosen setting's score on the held-out conversation")
def reports_tuning_score(scores):
    settings, n = _check(scores)
    folds = []
    for held in range(n):
        chosen = max(settings, key=lambda s: (_mean_without(scores[s], held), -settings.index(s)))
        folds.append((chosen, _mean_without(scores[chosen], held)))
    return folds


@mistake(MECHANISM, "no-length-check",
         what="accepts settings with different numbers of scores",
         why="zip and indexing then pair a score with the wrong conversation or drop one "
             "silently",
         hint="raise ValueError when the settings' score lists differ in length")
def no_length_check(scores):
    settings = list(scores)
    n = min(len(v) for v in scores.values())
    return [(chosen, scores[chosen][held]) for held in range(n)
            for chosen in [max(settings, key=lambda s: (_mean_without(scores[s][:n], held),
                                                        -settings.index(s)))]]
