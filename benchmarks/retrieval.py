"""Benchmark: latency and recall@k of the keyword, BM25 and hybrid (RRF) retrievers.

Two kinds of corpus:
- "helpcentre": the shipped corpus (55 chunks) with its gold questions;
- "generated": a seeded synthetic corpus of --sizes chunks with planted answers. Each
  planted fact has a unique product word and an attribute word; its answer chunk holds
  both once, a hard negative holds the product twice, another the attribute once, and
  filler chunks hold neither. The query is a common word, the attribute and the product,
  so every retriever finds *some* chunk and recall@k measures whether it ranks the
  answer. In one query of five the attribute is swapped for a word no chunk uses (the
  vocabulary mismatch of a paraphrase), leaving only the product to go by.

Per (corpus, retriever) row: the index build time in ms (constructor plus a forced
build, measured once), the search latency in ms per query (p50, p95 over the queries,
each query searched once for the largest k), recall@k: the share of queries whose gold
chunk is among the top k, and the cost in ms of adding one chunk and rebuilding (what a
growing transcript pays once per turn). Timing uses ``time.perf_counter``; figures vary
with the machine and its load, recall does not.

Usage: python benchmarks/retrieval.py [--sizes 10000] [--k 1,3,5] [--queries 200] [--seed 0]
"""
from __future__ import annotations

import argparse
import random
import time

import numpy as np

from kit.rag.documents import Chunk, load_corpus
from kit.rag.goldset import load_eval_set
from kit.rag.retrieval import BM25Retriever, HybridRetriever, KeywordRetriever
from kit.trace import Table
from progress import progress              # benchmarks/progress.py: tqdm on stderr

COMMON = ("order refund delivery parcel payment account return courier invoice store "
          "credit warranty shipping address card transfer balance points gift status "
          "working days price item product customer support update change cancel").split()
CONSONANTS, VOWELS = "bdfgklmnprtvz", "aeiou"


def pseudo_words(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct made-up words of 2 or 3 consonant-vowel syllables."""
    words: set[str] = set()
    while len(words) < count:
        syllables = rng.choice((2, 3))
        words.add("".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(syllables)))
    return sorted(words)


def generated_corpus(size: int, queries: int, seed: int = 0
                     ) -> tuple[list[Chunk], list[tuple[str, str]]]:
    """``size`` chunks and ``queries`` (query, gold id) pairs; deterministic per seed."""
    if queries < 1 or size < 3 * queries:
        raise ValueError(f"need size >= 3 * queries >= 3, got size={size}, queries={queries}")
    rng = random.Random(seed)
    words = pseudo_words(rng, 3000 + 3 * queries)
    rng.shuffle(words)
    products, attributes, unused = (words[i * queries:(i + 1) * queries] for i in range(3))
    pool = words[3 * queries:]

    def filler(n: int) -> list[str]:
        return [rng.choice(COMMON) if rng.random() < 0.6 else rng.choice(pool) for _ in range(n)]

    texts = [" ".join(filler(rng.randint(25, 50))) for _ in range(size)]
    slots = rng.sample(range(size), 3 * queries)
    pairs = []
    for q in range(queries):
        product, attribute = products[q], attributes[q]
        answer, only_product, only_attribute = slots[3 * q:3 * q + 3]
        for slot, planted in ((answer, [product, attribute]), (only_product, [product] * 2),
                              (only_attribute, [attribute])):
            body = filler(rng.randint(20, 40))
            for word in planted:
                body.insert(rng.randrange(len(body) + 1), word)
            texts[slot] = " ".join(body)
        asked = unused[q] if q % 5 == 4 else attribute  # every fifth query paraphrases
        pairs.append((f"{rng.choice(COMMON)} {asked} for the {product}", f"gen-{answer:05d}"))
    chunks = [Chunk(f"gen-{i:05d}", text, "generated") for i, text in enumerate(texts)]
    return chunks, pairs


RETRIEVERS = {
    "keyword": lambda chunks: KeywordRetriever(chunks),
    "bm25": lambda chunks: BM25Retriever(chunks),
    "hybrid (rrf)": lambda chunks: HybridRetriever([KeywordRetriever(chunks),
                                                    BM25Retriever(chunks)]),
}


def measure(factory, chunks, pairs, ks) -> list[object]:
    """[build ms, p50 ms, p95 ms, recall@k for each k, add-1 ms] for one retriever on one
    corpus. The last figure is ``add`` of one more chunk plus the rebuild it causes."""
    start = time.perf_counter()
    retriever = factory(chunks).build()
    build_ms = (time.perf_counter() - start) * 1000
    latencies, hits = [], dict.fromkeys(ks, 0)
    for query, gold in pairs:
        start = time.perf_counter()
        found = retriever.search(query, max(ks))
        latencies.append((time.perf_counter() - start) * 1000)
        ids = [c.id for c in found]
        for k in ks:
            hits[k] += gold in ids[:k]
    p50, p95 = np.percentile(latencies, [50, 95])
    start = time.perf_counter()
    retriever.add([Chunk("bench-extra", "one more chunk about a late refund", "bench")])
    retriever.build()
    add_ms = (time.perf_counter() - start) * 1000
    return [f"{build_ms:.1f}", f"{p50:.3f}", f"{p95:.3f}",
            *(f"{hits[k] / len(pairs):.3f}" for k in ks), f"{add_ms:.1f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000",
                        help="generated corpus sizes in chunks, comma-separated (default 10000)")
    parser.add_argument("--k", default="1,3,5", help="cut-offs for recall@k (default 1,3,5)")
    parser.add_argument("--queries", type=int, default=200,
                        help="planted queries per generated corpus (default 200)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    if not ks or ks[0] < 1:
        parser.error(f"--k needs cut-offs >= 1, got {args.k!r}")

    chunks = load_corpus()
    corpora = [("helpcentre", chunks,
                [(q.question, q.gold_chunk_id) for q in load_eval_set(corpus=chunks).questions])]
    for size in sizes:
        corpora.append(("generated", *generated_corpus(size, args.queries, args.seed)))
    rows = []
    runs = [(name, corpus, pairs, retriever, factory) for name, corpus, pairs in corpora
            for retriever, factory in RETRIEVERS.items()]
    for name, corpus, pairs, retriever, factory in progress(runs, "retrieval runs"):
        rows.append([name, f"{len(corpus):,}", len(pairs), retriever,
                     *measure(factory, corpus, pairs, ks)])
    print(Table(["corpus", "chunks", "queries", "retriever", "build (ms)", "p50 (ms)",
                 "p95 (ms)", *(f"recall@{k}" for k in ks), "add 1 + rebuild (ms)"], rows))


if __name__ == "__main__":
    main()
