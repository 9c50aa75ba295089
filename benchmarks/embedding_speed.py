"""Benchmark: how fast the packaged embedding model embeds conversation turns.

all-MiniLM-L6-v2 (int8 ONNX, :class:`kit.ranking.dense.OnnxEmbedder`) embeds the turns of
the kit's synthetic long conversation (speaker lines, as recall memory embeds them), or of
a LoCoMo conversation with ``--data``: one turn per call (the floor, measured in the same
run: what an index that embeds each turn as it arrives pays), then in batches of
``--batch`` texts, with 1 and 2 runtime threads. Printed per setting: texts per second
(best of ``--repeat``) and seconds per 1,000 turns. Timing uses ``time.perf_counter``:
figures vary with the machine and its load. Needs the ``semantic`` extra.

Usage: python benchmarks/embedding_speed.py [--turns 256] [--batch 64] [--repeat 2]
       [--data DIR --conversation 26]
"""
from __future__ import annotations

import argparse
import sys
import time

from kit.ranking.dense import INSTALL_HINT, OnnxEmbedder, semantic_available
from kit.synthetic import synthetic_conversation
from kit.trace import Table


def texts_of(args) -> list[str]:
    if args.data:
        from kit.locomo import load_locomo_dir
        conversation = load_locomo_dir(args.data, only=[args.conversation])[0]
    else:
        conversation = synthetic_conversation()
    return [f"{t.speaker}: {t.text}" for t in conversation.turns][:args.turns]


def rate(model: OnnxEmbedder, texts: list[str], batch: int, repeat: int) -> float:
    """Texts per second, best of ``repeat`` runs, ``batch`` texts per call."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for i in range(0, len(texts), batch):
            model(texts[i:i + batch])
        best = min(best, time.perf_counter() - start)
    return len(texts) / best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--data", default=None, metavar="DIR")
    parser.add_argument("--conversation", default="26")
    args = parser.parse_args(argv)
    if not semantic_available():
        print(f"needs the embedding model: {INSTALL_HINT}", file=sys.stderr)
        return 2
    texts = texts_of(args)
    rows, floor = [], None
    for threads in (1, 2):
        model = OnnxEmbedder(threads=threads, batch_size=args.batch)
        for batch in (1, args.batch):
            per_second = rate(model, texts, batch, args.repeat)
            floor = floor or per_second
            rows.append([threads, "one per call" if batch == 1 else f"{batch} per call",
                         f"{per_second:,.0f}", f"{1000 / per_second:.1f}",
                         f"{per_second / floor:.1f}x"])
    print(Table(["threads", "texts", "texts / s", "s per 1,000 turns", "vs one per call, 1 thread"],
                rows, f"all-MiniLM-L6-v2 (int8) on {len(texts)} turns"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
