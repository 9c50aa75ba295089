"""Retrieval-augmented generation: chunks, retrievers, query rewrite, citations, guardrail,
the chatbot, latency metrics and its evaluation (the end-to-end chatbot lesson).

A plain re-export list: every public name of the modules below, each defined in the
module named after its concept, importable from here as ``from kit.rag import Chatbot``.

- documents (chunks, Markdown chunking, the help centre), goldset (evaluation questions)
- retrieval (keyword, BM25, reciprocal rank fusion), rewrite (standalone query)
- citations ([n] markers), guardrail (no valid citation, no answer)
- metrics (latency in ms), chatbot (one turn), cod (the worked example of the end-to-end
  chatbot lesson)
- judge (groundedness verdicts), stub_models (a quoting stub model)
- evaluate (recall@k and groundedness), multiturn (scripted conversations)

Two functions share their module's name, ``evaluate`` and ``judge``: here they are the
functions. Import other names of those modules from the module itself
(``from kit.rag.judge import parse_verdict``) or from this package.
"""
from kit.rag.chatbot import (FAILED_METRIC, NOTHING_RETRIEVED, SYSTEM_PROMPT, TRACE_COLUMNS,
                             TURN_METRIC, Answer, Chatbot, build_answer_prompt, default_memory,
                             trace_row, trace_table)
from kit.rag.citations import (Citation, CitationResult, find_markers, markers_to_ids,
                               number_chunks, parse_citations)
from kit.rag.cod import COD_QUESTIONS, COD_REPLIES, cod_chatbot, cod_trace
from kit.rag.documents import (MAX_WORDS, Chunk, check_chunks, chunk_markdown, load_corpus,
                               load_markdown, seed_chunks, shipped_file)
from kit.rag.evaluate import ADVICE, EvalReport, EvalRow, diagnose, evaluate
from kit.rag.goldset import (ConversationStep, EvalSet, GoldConversation, GoldQuestion,
                             load_eval_set)
from kit.rag.guardrail import REFUSAL, GuardrailResult, check_citations, refuse
from kit.rag.judge import (JUDGE_STOPWORDS, JUDGE_SYSTEM, NO_CONTEXT, FlakyJudge, Verdict,
                           build_judge_prompt, content_words, judge, overlap_judge,
                           parse_judge_prompt, parse_verdict, split_sentences)
from kit.rag.metrics import LatencyReport, Metrics, percentile
from kit.rag.multiturn import (ConversationReport, StepRow, diagnose_step,
                               evaluate_conversations, normalise_query)
from kit.rag.retrieval import (BM25_STOPWORDS, BM25Retriever, HybridRetriever,
                               KeywordRetriever, Retriever, check_query, keyword_words, rrf,
                               s_stem, tokenize)
from kit.rag.rewrite import (MAX_QUERY_WORDS, REWRITE_SYSTEM, Rewrite, build_rewrite_prompt,
                             clean_query, rewrite_query)
from kit.rag.stub_models import QuotingModel, context_chunks, first_sentence, standalone_table

__all__ = [
    # documents
    "Chunk", "MAX_WORDS", "chunk_markdown", "load_markdown", "load_corpus", "seed_chunks",
    "check_chunks", "shipped_file",
    # goldset
    "GoldQuestion", "ConversationStep", "GoldConversation", "EvalSet", "load_eval_set",
    # retrieval
    "Retriever", "KeywordRetriever", "BM25Retriever", "HybridRetriever", "rrf", "tokenize",
    "s_stem", "keyword_words", "check_query", "BM25_STOPWORDS",
    # rewrite
    "Rewrite", "REWRITE_SYSTEM", "MAX_QUERY_WORDS", "build_rewrite_prompt", "clean_query",
    "rewrite_query",
    # citations
    "Citation", "CitationResult", "number_chunks", "parse_citations", "find_markers",
    "markers_to_ids",
    # guardrail
    "REFUSAL", "GuardrailResult", "check_citations", "refuse",
    # metrics
    "Metrics", "LatencyReport", "percentile",
    # chatbot
    "Chatbot", "Answer", "SYSTEM_PROMPT", "TURN_METRIC", "FAILED_METRIC", "NOTHING_RETRIEVED",
    "default_memory", "build_answer_prompt", "TRACE_COLUMNS", "trace_row", "trace_table",
    # cod
    "COD_QUESTIONS", "COD_REPLIES", "cod_chatbot", "cod_trace",
    # judge
    "JUDGE_SYSTEM", "Verdict", "build_judge_prompt", "parse_judge_prompt", "parse_verdict",
    "judge", "content_words", "split_sentences", "overlap_judge", "FlakyJudge",
    "JUDGE_STOPWORDS", "NO_CONTEXT",
    # stub_models
    "QuotingModel", "standalone_table", "context_chunks", "first_sentence",
    # evaluate
    "EvalRow", "EvalReport", "evaluate", "diagnose", "ADVICE",
    # multiturn
    "StepRow", "ConversationReport", "evaluate_conversations", "diagnose_step",
    "normalise_query",
]
