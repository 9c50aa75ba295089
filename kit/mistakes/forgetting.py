"""Wrong forgets (lesson 12's exercise 3, mechanism "forget") and wrong fences (its
exercise 4, mechanism "fence").

A wrong forget has the exercise's signature ``forget_words(path, session_id, words)``
and is rejected by :func:`kit.checks.forgetting.check_forget`; a wrong fence has
``fence(text, source)`` and is rejected by :func:`kit.checks.forgetting.check_fence`.
Each is the kit's own answer with one thing left out.
"""
from __future__ import annotations

import re
import sqlite3

from kit.longterm.forget import FORGOTTEN, topic_pattern
from kit.longterm.injection import FENCE_CLOSE, FENCE_OPEN
from kit.mistakes import mistake

__all__ = ["forget_misses_summary", "forget_leaves_bytes", "forget_misses_facts",
           "forget_inside_words", "unfenced_recall", "closable_fence"]


def _forget(path: str, session_id: str, words, *, state=True, facts=True, scrub=True,
            whole=True) -> None:
    pattern = (topic_pattern(words) if whole else
               re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE))
    db = sqlite3.connect(path)
    try:
        with db:
            # off is SQLite's default build (python.org, macOS); Debian's turns it on
            db.execute(f"PRAGMA secure_delete = {'ON' if scrub else 'OFF'}")
            rows = db.execute("SELECT number, content FROM messages WHERE session_id = ?",
                              (session_id,)).fetchall()
            for number, content in rows:
                if pattern.search(content):
                    db.execute("UPDATE messages SET content = ? WHERE session_id = ? AND "
                               "number = ?", (FORGOTTEN, session_id, number))
            if facts:
                for fid, value in db.execute("SELECT id, value FROM facts WHERE session_id "
                                             "= ?", (session_id,)).fetchall():
                    if pattern.search(value):
                        db.execute("DELETE FROM facts WHERE session_id = ? AND id = ?",
                                   (session_id, fid))
            if state:
                db.execute("DELETE FROM session_state WHERE session_id = ?", (session_id,))
        if scrub:
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()


@mistake("forget", "forget-misses-summary",
         what="the messages and facts naming the topic are forgotten, the saved running "
              "summary is left as it was",
         why="the next context starts with the summary, which still says the secret (in "
             "other words, once a model summarised it)",
         hint="the saved summary (session_state) still holds it")
def forget_misses_summary(path, session_id, words):
    _forget(path, session_id, words, state=False)


@mistake("forget", "rows-deleted-bytes-left",
         what="the rows are updated and deleted, with secure_delete off (SQLite's default "
              "build) and no VACUUM or WAL checkpoint",
         why="every query comes back clean while the database file and its write-ahead "
             "log still hold the text: a copy of the file, a backup or a forensic read "
             "finds it",
         hint="the rows are gone but the file's bytes still hold the text")
def forget_leaves_bytes(path, session_id, words):
    _forget(path, session_id, words, scrub=False)


@mistake("forget", "forget-misses-facts",
         what="the transcript and the summary forget the topic, the fact memory keeps it",
         why="the fact comes back in every context built from the facts",
         hint="the facts table still holds what was forgotten")
def forget_misses_facts(path, session_id, words):
    _forget(path, session_id, words, facts=False)


@mistake("forget", "forget-inside-words",
         what="a message is forgotten when a word occurs anywhere in it, as SQL's LIKE "
              "'%word%' matches, not as a whole word",
         why="forgetting a short name wipes every message with a longer word that holds "
             "it ('Eve' in 'every', 'evening'): what the user never asked to forget is lost",
         hint="the word was matched inside other words")
def forget_inside_words(path, session_id, words):
    _forget(path, session_id, words, whole=False)


@mistake("fence", "unfenced-recall",
         what="recalled and summarised text is put into the prompt bare",
         why="an instruction planted in an earlier turn comes back looking like the "
             "operator's own, and a model that follows instructions obeys it",
         hint="the recalled text goes into the prompt bare")
def unfenced_recall(text, source):
    return text


@mistake("fence", "closable-fence",
         what="the text is wrapped in the fence markers, but a marker inside it is left "
              "as it is",
         why="a planted '</quoted-data>' closes the fence early, and what follows it "
             "reads as the operator's instructions",
         hint="a closing marker inside the text closes the fence early")
def closable_fence(text, source):
    return f"{FENCE_OPEN.format(source=source)}\n{text}\n{FENCE_CLOSE}"
