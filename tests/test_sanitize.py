"""tests/sanitize.cfg: valid configparser, and nbval's reading of it masks what it should."""
import configparser
import re
from pathlib import Path

import pytest

SANITIZE = Path(__file__).with_name("sanitize.cfg")


def sanitize(text: str) -> str:
    """Apply the patterns as nbval 0.11 does (in file order, re.sub)."""
    plugin = pytest.importorskip("nbval.plugin")
    for regex, replace in plugin.get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8")):
        text = re.sub(regex, replace, text)
    return text


def test_is_configparser_with_one_pattern_per_section():
    config = configparser.ConfigParser(interpolation=None)
    config.read(SANITIZE, encoding="utf-8")
    assert config.sections()
    for section in config.sections():
        assert set(config[section]) == {"regex", "replace"}, section


@pytest.mark.parametrize("raw, clean", [
    ("<kit.Memory object at 0x7f3a2b1c0d90>", "<kit.Memory object at 0xADDR>"),
    ("id 0xDEADBEEF", "id 0xADDR"),
    ("summarised in 123.4 ms", "summarised in <TIME>"),
    ("took 1.23 s", "took <TIME>"),
    ("45 \u00b5s \u00b1 1.2 \u00b5s per loop", "<TIME> \u00b1 <TIME> per loop"),
    ("3 \u03bcs and 7 ns", "<TIME> and <TIME>"),
    ("done in 0.12s.", "done in <TIME>."),
])
def test_masks_addresses_and_timings(raw, clean):
    assert sanitize(raw) == clean


@pytest.mark.parametrize("text", [
    "12 messages, 340 tokens, 5 summaries",
    "window of 8 turns: 1.5 summaries per turn",
    "cl100k_base",
])
def test_leaves_counts_and_names_alone(text):
    assert sanitize(text) == text


def test_the_address_rule_is_anchored_and_leaves_sizes_alone():
    # an unanchored 0x[0-9a-fA-F]+ turned "640x480" into "640xADDR"
    assert (sanitize("<Memory at 0x7f3a2b1c9d40> drew a 640x480 image, 3x0x4 grid")
            == "<Memory at 0xADDR> drew a 640x480 image, 3x0x4 grid")


@pytest.mark.parametrize("raw, clean", [
    ("<Figure size 640x480 with 1 Axes>", "<Figure size <SIZE> with 1 Axes>"),
    ("<Figure size 1100x400 with 2 Axes>", "<Figure size <SIZE> with 2 Axes>"),
    ("<Figure size 1280.5x720.25 with 0 Axes>", "<Figure size <SIZE> with 0 Axes>"),
])
def test_figure_sizes_are_normalised(raw, clean):
    assert sanitize(raw) == clean


def test_every_figure_in_the_lessons_outputs_is_normalised():
    texts = [text for path in sorted(SANITIZE.parents[1].glob("solutions/*.ipynb"))
             for text in re.findall(r"<Figure size [^<>]*>", path.read_text(encoding="utf-8"))]
    assert texts
    assert {re.sub(r"\d+ Axes", "N Axes", sanitize(t)) for t in texts} == {
        "<Figure size <SIZE> with N Axes>"}
