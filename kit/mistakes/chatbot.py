"""Wrong answers to lesson 07's whole-mechanism exercise, the RAG chatbot turn.

Each class has the exercise's shape, ``RagChatbot(retriever, llm, memory_factory,
top_k)`` with ``ask(session_id, question) -> dict`` (see :mod:`kit.checks.chatbot_turn`),
and gets one step wrong. They share :class:`_Turn`, a right answer cut into steps (the
session's memory, the query, the answer prompt, the verdict, what memory saves), so each
mistake is the one step it overrides. Mechanism name: ``"chatbot turn"``.
"""
from __future__ import annotations

from kit.mistakes import mistake
from kit.rag.chatbot import NOTHING_RETRIEVED, SYSTEM_PROMPT, build_answer_prompt
from kit.rag.citations import find_markers, markers_to_ids, parse_citations
from kit.rag.guardrail import GuardrailResult, check_citations, refuse
from kit.rag.rewrite import REWRITE_SYSTEM, build_rewrite_prompt, clean_query, rewrite_query

MECHANISM = "chatbot turn"
__all__ = ["MECHANISM"]


class _Turn:
    """The right turn, one overridable method per step (not registered)."""

    def __init__(self, retriever, llm, memory_factory, top_k=5):
        self.retriever, self.llm, self.top_k = retriever, llm, top_k
        self.memory_factory, self.memories = memory_factory, {}

    def memory(self, session_id):
        if session_id not in self.memories:
            self.memories[session_id] = self.memory_factory()
        return self.memories[session_id]

    def query(self, history, question):
        return rewrite_query(self.llm, history, question).query

    def search(self, query):
        return self.retriever.search(query, self.top_k)

    def prompt(self, history, chunks, question, query):
        return build_answer_prompt(history, chunks, question)

    def verdict(self, draft, chunks):
        citations = parse_citations(draft, chunks)
        return check_citations(draft, citations), citations.chunk_ids

    def saved(self, answer, chunks):
        return markers_to_ids(answer, chunks)

    def answer(self, history, chunks, question, query):
        draft = self.llm(SYSTEM_PROMPT, self.prompt(history, chunks, question, query))
        return (*self.verdict(draft, chunks), draft)

    def ask(self, session_id, question):
        memory = self.memory(session_id)
        history = memory.context()
        query = self.query(history, question)
        chunks = self.search(query)
        if chunks:
            verdict, cited, _ = self.answer(history, chunks, question, query)
        else:
            verdict, cited = refuse(NOTHING_RETRIEVED), ()
        memory.add("user", question)
        memory.add("assistant", self.saved(verdict.answer, chunks))
        return {"answer": verdict.answer, "query": query,
                "chunk_ids": [c.id for c in chunks], "cited_ids": list(cited)}


@mistake(MECHANISM, "memory-before-model-call",
         "adds the question to memory as soon as the turn starts, before the model call",
         "a model call that fails leaves a question without an answer in memory, and the "
         "retry stores it twice",
         "write memory only after the model call returned")
class SavesQuestionFirst(_Turn):
    def ask(self, session_id, question):
        memory = self.memory(session_id)
        history = memory.context()
        memory.add("user", question)                      # too early
        query = self.query(history, question)
        chunks = self.retriever.search(query, self.top_k)
        if chunks:
            verdict, cited, _ = self.answer(history, chunks, question, query)
        else:
            verdict, cited = refuse(NOTHING_RETRIEVED), ()
        memory.add("assistant", self.saved(verdict.answer, chunks))
        return {"answer": verdict.answer, "query": query,
                "chunk_ids": [c.id for c in chunks], "cited_ids": list(cited)}


@mistake(MECHANISM, "draft-saved-before-guardrail",
         "saves the model's draft to memory right after the call, then runs the guardrail",
         "memory keeps the uncited answer the user never saw, and the next turns build on it",
         "save the refusal, not the draft")
class SavesDraftBeforeGuardrail(_Turn):
    def ask(self, session_id, question):
        memory = self.memory(session_id)
        history = memory.context()
        query = self.query(history, question)
        chunks = self.retriever.search(query, self.top_k)
        if not chunks:
            verdict, cited = refuse(NOTHING_RETRIEVED), ()
            memory.add("user", question)
            memory.add("assistant", verdict.answer)
        else:
            draft = self.llm(SYSTEM_PROMPT, build_answer_prompt(history, chunks, question))
            memory.add("user", question)                  # before the guardrail
            memory.add("assistant", markers_to_ids(draft.strip(), chunks))
            verdict, cited = self.verdict(draft, chunks)
        return {"answer": verdict.answer, "query": query,
                "chunk_ids": [c.id for c in chunks], "cited_ids": list(cited)}


@mistake(MECHANISM, "rewrite-without-fallback",
         "calls the model for the rewrite with no try/except (it checks the reply only)",
         "a timeout of a helper call fails the whole turn, though the raw question would do",
         "a failed rewrite must not fail the turn")
