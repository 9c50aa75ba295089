"""The split machinery (kit.synthetic_changes.SPLITS, split_templates, the fact-memory
benchmark's --splits), tried against what could break it: a caller changing the
templates it was given, spaces and repeats in --splits, a bad --conversations."""
import importlib.util
from pathlib import Path

import pytest

from kit.synthetic_changes import SPLITS, TEMPLATES, split_templates

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "fact_memory.py"


@pytest.mark.parametrize("split", SPLITS)
def test_changing_the_templates_given_changes_no_split(split):
    before = {s: split_templates(s) for s in SPLITS}
    given = split_templates(split)
    for templates in given.values():
        templates.append("a template the caller added {v}")
    assert {s: split_templates(s) for s in SPLITS} == before
    assert not any("a template the caller added {v}" in part
                   for parts in TEMPLATES.values() for part in parts)


class _Ran(Exception):
    pass


def _bench(monkeypatch):
    spec = importlib.util.spec_from_file_location("fact_memory_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    asked = []

    def changing_set(count, split):
        asked.append((count, split))
        return []

    def stop(*args, **kwargs):                 # the first table: the splits were all run
        raise _Ran

    monkeypatch.setattr(bench, "changing_set", changing_set)
    monkeypatch.setattr(bench, "run_changes", lambda conversations, budget: [])
    monkeypatch.setattr(bench, "change_table", stop)
    return bench, asked


def test_the_benchmark_runs_each_split_once_whatever_the_spaces(monkeypatch):
    bench, asked = _bench(monkeypatch)
    with pytest.raises(_Ran):
        bench.main(["--conversations", "2", "--splits", " blind-2, blind-2,,blind "])
    assert asked == [(2, "development"), (2, "held-out"), (2, "blind-2"), (2, "blind")]
    bench, asked = _bench(monkeypatch)
    with pytest.raises(_Ran):
        bench.main(["--conversations", "1"])                    # default: every other split
    assert [split for _, split in asked] == list(SPLITS)


@pytest.mark.parametrize("argv, named", [(["--conversations", "0"], "--conversations"),
                                         (["--splits", "held-out"], "'held-out'"),
                                         (["--splits", "blind-99"], "'blind-99'")])
def test_the_benchmark_names_a_bad_value_before_running_anything(monkeypatch, capsys,
                                                                 argv, named):
    bench, asked = _bench(monkeypatch)
    with pytest.raises(SystemExit) as stopped:
        bench.main(argv)
    assert stopped.value.code == 2 and named in capsys.readouterr().err
    assert asked == []
