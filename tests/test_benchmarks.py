"""The benchmark script runs and prints its table (figures are not asserted: no timed tests)."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_memory_add_benchmark_prints_its_table():
    done = subprocess.run([sys.executable, "benchmarks/memory_add.py", "--repeat", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.split(r"\s{2,}", lines[0]) == ["memory", "messages", "us per add", "x floor",
                                             "tokenizer calls per add", "context (tokens)"]
    rows = [re.split(r"\s{2,}", line) for line in lines[2:-2]]
    assert [row[:2] for row in rows[:4]] == [["floor (count once, running total)", n]
                                             for n in ("100", "1,000", "2,000", "10,000")]
    assert len(rows) == 20 and all(row[3] == "1.00" for row in rows[:4])   # the floor is 1x
    # every message is measured once (summary memory also measures each new summary)
    calls = [float(row[4]) for row in rows]
    assert calls[:16] == [1.0] * 16 and all(1.0 <= c <= 1.05 for c in calls[16:])
    for line, name in zip(lines[-2:], ("token window", "summary memory")):
        assert re.fullmatch(rf"{name} \(.*\): per-add time ratio 10000/100 turns: \d+\.\d\d", line)


def test_hierarchical_benchmark_prints_its_table():
    from kit.hierarchical import (build_batch_prompt, first_sentence_summariser,
                                  hierarchical_summary, sample_items)
    from kit.tokens import cl100k_tokens

    done = subprocess.run([sys.executable, "benchmarks/hierarchical.py", "--sizes", "10", "1000",
                           "--window", "2000", "--batch-size", "20"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.split(r"\s{2,}", lines[0]) == ["items", "strategy", "largest prompt (tokens)",
                                             "model calls", "levels", "carried (no call)",
                                             "time (ms)", "fits window"]
    rows = [re.split(r"\s{2,}", line) for line in lines[2:-1]]
    assert [row[:2] for row in rows] == [["10", "single pass"], ["10", "map-reduce"],
                                         ["1,000", "single pass"], ["1,000", "map-reduce"]]
    items = sample_items(1000)                               # the benchmark's items
    single = cl100k_tokens(build_batch_prompt([(it.id, it.text) for it in items]))
    assert rows[2][2:6] == [f"{single:,}", "0", "0", "0"]    # the size it would have had
    assert rows[2][-1] == "no (over window, not sent)" and single > 2000
    mapreduce = hierarchical_summary(items, first_sentence_summariser, window=2000,
                                     batch_size=20)
    assert rows[3][2:6] == [f"{mapreduce.largest_prompt_tokens:,}", str(mapreduce.calls),
                            str(len(mapreduce.levels)), str(mapreduce.carried)]
    assert all(row[-1] == "yes" for row in (rows[0], rows[1], rows[3]))
    assert mapreduce.largest_prompt_tokens <= 2000 and mapreduce.calls >= 1000 // 20
    assert lines[-1] == "window 2,000 tokens, batch size 20"


def test_fact_retention_benchmark_prints_its_table():
    done = subprocess.run([sys.executable, "benchmarks/fact_retention.py", "--lengths", "20",
                           "60", "--budget", "150"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == ("Fact retention: 3 facts planted in message 1, budget 150 tokens, "
                        "keep_recent=4")
    assert lines[1].split()[:4] == ["strategy", "messages", "facts", "kept"]
    rows = [re.split(r"\s{2,}", line) for line in lines[3:]]
    assert [row[:3] for row in rows] == [
        [name, n, "0/3" if i < 3 else "3/3"]
        for i, name in enumerate(["sliding window (6 messages)", "token window",
                                  "careless summary", "preserving summary",
                                  "extractive summary"]) for n in ("20", "60")]
    assert all(len(row) == 7 and row[4].isdigit() for row in rows)
    from kit.retention import retention
    expected = retention(lengths=(20, 60), budget=150)     # the figures come from kit
    assert [[int(x) for x in row[4:]] for row in rows] == [
        [r.context_tokens, r.model_calls, r.summariser_tokens] for r in expected]
    # every memory fits the budget, the careless summary too (its gist stays short), and
    # it does not call the model more often than the preserving summary
    assert all(int(row[4]) <= 150 for row in rows)
    calls = {(row[0], row[1]): int(row[5]) for row in rows}
    assert calls["careless summary", "60"] <= calls["preserving summary", "60"]


def test_retrieval_benchmark_prints_its_table():
    from kit.rag.documents import load_corpus
    from kit.rag.goldset import load_eval_set
    from kit.rag.retrieval import BM25Retriever

    done = subprocess.run([sys.executable, "benchmarks/retrieval.py", "--sizes", "300",
                           "--queries", "20", "--k", "1,3"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.split(r"\s{2,}", lines[0]) == [
        "corpus", "chunks", "queries", "retriever", "build (ms)", "p50 (ms)", "p95 (ms)",
        "recall@1", "recall@3", "add 1 + rebuild (ms)"]
    rows = [re.split(r"\s{2,}", line) for line in lines[2:]]
    assert [row[:4] for row in rows] == [
        [corpus, size, n, name] for corpus, size, n in (("helpcentre", "55", "36"),
                                                        ("generated", "300", "20"))
        for name in ("keyword", "bm25", "hybrid (rrf)")]
    for row in rows:
        assert float(row[7]) <= float(row[8]) <= 1  # recall@1 <= recall@3
    # the benchmark's BM25 recall@3 on the help centre is what the retriever gives here
    bm25, gold = BM25Retriever(load_corpus()), load_eval_set().questions
    hits = sum(q.gold_chunk_id in [c.id for c in bm25.search(q.question, 3)] for q in gold)
    assert rows[1][8] == f"{hits / len(gold):.3f}"


def run_memory_policy(*args):
    done = subprocess.run([sys.executable, "benchmarks/memory_policy.py", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.rstrip("\n").split("\n")


BM25 = ("--embedder", "none")     # recall memory without the model: the tables pinned here


def check_memory_policy_output(lines, conversations, budgets, strategies, search=None):
    """The printed tables hold what kit.policy_bench computes (time apart)."""
    from kit.policy_bench import policy_table, run_policy_benchmark, target_table

    results = run_policy_benchmark(conversations, budgets, strategies, search=search)
    expected, targets = policy_table(results, times=False), target_table(results)
    assert re.split(r"\s{2,}", lines[0]) == expected.columns + ["time (ms)"]
    n = len(conversations) * len(budgets) * len(strategies)
    rows = [re.split(r"\s{2,}", line) for line in lines[2:2 + n]]
    assert lines[2 + n] == "" and len(expected.rows) == n
    assert [row[:-1] for row in rows] == [[str(v) for v in row] for row in expected.rows]
    assert all(re.fullmatch(r"\d[\d,]*", row[-1]) for row in rows)
    at = 3 + n
    assert lines[at] == targets.title
    assert re.split(r"\s{2,}", lines[at + 1]) == targets.columns
    target_rows = lines[at + 3:at + 3 + len(targets.rows)]
    assert [re.split(r"\s{2,}", line) for line in target_rows] == [
        [str(v) for v in row] for row in targets.rows]
    for c in conversations:
        assert any(re.fullmatch(rf"conversation {c.name}: {len(strategies)} strategies x "
                                rf"{len(budgets)} budgets in \d+\.\d\d s", line) for line in lines)
    total = next(i for i, line in enumerate(lines) if line.startswith("total "))
    assert re.fullmatch(r"total \d+\.\d\d s for \d+ runs on [\d,]+ turns; tokenizer calls in "
                        r"all: [\d,]+ \(each distinct text measured once: [\d,]+ texts cached\)",
                        lines[total])
    checked = sum(min(5, len(c.questions)) for c in conversations) * len(budgets) * len(strategies)
    assert lines[total + 1] == (f"context sizes: reported by the memories in {n} of {n} runs "
                                f"(the others measured); {checked:,} loads re-counted by the "
                                f"memories' own rules, all agreeing")
    return rows


def printed_table(lines, table):
    """The rows printed under ``table``'s title, checked against ``table``."""
    at = lines.index(table.title)
    assert re.split(r"\s{2,}", lines[at + 1]) == table.columns
    printed = [re.split(r"\s{2,}", line) for line in lines[at + 3:at + 3 + len(table.rows)]]
    assert printed == [[str(v) for v in row] for row in table.rows]
    return printed


