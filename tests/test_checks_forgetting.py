"""Lesson 12's forgetting and fence checkers reject every registered wrong answer (each
with its own hint) and accept two designs each."""
import re
import sqlite3

import pytest

from kit.checks import CheckFailed
from kit.checks.forgetting import check_fence, check_forget
from kit.longterm.forget import forget
from kit.longterm.injection import FENCE_CLOSE, FENCE_OPEN, fence
from kit.mistakes import mistakes
from kit.store import TranscriptStore

CHECKERS = {"forget": check_forget, "fence": check_fence}
CASES = [(m, wrong) for m in CHECKERS for wrong in mistakes(m)]


@pytest.mark.parametrize("mechanism, wrong", CASES, ids=[f"{m}:{w.name}" for m, w in CASES])
def test_each_wrong_answer_is_rejected_with_its_hint(mechanism, wrong):
    with pytest.raises(CheckFailed) as failure:
        CHECKERS[mechanism](wrong.answer)
    assert wrong.hint in str(failure.value)
    others = [w.hint for w in mistakes(mechanism) if w is not wrong]
    assert not any(h in str(failure.value) for h in others)


def test_the_registry_names_the_three_wrong_answers_the_lesson_shows():
    names = {w.name for m in CHECKERS for w in mistakes(m)}
    assert {"forget-misses-summary", "rows-deleted-bytes-left", "unfenced-recall"} <= names


def rows_only_with_the_builds_default(path, session_id, words):
    """The lesson's rows-only forget as a learner writes it: no pragma at all, so the
    build's default decides (Debian's SQLite zeroes what a delete frees, python.org's
    does not), and no VACUUM or checkpoint."""
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE messages SET content = '[forgotten]' WHERE session_id = ? AND "
                   "content LIKE ?", (session_id, f"%{words[0]}%"))
        db.execute("DELETE FROM facts WHERE session_id = ? AND value LIKE ?",
                   (session_id, f"%{words[0]}%"))
        db.execute("DELETE FROM session_state WHERE session_id = ?", (session_id,))
    db.close()


def test_a_rows_only_forget_is_refused_whatever_the_builds_secure_delete_default():
    with pytest.raises(CheckFailed, match="the rows are gone but the file's bytes still hold"):
        check_forget(rows_only_with_the_builds_default)


def kits_forget(path, session_id, words):
    with TranscriptStore(path) as store:
        forget(store, session_id, words=words)


def rebuilt_file(path, session_id, words):
    """Another design: copy what is kept into a fresh file with VACUUM INTO, and swap it in
    (no secure_delete: nothing freed is ever in the new file)."""
    import os
    import re
    pattern = re.compile("|".join(rf"\b{re.escape(w)}\b" for w in words), re.I)
    db = sqlite3.connect(path)
    with db:
        for number, content in db.execute("SELECT number, content FROM messages WHERE "
                                          "session_id = ?", (session_id,)).fetchall():
            if pattern.search(content):
                db.execute("UPDATE messages SET content = '(forgotten)' WHERE session_id = ? "
                           "AND number = ?", (session_id, number))
        for word in words:
            db.execute("DELETE FROM facts WHERE session_id = ? AND value LIKE ?",
                       (session_id, f"%{word}%"))
        db.execute("DELETE FROM session_state WHERE session_id = ?", (session_id,))
    db.execute("PRAGMA journal_mode = DELETE")       # the log folded back and removed
    db.execute(f"VACUUM INTO '{path}.new'")
    db.close()
    os.replace(f"{path}.new", path)
    for side in ("-wal", "-shm"):
        if os.path.exists(path + side):
            os.remove(path + side)


@pytest.mark.parametrize("answer", [kits_forget, rebuilt_file])
def test_two_designs_of_forget_pass(answer, capsys):
    check_forget(answer)
    assert capsys.readouterr().out.startswith("PASS forget_words: 8 cases")


def escaped(text, source):
    """Another fence design: every '<' of the text escaped as an HTML entity."""
    return f"{FENCE_OPEN.format(source=source)}\n{text.replace('<', '&lt;')}\n{FENCE_CLOSE}"


@pytest.mark.parametrize("answer", [fence, escaped])
def test_two_designs_of_fence_pass(answer, capsys):
    check_fence(answer)
    assert capsys.readouterr().out.startswith("PASS fence: 32 cases")


def forgets_every_text_of_the_session(path, session_id, words):
    """Over-forgets for another reason than matching inside words: the kit's forget,
    then every other text of the session replaced too."""
    kits_forget(path, session_id, words)
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE messages SET content = '[forgotten]' WHERE session_id = ?",
                   (session_id,))
    db.close()


def test_an_over_forget_that_is_no_substring_match_is_not_blamed_on_one():
    with pytest.raises(CheckFailed) as failure:
        check_forget(forgets_every_text_of_the_session)
    assert "Rule: every message naming a word loses its text" in str(failure.value)
    assert "matched inside other words" not in str(failure.value)


def forgets_in_every_session(path, session_id, words):
    """A forget with no session in its WHERE: bob's turns naming the word go too."""
    pattern = re.compile("|".join(rf"\b{re.escape(w)}\b" for w in words), re.I)
    kits_forget(path, session_id, words)
    db = sqlite3.connect(path)
    with db:
        for sid, number, content in db.execute("SELECT session_id, number, content FROM "
                                               "messages").fetchall():
            if pattern.search(content):
                db.execute("UPDATE messages SET content = '(gone)' WHERE session_id = ? AND "
                           "number = ?", (sid, number))
    db.close()


def forgets_the_first_word_only(path, session_id, words):
    """Reads ``words[0]`` as the word: the later words of the list are never forgotten."""
    kits_forget(path, session_id, words[:1])


@pytest.mark.parametrize("answer, rule", [
    (forgets_in_every_session, "Rule: a forget touches the session it names only"),
    (forgets_the_first_word_only, "Rule: every message naming a word loses its text")])
def test_a_forget_of_other_sessions_or_of_one_word_is_refused(answer, rule):
    with pytest.raises(CheckFailed) as failure:
        check_forget(answer)
    assert rule in str(failure.value)
    assert "Hint" not in str(failure.value)
