"""Map-reduce summarization of a large memory set: summarise batches, then the summaries.

As the batched-summarization request points out, one prompt holding every memory item
overflows the model's context window. Map-reduce summarization instead

1. *map*: packs the items into batches whose prompts fit the ``window`` and summarises
   each batch (the summaries of level 1);
2. *reduce*: packs the level-1 summaries the same way and summarises each batch
   (level 2), and so on until one summary is left. A batch holding one summary has
   nothing to merge: that summary is carried up unchanged, without a model call.

Sizes are in the unit of ``measure`` (default :func:`kit.tokens.cl100k_tokens`: tokens).
Each item is measured once; each prompt is measured once before it is sent, and none is
larger than the window.

Modules: :mod:`~kit.hierarchical.items` (:class:`MemoryItem`, :func:`sample_items`),
:mod:`~kit.hierarchical.prompts` (the batch prompt and its layout),
:mod:`~kit.hierarchical.batching` (:func:`plan_batches` and the packing of a level),
:mod:`~kit.hierarchical.reduce` (the reduce loop: :func:`reduce_rounds`,
:func:`reduce_until_fits`, :func:`pack_in_order`),
:mod:`~kit.hierarchical.mapreduce` (:func:`hierarchical_summary`, the tree it returns,
carrying, termination and retention), :mod:`~kit.hierarchical.stubs` (deterministic
summarisers).
"""
from kit.hierarchical.batching import plan_batches
from kit.hierarchical.items import MemoryItem, as_items, sample_items
from kit.hierarchical.mapreduce import (DEPTHS, HierarchyResult, Summary, WindowExceededError,
                                        hierarchical_summary)
from kit.hierarchical.prompts import (HIERARCHY_PROMPT, ITEMS_HEADER, SUMMARIES_HEADER,
                                      build_batch_prompt, parse_batch_prompt)
from kit.hierarchical.reduce import pack_in_order, reduce_rounds, reduce_until_fits
from kit.hierarchical.stubs import ShrinkingStub, first_sentence_summariser

__all__ = [
    "MemoryItem", "Summary", "HierarchyResult", "WindowExceededError", "DEPTHS",
    "HIERARCHY_PROMPT", "ITEMS_HEADER", "SUMMARIES_HEADER", "as_items", "sample_items",
    "build_batch_prompt", "parse_batch_prompt", "plan_batches", "hierarchical_summary",
    "pack_in_order", "reduce_rounds", "reduce_until_fits",
    "first_sentence_summariser", "ShrinkingStub",
]