def test_memory_policy_benchmark_prints_its_table():
    from kit.policy_bench import STRATEGIES
    from kit.synthetic import synthetic_conversation

    lines = run_memory_policy("--budgets", "2000", "--sessions", "6", "--turns-per-session", "16",
                              *BM25)
    rows = check_memory_policy_output(lines, [synthetic_conversation(6, 16)], [2000],
                                      list(STRATEGIES), {"embedder": None})
    assert [row[:3] for row in rows] == [["synthetic", s, "2,000"] for s in STRATEGIES]
    assert "open-domain %" not in lines[0]          # the synthetic conversation has none


def test_memory_policy_benchmark_prints_the_ablation_with_a_given_embedder_and_model():
    from kit.ablation import ablation_table, run_ablation
    from kit.llm import fact_listing_summariser
    from kit.ranking.dense import HashingEmbedder
    from kit.synthetic import synthetic_conversation

    lines = run_memory_policy("--budgets", "600", "--sessions", "6", "--turns-per-session", "16",
                              "--strategies", "recall", "--ablation", "--embedder", "hashing",
                              "--llm", "kit.llm:fact_listing_summariser")
    conversation = synthetic_conversation(6, 16)
    options = {"embedder": HashingEmbedder(), "decompose": fact_listing_summariser}
    title = next(line for line in lines if line.startswith("Recall memory, one part switched"))
    expected = ablation_table(run_ablation([conversation], [600], options=options), options,
                              title)
    rows = printed_table(lines, expected)
    assert {"dense retrieval", "model decomposition"} <= {row[0] for row in rows}
    assert "dense, hashing stand-in" not in {row[0] for row in rows}


