"""Chunking Markdown and the shipped help-centre corpus (kit.rag.documents)."""
import re
from pathlib import Path

import pytest

from kit.rag.documents import (MAX_WORDS, Chunk, check_chunks, chunk_markdown, load_corpus,
                               load_markdown, seed_chunks)

DOC = """# Refunds

Intro line one
continues here.

## Prepaid

Card refunds take five days.

Bank transfers take longer.

## Empty heading

## Cash on delivery

Store credit or a transfer.
"""


def test_seed_chunks_are_the_seed_example():
    assert seed_chunks() == [
        Chunk("c1", "Refunds for prepaid orders take 5 working days.", "refunds.md"),
        Chunk("c2", "Cash-on-delivery refunds are paid as store credit.", "refunds.md")]


def test_chunk_is_frozen():
    with pytest.raises(AttributeError):
        seed_chunks()[0].text = "changed"


def test_chunks_split_at_headings_with_heading_line_and_soft_wraps_joined():
    assert chunk_markdown(DOC, "refunds.md") == [
        Chunk("refunds-01", "Refunds\nIntro line one continues here.", "refunds.md"),
        Chunk("refunds-02", "Prepaid\nCard refunds take five days.\n\nBank transfers take longer.",
              "refunds.md"),
        Chunk("refunds-03", "Cash on delivery\nStore credit or a transfer.", "refunds.md")]


def test_word_cap_separates_paragraphs_into_chunks():
    chunks = chunk_markdown(DOC, "refunds.md", max_words=5)
    assert [c.text for c in chunks] == [
        "Refunds\nIntro line one continues here.",
        "Prepaid\nCard refunds take five days.",
        "Prepaid\nBank transfers take longer.",
        "Cash on delivery\nStore credit or a transfer."]
    assert [c.id for c in chunks] == ["refunds-01", "refunds-02", "refunds-03", "refunds-04"]


def test_long_paragraph_splits_at_sentences_then_words():
    text = "One two three. Four five six seven eight. Nine"
    assert [c.text for c in chunk_markdown(text, "x.md", max_words=3)] == [
        "One two three.", "Four five six", "seven eight. Nine"]
    # sentences of one paragraph are packed with a space
    assert [c.text for c in chunk_markdown(text, "x.md", max_words=6)] == [
        "One two three.", "Four five six seven eight. Nine"]


def test_text_before_first_heading_has_no_heading_line():
    assert chunk_markdown("Preface words.\n\n# Title\nBody.", "a.md") == [
        Chunk("a-01", "Preface words.", "a.md"), Chunk("a-02", "Title\nBody.", "a.md")]


def test_ids_are_deterministic_slugs_of_the_file_stem():
    first = chunk_markdown(DOC, "docs/Refund Policy (2022).md")
    assert first == chunk_markdown(DOC, "docs/Refund Policy (2022).md")
    assert [c.id for c in first] == ["refund-policy-2022-01", "refund-policy-2022-02",
                                     "refund-policy-2022-03"]
    assert {c.source for c in first} == {"docs/Refund Policy (2022).md"}


@pytest.mark.parametrize("text", ["", "   \n\n", "# Only\n## Headings\n"])
def test_text_without_body_is_refused_naming_the_source(text):
    with pytest.raises(ValueError, match=r"no text to chunk in 'empty\.md'"):
        chunk_markdown(text, "empty.md")


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="max_words must be >= 1, got 0"):
        chunk_markdown(DOC, "a.md", max_words=0)
    with pytest.raises(TypeError, match="max_words must be an int, got bool"):
        chunk_markdown(DOC, "a.md", max_words=True)
    with pytest.raises(TypeError, match="text must be a str, got bytes"):
        chunk_markdown(b"# x", "a.md")
    with pytest.raises(ValueError, match=r"source must name a file .* got '\.\.\.md'"):
        chunk_markdown(DOC, "...md")


def test_load_markdown_reads_a_path_and_names_a_missing_one(tmp_path):
    path = tmp_path / "shipping.md"
    path.write_text("## Fees\nFree over 50 EUR.\n", encoding="utf-8")
    assert load_markdown(path) == [Chunk("shipping-01", "Fees\nFree over 50 EUR.", "shipping.md")]
    assert load_markdown(path, source="ship.md")[0].id == "ship-01"
    missing = tmp_path / "nope.md"
    with pytest.raises(FileNotFoundError, match="nope.md"):
        load_markdown(missing)


def test_load_markdown_takes_text_with_a_source_and_refuses_a_path_string():
    assert load_markdown("Some text.", "notes.md") == [Chunk("notes-01", "Some text.", "notes.md")]
    with pytest.raises(ValueError, match="source is required"):
        load_markdown("Some text.")
    with pytest.raises(TypeError, match=r"'kit/data/x\.md' looks like a file path"):
        load_markdown("kit/data/x.md", "x.md")
    with pytest.raises(TypeError, match="got int: 3"):
        load_markdown(3, "x.md")


def test_check_chunks_names_the_bad_chunk():
    good = seed_chunks()
    assert check_chunks(iter(good)) == good
    with pytest.raises(ValueError, match="duplicate chunk id 'c1'"):
        check_chunks(good + [Chunk("c1", "again", "x.md")])
    with pytest.raises(ValueError, match="duplicate chunk id 'c2'"):
        check_chunks([good[1]], existing=["c2"])
    with pytest.raises(ValueError, match="chunk 'c3' has no text"):
        check_chunks([Chunk("c3", "  ", "x.md")])
    with pytest.raises(TypeError, match="chunk 1 must be a Chunk, got str"):
        check_chunks([good[0], "text"])
    with pytest.raises(TypeError, match="one Chunk"):
        check_chunks(good[0])


def test_shipped_corpus_loads_with_unique_ids_under_the_cap():
    chunks = load_corpus()
    ids = [c.id for c in chunks]
    assert 40 <= len(chunks) <= 60
    assert len(set(ids)) == len(ids)
    sources = {c.source for c in chunks}
    assert {"refunds.md", "refund-policy-2022.md", "faq.md", "gift-cards.md",
            "loyalty.md", "shipping.md", "returns.md", "warranty.md", "account.md",
            "payments.md"} == sources
    for chunk in chunks:
        heading, _, body = chunk.text.partition("\n")
        assert 0 < len(body.split()) <= MAX_WORDS, chunk.id
        assert re.fullmatch(rf"{Path(chunk.source).stem}-\d\d", chunk.id)
    assert load_corpus() == chunks  # deterministic


def test_shipped_corpus_has_near_duplicates_and_distractors():
    text = {c.id: c.text for c in load_corpus()}
    assert text["refunds-04"].startswith("Refunds for cash-on-delivery orders\n")
    assert text["refund-policy-2022-03"].startswith("Cash-on-delivery orders (old policy)\n")
    assert "refund" in text["gift-cards-02"] and "refunded" in text["loyalty-02"]


def test_load_corpus_from_a_directory_and_its_errors(tmp_path):
    (tmp_path / "b.md").write_text("# B\nbee", encoding="utf-8")
    (tmp_path / "a.md").write_text("# A\nay", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    assert [c.id for c in load_corpus(tmp_path)] == ["a-01", "b-01"]
    (tmp_path / "a!.md").write_text("clash", encoding="utf-8")  # slug "a" again
    with pytest.raises(ValueError, match="duplicate chunk id 'a-01'"):
        load_corpus(tmp_path)
    with pytest.raises(FileNotFoundError, match="missing"):
        load_corpus(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no .md files in"):
        load_corpus(tmp_path / "empty")