class RewriteWithoutFallback(_Turn):
    def query(self, history, question):
        if not history.strip():
            return question
        reply = self.llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
        query, _ = clean_query(reply)
        return question if query is None else query


@mistake(MECHANISM, "junk-rewrite-used",
         "sends the rewrite reply to retrieval as it came, without clean_query",
         "a chatty or empty reply becomes the search query and retrieves nothing",
         "the rewrite reply is junk")
class JunkRewriteUsed(_Turn):
    def query(self, history, question):
        if not history.strip():
            return question
        try:
            return self.llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question)).strip()
        except Exception:
            return question


@mistake(MECHANISM, "no-rewrite",
         "sends the raw question to retrieval on every turn, follow-ups included",
         "'and for COD?' retrieves nothing: the retriever sees only the query",
         "rewrite the follow-up into a standalone query")
class NoRewrite(_Turn):
    def query(self, history, question):
        return question


@mistake(MECHANISM, "rewrite-on-first-turn",
         "makes the rewrite call on every turn, the first one (no history) included",
         "a model call per first message for nothing, and a rewrite of a question that "
         "needed none",
         "make no rewrite call")
class RewriteOnFirstTurn(_Turn):
    def query(self, history, question):
        try:
            reply = self.llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
        except Exception:
            return question
        query, _ = clean_query(reply)
        return question if query is None else query


@mistake(MECHANISM, "any-marker-passes",
         "lets a draft through when it holds any [n] marker, shown chunk or not",
         "a draft citing [2] when one chunk was shown reaches the user: its claim is backed "
         "by nothing that was retrieved",
         "cites a chunk that was not retrieved")
class AnyMarkerPasses(_Turn):
    def verdict(self, draft, chunks):
        citations = parse_citations(draft, chunks)
        if find_markers(draft):
            return GuardrailResult(True, draft.strip(), "has a citation"), citations.chunk_ids
        return refuse("no citation"), citations.chunk_ids


@mistake(MECHANISM, "one-memory-for-all-sessions",
         "makes one memory in __init__ and uses it for every session",
         "one customer's conversation leaks into another's prompt, and follow-ups resolve "
         "against the wrong history",
         "you used another session's history")
class OneMemoryForAll(_Turn):
    def __init__(self, retriever, llm, memory_factory, top_k=5):
        super().__init__(retriever, llm, memory_factory, top_k)
        self.shared = memory_factory()

    def memory(self, session_id):
        return self.shared


@mistake(MECHANISM, "new-memory-every-ask",
         "calls memory_factory() on every ask instead of keeping the session's memory",
         "every turn starts with no history: follow-ups are never rewritten",
         "a new memory forgets the history")
class NewMemoryEveryAsk(_Turn):
    def memory(self, session_id):
        self.memories[session_id] = self.memory_factory()
        return self.memories[session_id]


@mistake(MECHANISM, "context-numbered-from-zero",
         "numbers the chunks of the answer prompt [0], [1]... (enumerate without start=1)",
         "the model's [1] then names the second chunk: citations point at the wrong source",
         "off by one")
class NumbersFromZero(_Turn):
    def prompt(self, history, chunks, question, query):
        context = "\n\n".join(f"[{n}] {c.text}" for n, c in enumerate(chunks))
        parts = [f"Conversation so far:\n{history}"] if history.strip() else []
        return "\n\n".join(parts + [f"Context:\n{context}", f"Question: {question}"])


@mistake(MECHANISM, "marker-as-index",
         "maps marker [n] to chunks[n] when it lists the cited chunks",
         "turn 1's [1] is reported as c2: the trace and the sources shown are wrong",
         "marker [n] is chunks[n - 1]")
class MarkerAsIndex(_Turn):
    def verdict(self, draft, chunks):
        verdict, _ = super().verdict(draft, chunks)
        cited = [chunks[n].id for n in dict.fromkeys(find_markers(draft)) if n < len(chunks)]
        return verdict, cited


@mistake(MECHANISM, "markers-saved",
         "saves the answer to memory with its [n] markers",
         "[1] meant this turn's first chunk; in the next prompt it sits next to a new [1] "
         "that names another chunk",
         "markers_to_ids")
class SavesMarkers(_Turn):
    def saved(self, answer, chunks):
        return answer


@mistake(MECHANISM, "answers-the-rewritten-query",
         "puts the rewritten query in the answer prompt instead of the user's question",
         "the model answers a search string, not what the user asked",
         "original question")
class AnswersTheQuery(_Turn):
    def prompt(self, history, chunks, question, query):
        return build_answer_prompt(history, chunks, query)


@mistake(MECHANISM, "model-error-swallowed",
         "catches an exception of the answer call and saves a refusal instead",
         "a timeout looks like an answer: the turn is saved, the caller cannot retry, and "
         "no error is counted",
         "let the model's exception propagate")
class SwallowsModelError(_Turn):
    def answer(self, history, chunks, question, query):
        try:
            return super().answer(history, chunks, question, query)
        except Exception:
            return refuse("the model failed"), (), None