def test_memory_policy_benchmark_says_how_often_a_given_model_failed(tmp_path):
    import os

    (tmp_path / "down.py").write_text("def llm(prompt):\n    raise RuntimeError('down')\n"
                                      "def embed(texts):\n    raise ConnectionError('down')\n")
    done = subprocess.run([sys.executable, "benchmarks/memory_policy.py", "--sessions", "3",
                           "--turns-per-session", "8", "--budgets", "500", "--strategies",
                           "recall", "--llm", "down:llm", "--embedder", "down:embed"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.rstrip("\n").split("\n")
    embed, llm = lines[-2:]
    calls = re.fullmatch(r"--embedder: (\d+) calls, (\d+) failed \(recall went on with BM25 "
                         r"alone\)", embed)
    assert calls and calls[1] == calls[2] and int(calls[1]) > 0
    calls = re.fullmatch(r"--llm: (\d+) calls, (\d+) failed \(the rule-based split was used "
                         r"instead\)", llm)
    assert calls and calls[1] == calls[2] and int(calls[1]) > 0


def test_memory_policy_benchmark_refuses_a_bad_model_spec_and_cv_on_one_conversation():
    for args, message in ((["--embedder", "nope"], "--embedder must be hashing, openai or "
                                                   "module:name, got 'nope'"),
                          (["--llm", "kit.llm:nowhere"], "--llm 'kit.llm:nowhere'"),
                          (["--llm", "kit.llm:KEEP_WORDS"], "is not callable"),
                          (["--cv"], "--cv needs two conversations or more, got 1")):
        done = subprocess.run([sys.executable, "benchmarks/memory_policy.py", "--sessions", "2",
                               "--turns-per-session", "4", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stdout == "" and message in done.stderr, args


def test_memory_policy_benchmark_on_locomo_conversations_26_and_30():
    import pytest

    from kit.locomo import load_locomo_dir

    try:                                   # from kit.locomo.data_dir(), as the benchmark reads
        conversations = load_locomo_dir(only=["26", "30"])
    except FileNotFoundError as exc:       # the reason says where the data comes from
        pytest.skip(str(exc))
    strategies = ["sliding window", "BM25", "recall"]
    lines = run_memory_policy("--data", "--conversations", "26,30", "--budgets", "2000",
                              "--strategies", ",".join(strategies), *BM25)
    rows = check_memory_policy_output(lines, conversations, [2000], strategies,
                                      {"embedder": None})
    names = [c.name for c in conversations]              # 26, 30 (or conv-26, conv-30)
    assert [row[:2] for row in rows] == [[c, s] for c in names for s in strategies]
    assert [n.removeprefix("conv-") for n in names] == ["26", "30"]
    assert "open-domain %" in lines[0]


def test_memory_policy_benchmark_cross_validates_between_26_and_30():
    import pytest

    from kit.locomo import load_locomo_dir

    try:
        conversations = load_locomo_dir(only=["26", "30"])
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    lines = run_memory_policy("--data", "--conversations", "26,30", "--budgets", "1000",
                              "--strategies", "recall", "--cv", *BM25)
    recall = {row[0]: row[4] for row in (re.split(r"\s{2,}", line) for line in lines[2:4])}
    at = next(i for i, line in enumerate(lines) if line.startswith("Which search parts"))
    rows = [re.split(r"\s{2,}", line) for line in lines[at + 3:at + 5]]
    names = [c.name for c in conversations]
    assert [row[:3] for row in rows] == [["1,000", names[0], names[1]],
                                         ["1,000", names[1], names[0]]]
    for row in rows:   # the default held out is the recall memory of the table above
        assert row[6] == recall[row[1]]
        assert float(row[4]) >= float(recall[row[2]])       # chosen as the best on the other
    assert lines[at + 5:] == []


def test_memory_policy_benchmark_without_data_says_how_to_get_it(tmp_path):
    import os

    env = dict(os.environ, LOCOMO_DIR=str(tmp_path / "absent"))
    done = subprocess.run([sys.executable, "benchmarks/memory_policy.py", "--data"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert f"no LoCoMo folder at {tmp_path / 'absent'}" in done.stderr
    assert "https://github.com/snap-research/locomo" in done.stderr
    done = subprocess.run([sys.executable, "benchmarks/memory_policy.py", "--conversations",
                           "26"], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2 and "--conversations needs --data" in done.stderr


def test_recall_load_benchmark_prints_its_table():
    done = subprocess.run([sys.executable, "benchmarks/recall_load.py", "--messages", "40,120",
                           "--repeat", "1"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == ("shopping chat, budget 2,000 cl100k tokens, context loaded at every "
                        "user turn")
    assert re.split(r"\s{2,}", lines[1]) == ["memory", "messages", "wall (ms)", "x floor",
                                             "us per add", "us per load",
                                             "per load / per load at 40"]
    rows = [re.split(r"\s{2,}", line) for line in lines[3:]]
    assert [row[:2] for row in rows] == [["floor", "40"], ["recall memory", "40"],
                                         ["floor", "120"], ["recall memory", "120"]]
    assert rows[0][3] == rows[2][3] == "1.00" and rows[1][6] == "1.00"
    assert rows[0][6] == "-" and float(rows[3][6]) > 0


def test_recall_load_benchmark_refuses_bad_arguments():
    done = subprocess.run([sys.executable, "benchmarks/recall_load.py", "--messages", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--messages must be >= 2" in done.stderr


def test_serve_load_benchmark_lists_every_configuration_and_checks_the_order():
    done = subprocess.run([sys.executable, "benchmarks/serve_load.py", "--quick", "--workers",
                           "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.rstrip("\n").split("\n")
    assert re.fullmatch(r"Chat service under load: 2 clients, 4 sessions x 3 turns, stub model "
                        r"sleeping 20\.0 ms per call; \d+ CPUs", lines[0])
    number = r"\d[\d,]*\.\d+"
    from kit.serve.service import SERVICE_BUDGET            # the service's own memory
    at = lines.index(f"Reply latency, POST to done (memory budget {SERVICE_BUDGET} tokens)")
    assert re.split(r"\s{2,}", lines[at + 1]) == ["store", "workers", "turns/s", "p50 (ms)",
                                                  "p95 (ms)", "p50 x floor", "p95 x floor",
                                                  "failed", "turn logs in order"]
    rows = [re.split(r"\s{2,}", line) for line in lines[at + 3:lines.index("", at)]]
    sqlite = [row for row in rows if row[0] == "sqlite"]
    redis = [row for row in rows if row[0] == "redis"]
    assert [row[1] for row in sqlite] == ["floor (in-process)", "1"]
    if len(redis) == 1:                     # no redis-server here: a row says why
        assert redis[0][1] == "-" and redis[0][-1].startswith("skipped: no redis-server")
    else:
        assert [row[1] for row in redis] == ["floor (in-process)", "1"]
    assert len(rows) == len(sqlite) + len(redis)
    for row in (row for row in rows if row[1] != "-"):
        assert all(re.fullmatch(number, cell) for cell in row[2:7]), row
        assert float(row[3].replace(",", "")) <= float(row[4].replace(",", ""))  # p50 <= p95
        assert row[7:] == ["0", "4/4"], row           # no failed request, 4 sessions in order
        if row[1] == "floor (in-process)":
            assert row[5:7] == ["1.00", "1.00"]
    at = lines.index("Compaction after the reply (SQLite, summariser 50.0 ms per call)")
    assert re.split(r"\s{2,}", lines[at + 1]) == [
        "workers", "next turn", "compaction", "budget (tokens)", "turns compacted", "turns/s",
        "reply p50 (ms)", "reply p95 (ms)", "p95 / without", "next turn after (ms, p50)",
        "failed", "turn logs in order"]
    rows = [re.split(r"\s{2,}", line) for line in lines[at + 3:at + 7]]
    assert [row[:5] for row in rows] == [
        [n, pause, compaction, budget, compacted] for n in ("1",)
        for pause in ("150.0 ms", "at once")
        for compaction, budget, compacted in (("no", "1,000,000", "0/12"),
                                              ("yes", "40", "8/12"))]  # turns 2, 3 of 4 sessions
    for row in rows:
        assert all(re.fullmatch(number, cell) for cell in row[5:10]), row
        assert row[10:] == ["0", "4/4"], row
        if row[2] == "no":
            assert row[8] == "1.00"
    for line, workers in zip(lines[at + 7:at + 8], ("1 worker",)):
        assert re.fullmatch(rf"{workers}, next turn 150\.0 ms after the reply: reply p95 "
                            rf"{number} ms with compaction, {number} ms without: "
                            rf"(within|NOT within) 1\.25x \+ 10 ms", line), line
    assert lines[at + 8:] == ["order check: passed: every session's turn log complete and in "
                               "order (based_on == turn - 1), no failed request"]


def test_a_long_benchmark_shows_progress_on_stderr_and_a_short_one_nothing(capsys):
    """benchmarks/progress.py: the bar goes to the file given (standard error by default)
    once the loop has run for `delay` seconds; a loop shorter than that prints nothing."""
    import io
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from progress import DELAY, progress
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    shown = io.StringIO()
    assert list(progress(range(3), "runs", delay=0, file=shown)) == [0, 1, 2]
    assert "runs:" in shown.getvalue() and "/3" in shown.getvalue()
    assert list(progress(range(3), "quick runs")) == [0, 1, 2] and DELAY >= 10
    out, err = capsys.readouterr()
    assert "quick runs" not in out + err


def test_fact_memory_benchmark_prints_its_table_and_targets():
    splits = ("blind-2", "blind-11")     # the default, every later split: test_splits_breaker
    done = subprocess.run([sys.executable, "benchmarks/fact_memory.py", "--conversations", "1",
                           "--splits", ",".join(splits)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    policies = [row for row in rows if row and row[0] in ("held-out", "development")]
    assert len(policies) == 10 and policies[0][:2] == ["held-out", "append-only"]
    fact = next(row for row in policies if row[0] == "held-out" and row[1:3] == ["fact", "memory"])
    assert fact[3:9] == ["100", "0", "100", "100", "100", "100"]
    bounds = ("<=", ">=")
    targets = [row for row in rows if len(row) > 3 and row[-3] in bounds]    # held-out, pooled
    assert len(targets) == 10
    targets = targets[:5]                                                    # held-out: met
    assert all(row[-1] == "yes" for row in targets)
    beside = [row for row in rows if len(row) > 5 and row[-5] in bounds]  # held-out, blind
    assert len(beside) == 5 * len(splits)      # one table beside the targets per split
    for table, split in ((beside[5 * i:5 * i + 5], s) for i, s in enumerate(splits)):
        after = [row for row in rows if row and row[0] == split]
        assert [" ".join(row[1:-8]) for row in after] == ["append-only", "overwrite", "summary",
                                                          "recall", "fact memory"]
        assert [row[-3] for row in table] == [row[-4] for row in targets]      # held-out column
        assert [row[-2] for row in table] == [after[-1][3], after[-1][4], after[-1][5],
                                              after[-1][7], after[-1][8]]
        assert [row[-1] for row in table] == [                           # met, by each bound
            "yes" if (int(f) <= int(b) if op == "<=" else int(f) >= int(b)) else "NO"
            for f, op, b in ((row[-2], row[-5], row[-4]) for row in table)]
    pooled = rows[rows.index(["fact", "memory,", "pooled:", "blind-2,", "blind-11", "figure", "%",
                              "bound", "%", "met"]) + 2:][:5]
    per_split = [[float(row[-2]) for row in beside[5 * i:5 * i + 5]] for i in range(2)]
    assert len(pooled) == 5 and all(min(a, b) - 0.5 <= float(row[-4]) <= max(a, b) + 0.5
                                    for row, a, b in zip(pooled, *per_split))   # between
    assert [row[-1] for row in pooled] == [
        "yes" if (float(f) <= int(b) if op == "<=" else float(f) >= int(b)) else "NO"
        for f, op, b in ((row[-4], row[-3], row[-2]) for row in pooled)]
    bad = subprocess.run([sys.executable, "benchmarks/fact_memory.py", "--budget", "0"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "budget" in bad.stderr
    bad = subprocess.run([sys.executable, "benchmarks/fact_memory.py", "--splits", "blnd"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "'blnd'" in bad.stderr


def test_memory_policy_benchmark_runs_the_packaged_model_and_times_it_side_by_side():
    from kit.policy_bench import policy_table, run_policy_benchmark
    from kit.ranking.dense import OnnxEmbedder, semantic_available
    from kit.synthetic import synthetic_conversation

    if not semantic_available():
        import pytest
        pytest.skip('needs the semantic extra: pip install -e ".[semantic]"')
    # the model embeds ahead on a thread while the window runs: the rows keep their order
    lines = run_memory_policy("--budgets", "400,500", "--sessions", "3", "--turns-per-session",
                              "10", "--strategies", "recall,sliding window", "--embedder",
                              "semantic", "--check", "0")
    results = run_policy_benchmark([synthetic_conversation(3, 10)], [400, 500],
                                   ["recall", "sliding window"],
                                   search={"embedder": OnnxEmbedder()})
    expected = policy_table(results, times=False)
    rows = [re.split(r"\s{2,}", line)[:-2] for line in lines[2:6]]   # tokenizer calls:
    assert rows == [[str(v) for v in row[:-1]] for row in expected.rows]   # by run order
    timing = next(line for line in lines if line.startswith("time, every strategy"))
    assert re.fullmatch(r"time, every strategy and budget: without the embedder \d+\.\d\d s, "
                        r"with it \d+\.\d\d s \(cold; [\d,]+ distinct texts embedded\): "
                        r"\d+\.\dx", timing)
    assert lines[-1] == "--embedder: " + lines[-1].split(": ", 1)[1]
    assert lines[-1].endswith("0 failed")
def test_agent_context_benchmark_prints_its_table():
    done = subprocess.run([sys.executable, "benchmarks/agent_context.py", "--traces", "short"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.split(r"\s{2,}", lines[0])[:5] == ["trace", "policy", "tokens sent",
                                                 "peak (tokens)", "overflows"]
    rows = {row[1]: row for row in (re.split(r"\s{2,}", line) for line in lines[2:10])}
    assert len(rows) == 8 and lines[10].startswith("target: ")
    assert rows["full history"][4] == "1 (step 25)" and rows["sliding window"][11] == "1/5"
    assert rows["clearing, clear_at_least"][5] == "149,902 (79%)"
    assert rows["cached compaction"][4:6] == ["0", "233,327 (42%)"]
    assert rows["floor (append, measure once, drop oldest)"][-1] == "1.00"
    assert "for every managed policy: met" in done.stdout


@pytest.mark.parametrize("name", ["serve_load", "reliability", "reliability_http",
                                  "reliability_parsers", "reliability_store"])
def test_the_long_service_and_reliability_benchmarks_show_progress(name):
    """Each runs longer than 10 s at full size: its outer loop goes through progress(),
    imported from benchmarks/progress.py (tqdm on standard error, never in the table)."""
    import ast
    tree = ast.parse((ROOT / "benchmarks" / f"{name}.py").read_text(encoding="utf-8"))
    imported = any(isinstance(node, ast.ImportFrom) and node.module == "progress"
                   and [a.name for a in node.names] == ["progress"] for node in tree.body)
    loops = [node for node in ast.walk(tree) if isinstance(node, (ast.For, ast.comprehension))
             and isinstance(node.iter, ast.Call) and getattr(node.iter.func, "id", "") == "progress"]
    assert imported and loops, name
