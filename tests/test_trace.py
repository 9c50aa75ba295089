"""Trace tables, the laptop table of the summary-memory lesson, plots and the explorer's
logic."""
import matplotlib

matplotlib.use("Agg")
import pytest

from kit.conversations import LAPTOP_TURNS, laptop_trace
from kit.memory import TraceEvent
from kit.trace import Table, describe_event, span, trace_table
from kit.widgets import explore_summary


def test_table_text_and_html_escape_user_text():
    table = Table(["who", "text"], [["user", "<script>alert(1)</script> & co"]], "T")
    text = str(table)
    assert text.splitlines() == ["T", "who   text", "----  ------------------------------",
                                 "user  <script>alert(1)</script> & co"]
    html = table._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
    assert table.column("who") == ["user"]
    with pytest.raises(KeyError, match="'nope'"):
        table.column("nope")
    with pytest.raises(ValueError, match="row 0 has 1 cells, expected 2"):
        Table(["a", "b"], [[1]])


def test_span():
    assert (span(()), span((4,)), span((1, 2, 3)), span((1, 3))) == ("", "4", "1-3", "1, 3")


def test_laptop_table_matches_seed():
    table = laptop_trace()
    assert table.columns == ["after adding", "turns", "size (words)", "compaction?"]
    assert table.column("size (words)") == [7, 11, 19, 26]
    assert table.column("turns") == [1, 2, 3, 4]
    compaction = table.column("compaction?")
    assert [c.startswith("no") for c in compaction] == [True, True, True, False]
    assert compaction[3] == "yes: turns 1-2 folded into the summary"


def test_trace_table_units_and_descriptions():
    events = [TraceEvent(1, "user", 3, 3, 3, 1, 1, "words"),
              TraceEvent(2, "user", 4, 7, 4, 2, 1, "words", "evicted", (1,), "over budget"),
              TraceEvent(3, "user", 1, 5, 5, 2, 2, "words", "failed", (), "TimeoutError: x")]
    table = trace_table(events)
    assert "size (words)" in table.columns and "message (words)" in table.columns
    assert table.column("compaction / eviction") == ["no", "evicted 1 (over budget)",
                                                     "failed: TimeoutError: x"]
    assert describe_event(TraceEvent(1, "user", 1, 1, 1, 1, 1, "tokens", "compacted", (1,), "n")) == "yes: n"


def test_explore_summary_logic():
    table, sizes, memory = explore_summary(LAPTOP_TURNS, budget=20, keep_recent=2)
    assert sizes == {"full history": [7, 11, 19, 26], "summary memory": [7, 11, 19, 26]}
    assert memory.compactions == 1 and table.column("size (words)") == [7, 11, 19, 26]
    _, sizes, memory = explore_summary(LAPTOP_TURNS, budget=10, keep_recent=0)
    # keep_recent=0 folds every turn as soon as the budget is passed; the fact-listing
    # stub keeps every word, so the size stays that of the full history
    assert memory.compactions == 3 and memory.turns == []
    assert sizes["summary memory"] == [7, 11, 19, 26] and memory.summary_tokens == 26
    # an odd keep_recent follows the same split: message 4 is a reply, so the split moves
    # back to its question and messages 3-4 stay, as with keep_recent=2
    _, sizes, memory = explore_summary(LAPTOP_TURNS, budget=20, keep_recent=1)
    assert [t.number for t in memory.turns] == [3, 4] and memory.compactions == 1


def test_plots_draw_one_line_per_strategy():
    from kit.plots import plot_costs, plot_sizes
    ax = plot_sizes({"a": [1, 2, 3], "b": [1, 1, 1]}, "words", budget=2)
    assert len(ax.get_lines()) == 3 and ax.get_ylabel() == "context size (words)"
    ax = plot_costs({"a": [1, 3, 6]})
    assert list(ax.get_lines()[0].get_ydata()) == [1, 3, 6]
    import matplotlib.pyplot as plt
    plt.close("all")


def test_lines_that_coincide_stay_visible():
    """The explorer's full history and summary memory are equal until the first
    compaction: each line has its own style, the later ones thinner and marked on top."""
    from kit.plots import plot_sizes
    _, sizes, _ = explore_summary(LAPTOP_TURNS, budget=40, keep_recent=2)
    assert sizes["full history"] == sizes["summary memory"]          # they coincide here
    full, summary = plot_sizes(sizes, "words").get_lines()
    assert full.get_linestyle() != summary.get_linestyle()
    assert summary.get_linewidth() < full.get_linewidth() and summary.get_marker() != "None"
    import matplotlib.pyplot as plt
    plt.close("all")


def test_summary_explorer_builds_widgets():
    from kit.widgets import summary_explorer
    box = summary_explorer(LAPTOP_TURNS)
    budget, keep = box.children[0].children
    assert (budget.value, keep.value, keep.step) == (20, 2, 2)


def test_summary_explorer_shows_a_picture_of_its_plot_beside_the_live_view():
    import base64

    import matplotlib.pyplot as plt

    from kit.widgets import summary_explorer
    box = summary_explorer(LAPTOP_TURNS)
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    first = base64.b64decode(bundle["image/png"])
    assert first.startswith(b"\x89PNG")
    box.children[0].children[0].value = 60          # a budget no compaction reaches
    assert base64.b64decode(box._repr_mimebundle_()["image/png"]) != first
    plt.close("all")


def test_table_title_must_be_text():
    with pytest.raises(TypeError, match="title must be a str"):
        Table(["a"], [[1]], title=5)


def test_table_refuses_strings_as_columns_or_rows():
    with pytest.raises(TypeError, match="columns must be a list"):
        Table("ab", [[1, 2]])
    with pytest.raises(TypeError, match="row 0 must be a list"):
        Table(["a", "b"], ["xy"])


def test_summary_explorer_refuses_values_outside_its_sliders():
    from kit.widgets import summary_explorer
    with pytest.raises(ValueError, match=r"from 1 to 200 \(the slider's range\), got 500"):
        summary_explorer(LAPTOP_TURNS, budget=500)
    with pytest.raises(ValueError, match="even int from 0 to 10, got 12"):
        summary_explorer(LAPTOP_TURNS, keep_recent=12)