@mistake(MECHANISM, "answer-call-with-no-chunks",
         "calls the model to answer even when nothing was retrieved",
         "a model call for nothing: there are no chunks to answer from or to cite",
         "without calling the model")
class AnswersWithNoChunks(_Turn):
    def ask(self, session_id, question):
        memory = self.memory(session_id)
        history = memory.context()
        query = self.query(history, question)
        chunks = self.retriever.search(query, self.top_k)
        verdict, cited, _ = self.answer(history, chunks, question, query)
        memory.add("user", question)
        memory.add("assistant", self.saved(verdict.answer, chunks))
        return {"answer": verdict.answer, "query": query,
                "chunk_ids": [c.id for c in chunks], "cited_ids": list(cited)}


@mistake(MECHANISM, "marker-zero-passes",
         "checks the draft's markers with its own rule, n <= len(chunks), so [0] passes "
         "and names chunks[-1]",
         "a draft citing [0] reaches the user looking cited, its source the last chunk "
         "shown, which the model never named",
         "[0] names no chunk: markers are 1-based")
class MarkerZeroPasses(_Turn):
    def verdict(self, draft, chunks):
        markers = find_markers(draft)
        cited = list(dict.fromkeys(chunks[n - 1].id for n in markers if n <= len(chunks)))
        if markers and all(n <= len(chunks) for n in markers):
            return GuardrailResult(True, draft.strip(), "cited"), cited
        return refuse("invalid or no citation"), cited


@mistake(MECHANISM, "rewrite-fallback-on-timeout-only",
         "falls back to the raw question when the rewrite call raises TimeoutError, and "
         "lets any other error of that call fail the turn",
         "a connection error or a rate limit of a helper call fails the turn, though the "
         "raw question would do",
         "not only TimeoutError")
class RewriteFallbackOnTimeoutOnly(_Turn):
    def query(self, history, question):
        if not history.strip():
            return question
        try:
            reply = self.llm(REWRITE_SYSTEM, build_rewrite_prompt(history, question))
        except TimeoutError:
            return question
        query, _ = clean_query(reply)
        return question if query is None else query


@mistake(MECHANISM, "search-error-swallowed",
         "catches an exception of retriever.search and goes on as if nothing was retrieved",
         "an outage of the search service looks like a question the articles cannot answer: "
         "the refusal is saved in memory, and the caller cannot retry or count the error",
         "a failed search is not 'nothing retrieved'")
class SwallowsSearchError(_Turn):
    def search(self, query):
        try:
            return self.retriever.search(query, self.top_k)
        except Exception:
            return []


@mistake(MECHANISM, "result-reused",
         "keeps one result dict on the bot and updates it on every ask",
         "every result the caller kept (a transcript, the sources shown under an earlier "
         "answer) turns into the latest turn's",
         "a new dict with new lists on every ask")
class ReusesTheResult(_Turn):
    def __init__(self, retriever, llm, memory_factory, top_k=5):
        super().__init__(retriever, llm, memory_factory, top_k)
        self.result = {}

    def ask(self, session_id, question):
        self.result.update(super().ask(session_id, question))
        return self.result


@mistake(MECHANISM, "draft-not-stripped",
         "runs its own guardrail and shows (and saves) the draft as the model returned it, "
         "blank lines included",
         "the reply's leading blank lines reach the user and the history, and the answer "
         "differs from what the guardrail checked",
         "stripped of the white space around it")
class DraftNotStripped(_Turn):
    def verdict(self, draft, chunks):
        verdict, cited = super().verdict(draft, chunks)
        if verdict.passed:
            verdict = GuardrailResult(True, draft, verdict.reason)
        return verdict, cited


@mistake(MECHANISM, "history-from-own-transcript",
         "keeps its own transcript of each session and formats the history from it, "
         "writing to the memory only for the record",
         "the memory's compaction never reaches the prompts: they grow with the whole "
         "conversation, past the budget the memory keeps",
         "not from a transcript of your own")
class HistoryFromOwnTranscript(_Turn):
    def __init__(self, retriever, llm, memory_factory, top_k=5):
        super().__init__(retriever, llm, memory_factory, top_k)
        self.transcripts = {}                         # session id -> [(role, text)]

    def ask(self, session_id, question):
        memory, lines = self.memory(session_id), self.transcripts.setdefault(session_id, [])
        history = "\n".join(f"{role}: {text}" for role, text in lines)
        query = self.query(history, question)
        chunks = self.retriever.search(query, self.top_k)
        if chunks:
            verdict, cited, _ = self.answer(history, chunks, question, query)
        else:
            verdict, cited = refuse(NOTHING_RETRIEVED), ()
        saved = self.saved(verdict.answer, chunks)
        memory.add("user", question)
        memory.add("assistant", saved)
        lines += [("user", question), ("assistant", saved)]
        return {"answer": verdict.answer, "query": query,
                "chunk_ids": [c.id for c in chunks], "cited_ids": list(cited)}
