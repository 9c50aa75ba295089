"""The reliability campaign: faults injected, and what was lost.

Four parts, each bounded, on this machine only (loopback sockets, temporary files),
stopping by itself in a few minutes:

1. **Summariser faults** (:mod:`kit.reliability`): each memory with a summary, with and
   without the extractive fallback, replays a 1,000-message shopping chat while its
   summariser raises, hangs past the timeout, answers empty or with junk on one call in
   four, or is down for 10, 100 or 1,000 messages. Rows: faults injected,
   turns lost, model calls and kB of prompts sent, the most summariser threads at once, whether the
   memory ends within budget, and how many messages after an outage it was back.
2. **SIGKILL** (``reliability_store.kills``): acknowledged adds lost and restores.
3. **Hostile servers** (``reliability_http.scenarios``): what the real-model client did.
4. **Parsers** (``reliability_parsers.ratios``): time at 1 MB / time at 100 kB of
   adversarial input for every parser of user, document or model text (linear: <= 20).

Usage: python benchmarks/reliability.py [--quick] [--skip kills,http,parsers]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the sibling benchmark parts

from kit.reliability import KINDS, run  # noqa: E402
from kit.trace import Table  # noqa: E402
from progress import progress              # benchmarks/progress.py: tqdm on stderr

FAULTS = [("raise", {}), ("timeout", {}), ("empty", {}), ("junk", {}),
          ("outage", {"outage": 10}), ("outage", {"outage": 100}),
          ("outage", {"outage": 1000, "messages": 1300})]


def fault_rows(quick: bool = False) -> list[dict]:
    """One row per memory kind, fallback and fault (see the module docstring); ``quick``:
    400 messages and no 1,000-message outage."""
    rows = []
    cells = [(fallback, kind, fault, options) for fallback in (True, False) for kind in KINDS
             for fault, options in FAULTS if not (quick and options.get("outage", 0) >= 1000)]
    for fallback, kind, fault, options in progress(cells, "fault runs"):
        if quick:
            options = {**options, "messages": 400}
        rows.append(run(kind, fault, fallback=fallback, **options))
    return rows


def _table(rows: list[dict], columns: list[str]) -> Table:
    return Table(columns, [["—" if row.get(c) is None else row.get(c) for c in columns]
                           for row in rows])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs (for a smoke test)")
    parser.add_argument("--skip", default="", help="comma-separated: kills, http, parsers")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))

    rows = fault_rows(args.quick)
    length = "400 messages" if args.quick else "1,000 messages (1,300 for the longest outage)"
    print(f"1. Summariser faults: {length}, budget 300 cl100k tokens, one call in four "
          f"faulty; outages from message 50 on")
    print(_table(rows, ["kind", "fallback", "fault", "faults", "lost", "model_calls",
                        "prompt_kb", "threads_most", "over_budget_at_end",
                        "recovered_after"]))
    print(f"turns lost in all: {sum(r['lost'] for r in rows)}")
    if "kills" not in skip:
        from reliability_store import kills
        result = kills(20 if args.quick else 60)
        print("\n2. SIGKILL during adds, compactions and a locked file")
        print(_table([result], list(result)))
    if "http" not in skip:
        from reliability_http import scenarios
        http = scenarios()
        print("\n3. Hostile servers (loopback)")
        print(_table(http, list(http[0])))
        print(f"credentials sent off-origin: {sum(r['credentials_sent_off_origin'] for r in http)}; "
              f"calls bounded: {sum(r['bounded'] for r in http)} of {len(http)}")
    if "parsers" not in skip:
        from reliability_parsers import ratios
        parsers = [{**r, "t_100k_s": f"{r['t_100k_s']:.4f}", "t_1m_s": f"{r['t_1m_s']:.4f}",
                    "ratio": f"{r['ratio']:.1f}"} for r in ratios()]
        print("\n4. Parser scaling: time at 1 MB / time at 100 kB (linear: <= 20)")
        print(_table(parsers, list(parsers[0])))
        print(f"within the bound: {sum(r['ok'] for r in parsers)} of {len(parsers)}")


if __name__ == "__main__":
    main()
