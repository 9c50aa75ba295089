"""Benchmark: the kit's memories side by side with LangChain, LlamaIndex and Semantic Kernel.

Every memory gets the same conversation (:func:`kit.conversations.shopping_chat`, its
facts planted in the first exchange), the same budget in cl100k tokens, ONE counting
tokenizer and ONE stub summariser, and its context is loaded at every user turn. Printed
per memory, one table per conversation length:

- wall (ms), wall (x floor): time for the whole conversation, adds and loads, and
  that time divided by the floor's in the same run (:class:`kit.floor.FloorMemory`: count each message once,
  running total). The kit's memories and the floor: best of ``--repeat`` runs; the
  peers: best of ``--peer-repeat`` runs (default 1: they are slow). The garbage collector
  is paused while timing, for every memory (as in ``timeit``).
- tokens encoded / conversation: the tokens the shared tokenizer encoded for the memory,
  divided by the tokens of the conversation's messages (1.00: each message counted
  once). "-" for a memory that counts messages, not tokens.
- loads over budget: loads whose context, rendered as the memory returns it and measured
  with the same tokenizer outside the timed part, has more tokens than the budget.
- summariser calls: calls of the stub summariser ("-": the memory has none).
- facts kept: the planted facts (:data:`kit.conversations.PLANTED_FACTS`) in the last
  context loaded.

The shared pieces:

- the tokenizer: :func:`kit.tokens.tiktoken_counter` (cl100k_base), wrapped so it
  counts its calls and the tokens it encoded; its ``ids`` (token ids, for LlamaIndex and
  LangChain's ``get_token_ids``) encode with the same tiktoken encoding and count there too.
- the summariser: :func:`kit.extractive.extract_summary` (the kit's rule-based
  extractive summariser, its default cap of 120 characters/4 tokens, measured with
  characters / 4, so the summariser's own sizing is not counted as the memory's) of
  (current summary, new turns). Each library's model interface gets a thin adapter that
  reads those two from what the library sends: the kit's summary prompt, LangChain's
  ``SUMMARY_PROMPT`` text, LlamaIndex's "Transcript so far" message, Semantic Kernel's
  chat history. Deterministic, no network.

What each memory counts against the budget (each gets the same budget, its own
defaults otherwise):

- floor: each line as rendered, ``"role: content"`` and its line break, measured once;
  the oldest dropped while the running total is over the budget
  (``FloorMemory(measure, budget, count="rendered")``).
- kit TokenWindow, SummaryMemory, RobustSummaryMemory: ``count="rendered"``, everything
  the context string holds (labels, summary title, separators); the summary memories
  keep the 12 newest turns verbatim; RobustSummaryMemory folds down to a target of three
  quarters of the budget (hysteresis, ``target=``) with its safe defaults (summary cap,
  fact check). RecallMemory: every line as sent, its defaults (no summary).
- LangChain ``ConversationSummaryBufferMemory`` and ``ConversationTokenBufferMemory``
  (langchain-classic): ``max_token_limit`` = budget over the buffer's messages, each
  counted as ``"Human: text"`` with the model's ``get_num_tokens`` (the shared
  tokenizer), recounted in full after each popped message; the summary is not counted.
  They take a whole exchange at once (``save_context(input, output)``), so, as in a
  chain, the context is loaded before the exchange is saved: it does not hold the new
  question (the kit's contexts do).
- LlamaIndex ``ChatSummaryMemoryBuffer``: ``token_limit`` = budget over the contents of
  the messages kept verbatim, recounted at every ``get()``; the summary, written inside
  ``get()``, comes on top. ``Memory`` (its defaults: no memory blocks, so messages that
  leave the queue are dropped): ``token_limit`` = budget, of which the chat history may
  use 70 % (``chat_history_token_ratio``), recounted at every ``put()``.
- Semantic Kernel ``ChatHistorySummarizationReducer`` and ``ChatHistoryTruncationReducer``
  count messages, not tokens: ``target_count`` is set to the budget divided by the mean
  size of a rendered message of the conversation (measured once, not timed), so the
  window holds about the budget; ``reduce()`` is awaited at every user turn, as SK's
  samples do before each model call.

Peers are optional (``pip install -e ".[peers]"``); the benchmark says which it found.
Nothing goes to the network: telemetry and tracing are switched off by environment
variables, and a guard blocks (and reports) any connection that is not to this machine.
The peers' deprecation warnings (LangChain's classic memories, LlamaIndex's
ChatSummaryMemoryBuffer) are not shown.

Usage: python benchmarks/peers.py [--messages 2000,10000] [--budget 2000] [--repeat 3]
       [--peer-repeat 1]
"""
from __future__ import annotations

import argparse
import gc
import importlib.metadata
import importlib.util
import os
import socket
import time
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

from kit.conversations import PLANTED_FACTS, facts_in, shopping_chat
from kit.extractive import extract_summary
from kit.floor import FloorMemory
from kit.memory import RecallMemory, RobustSummaryMemory, SummaryMemory, TokenWindow
from kit.prompts import parse_summary_turns
from kit.tokens import get_encoding, tiktoken_counter
from kit.trace import Table
from progress import progress              # benchmarks/progress.py: tqdm on stderr

OFFLINE = {"LANGCHAIN_TRACING_V2": "false", "LANGCHAIN_TRACING": "false",
           "LANGSMITH_TRACING": "false", "LANGSMITH_TRACING_V2": "false",
           "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS": "false",
           "SEMANTICKERNEL_EXPERIMENTAL_GENAI_ENABLE_OTEL_DIAGNOSTICS_SENSITIVE": "false",
           "AZURE_TELEMETRY_DISABLED": "true", "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1"}
# (family, [(distribution, module)]): a family runs when all its modules import
PEERS = [("LangChain", [("langchain-classic", "langchain_classic.memory"),
                        ("langchain-core", "langchain_core")]),
         ("LlamaIndex", [("llama-index-core", "llama_index.core")]),
         ("Semantic Kernel", [("semantic-kernel", "semantic_kernel")])]
KEEP_RECENT = 12
FLOOR = "floor (count once, running total)"


# -- the shared pieces ----------------------------------------------------------------
class SharedTokenizer:
    """cl100k_base, counted: ``tokenizer(text) -> int`` (a kit measure) and
    ``tokenizer.ids(text) -> list[int]``; ``calls`` and ``tokens`` (encoded) add up both."""

    unit = "tokens"

    def __init__(self) -> None:
        self.count, self.encoding = tiktoken_counter("cl100k_base"), get_encoding("cl100k_base")
        self.calls = self.tokens = 0

    def __call__(self, text: str) -> int:
        tokens = self.count(text)
        self.calls, self.tokens = self.calls + 1, self.tokens + tokens
        return tokens

    def ids(self, text: str) -> list[int]:
        ids = self.encoding.encode(text, disallowed_special=())
        self.calls, self.tokens = self.calls + 1, self.tokens + len(ids)
        return ids


class StubSummariser:
    """``summariser(summary, turns) -> str``: :func:`kit.extractive.extract_summary`,
    counted in ``calls``. ``turns``: ``(role, content)`` pairs, role "user" or "assistant"."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, summary: str, turns: list[tuple[str, str]]) -> str:
        self.calls += 1
        return extract_summary(summary, turns)

    def kit_model(self, prompt: str) -> str:
        """The kit's prompt model ``str -> str``: reads the kit's summary prompt."""
        return self(*parse_summary_turns(prompt))


class Contender(NamedTuple):
    """A memory in the table: ``make(tokenizer, summariser) -> driver``; the driver has
    ``user(text) -> loaded`` (add the user message where the memory takes it, load the
    context), ``assistant(text)`` and ``render(loaded) -> str``."""

    name: str
    make: Callable[[SharedTokenizer, StubSummariser], Any]
    peer: bool = False
    summarises: bool = False
    tokenises: bool = True


class Result(NamedTuple):
    seconds: float          # best run, adds and loads
    runs: int
    tokens: int             # encoded by the shared tokenizer, in the measured run
    loads: int
    over: int               # loads over budget
    summariser_calls: int
    facts: dict[str, bool]  # in the last context loaded


# -- the kit's memories ---------------------------------------------------------------
class KitDriver:
    def __init__(self, memory) -> None:
        self.memory = memory

    def user(self, text: str) -> str:
        self.memory.add("user", text)
        return self.memory.context()

    def assistant(self, text: str) -> None:
        self.memory.add("assistant", text)

    def render(self, loaded: str) -> str:
        return loaded


def kit_contenders(budget: int) -> list[Contender]:
    target = budget * 3 // 4
    floor = Contender(FLOOR, lambda t, s: KitDriver(FloorMemory(t, budget=budget,
                                                                  count="rendered")))
    return [
        floor,
        Contender("kit TokenWindow", lambda t, s: KitDriver(
            TokenWindow(budget, t, count="rendered"))),
        Contender(f"kit SummaryMemory, keep_recent {KEEP_RECENT}", lambda t, s: KitDriver(
            SummaryMemory(s.kit_model, budget, KEEP_RECENT, t, count="rendered")),
            summarises=True),
        Contender(f"kit RobustSummaryMemory, target {target:,}", lambda t, s: KitDriver(
            RobustSummaryMemory(s.kit_model, budget, KEEP_RECENT, t, count="rendered",
                                target=target)), summarises=True),
        Contender("kit RecallMemory", lambda t, s: KitDriver(RecallMemory(budget, t))),
    ]


# -- LangChain --------------------------------------------------------------------------
def parse_langchain_prompt(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    """(summary, turns) from LangChain's summary prompt (its last ``Current summary:``
    block and ``New lines of conversation:``, lines ``Human: ...`` / ``AI: ...``)."""
    head, _, lines = prompt.rpartition("\n\nNew lines of conversation:\n")
    summary = head.rpartition("Current summary:\n")[2].strip()
    lines = lines.rpartition("\n\nNew summary:")[0]
    turns: list[tuple[str, str]] = []
    for line in lines.split("\n"):
        prefix, sep, text = line.partition(": ")
        if sep and prefix in ("Human", "AI"):
            turns.append(("user" if prefix == "Human" else "assistant", text))
        elif turns:                                   # a message of several lines
            turns[-1] = (turns[-1][0], f"{turns[-1][1]}\n{line}")
    return summary, turns


def langchain_contenders(budget: int) -> list[Contender]:
    from langchain_classic.memory import (ConversationSummaryBufferMemory,
                                          ConversationTokenBufferMemory)
    from langchain_core._api import LangChainDeprecationWarning
    from langchain_core.language_models.llms import LLM

    warnings.filterwarnings("ignore", category=LangChainDeprecationWarning)  # classic memories

    class StubLLM(LLM):
        """The stub summariser as a LangChain LLM; tokens counted by the shared tokenizer."""

        summariser: Any
        tokenizer: Any

        @property
        def _llm_type(self) -> str:
            return "kit-stub"

        def _call(self, prompt: str, stop=None, run_manager=None, **kwargs: Any) -> str:
            return self.summariser(*parse_langchain_prompt(prompt))

        def get_num_tokens(self, text: str) -> int:
            return self.tokenizer(text)

        def get_token_ids(self, text: str) -> list[int]:
            return self.tokenizer.ids(text)

    class Driver:
        def __init__(self, memory) -> None:
            self.memory, self.question = memory, ""

        def user(self, text: str) -> str:
            self.question = text
            return self.memory.load_memory_variables({"input": text})["history"]

        def assistant(self, text: str) -> None:
            self.memory.save_context({"input": self.question}, {"output": text})

        def render(self, loaded: str) -> str:
            return loaded

    def make(kind):
        return lambda t, s: Driver(kind(llm=StubLLM(summariser=s, tokenizer=t),
                                        max_token_limit=budget))
    return [Contender("LangChain ConversationSummaryBufferMemory",
                      make(ConversationSummaryBufferMemory), peer=True, summarises=True),
            Contender("LangChain ConversationTokenBufferMemory",
                      make(ConversationTokenBufferMemory), peer=True)]


# -- LlamaIndex -------------------------------------------------------------------------
def parse_llamaindex_transcript(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(summary, turns) from ChatSummaryMemoryBuffer's ``"Transcript so far: role:
    content\\n\\n..."`` message; a ``system`` message is the previous summary."""
    body = text.removeprefix('"Transcript so far: ').removesuffix('"\n\n')
    summary, turns = [], []
    for block in body.split("\n\n"):
        role, sep, content = block.partition(": ")
        if not sep:
            continue
        if role == "system":
            summary.append(content)
        elif role in ("user", "assistant"):
            turns.append((role, content))
    return "\n".join(summary), turns


def render_chat(messages) -> str:
    """LlamaIndex or Semantic Kernel messages as ``role: content`` lines."""
    return "\n".join(f"{getattr(m.role, 'value', m.role)}: {m.content}" for m in messages)


def llamaindex_contenders(budget: int) -> list[Contender]:
    from llama_index.core import Settings
    from llama_index.core.base.llms.types import (ChatMessage, ChatResponse,
                                                  CompletionResponse, LLMMetadata,
                                                  MessageRole)
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from llama_index.core.memory import ChatSummaryMemoryBuffer, Memory

    class StubLLM(CustomLLM):
        """The stub summariser as a LlamaIndex chat model (no network, no OpenAI)."""

        summariser: Any = None

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="kit-stub")

        def summarise(self, text: str) -> str:
            return self.summariser(*parse_llamaindex_transcript(text))

        @llm_chat_callback()
        def chat(self, messages, **kwargs: Any) -> ChatResponse:
            reply = self.summarise(messages[-1].content)
            return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=reply))

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
            return CompletionResponse(text=self.summarise(prompt))

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
            raise NotImplementedError("the benchmark's stub does not stream")

    class Driver:
        def __init__(self, memory) -> None:
            self.memory = memory

        def user(self, text: str):
            self.memory.put(ChatMessage(role=MessageRole.USER, content=text))
            return self.memory.get()

        def assistant(self, text: str) -> None:
            self.memory.put(ChatMessage(role=MessageRole.ASSISTANT, content=text))

        def render(self, loaded) -> str:
            return render_chat(loaded)

    def summary_buffer(t, s):
        llm = StubLLM(summariser=s)
        Settings.llm, Settings.tokenizer = llm, t.ids       # nothing falls back to OpenAI
        return Driver(ChatSummaryMemoryBuffer.from_defaults(llm=llm, token_limit=budget,
                                                            tokenizer_fn=t.ids))

    def memory(t, s):
        Settings.llm, Settings.tokenizer = StubLLM(summariser=s), t.ids
        return Driver(Memory.from_defaults(token_limit=budget, tokenizer_fn=t.ids))

    return [Contender("LlamaIndex ChatSummaryMemoryBuffer", summary_buffer, peer=True,
                      summarises=True),
            Contender("LlamaIndex Memory (its defaults: no memory blocks)", memory, peer=True)]


# -- Semantic Kernel --------------------------------------------------------------------
def finish(coroutine):
    """Run a coroutine that never waits (SK's reducer with the stub service) to its end,
    as ``await`` in a running loop would, without an event loop's cost per call.
    Raises RuntimeError if it does wait on something."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("the coroutine waited on I/O; the stub service never should")


def semantic_kernel_contenders(budget: int, target_count: int) -> list[Contender]:
    from semantic_kernel.connectors.ai.chat_completion_client_base import (
        ChatCompletionClientBase)
    from semantic_kernel.contents import (AuthorRole, ChatHistorySummarizationReducer,
                                          ChatHistoryTruncationReducer, ChatMessageContent)
    from semantic_kernel.contents.history_reducer.chat_history_reducer_utils import (
        SUMMARY_METADATA_KEY)

    class StubService(ChatCompletionClientBase):
        """The stub summariser as an SK chat service: reads the previous summary (the
        message marked as one) and the turns from the chat history it is sent."""

        summariser: Any = None

        async def _inner_get_chat_message_contents(self, chat_history, settings):
            summary, turns = [], []
            for m in chat_history.messages:
                if m.metadata.get(SUMMARY_METADATA_KEY):
                    summary.append(m.content)
                elif m.role in (AuthorRole.USER, AuthorRole.ASSISTANT):
                    turns.append((m.role.value, m.content))
            reply = self.summariser("\n".join(summary), turns)
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, content=reply)]

    class Driver:
        def __init__(self, history) -> None:
            self.history = history

        def user(self, text: str):
            self.history.add_user_message(text)
            finish(self.history.reduce())
            return self.history.messages

        def assistant(self, text: str) -> None:
            self.history.add_assistant_message(text)

        def render(self, loaded) -> str:
            return render_chat(loaded)

    def summarising(t, s):
        service = StubService(ai_model_id="kit-stub", summariser=s)
        return Driver(ChatHistorySummarizationReducer(service=service,
                                                      target_count=target_count))

    def truncating(t, s):
        return Driver(ChatHistoryTruncationReducer(target_count=target_count))

    return [Contender(f"Semantic Kernel ChatHistorySummarizationReducer ({target_count} "
                      f"messages)", summarising, peer=True, summarises=True, tokenises=False),
            Contender(f"Semantic Kernel ChatHistoryTruncationReducer ({target_count} "
                      f"messages)", truncating, peer=True, tokenises=False)]


# -- finding the peers, keeping them offline -----------------------------------------------
def find_peers() -> tuple[dict[str, str], dict[str, str]]:
    """({family: "dist version, ..."} found, {family: "dist, ..."} missing)."""
    found, missing = {}, {}
    for family, parts in PEERS:
        if all(importlib.util.find_spec(module.split(".")[0]) is not None
               and importlib.util.find_spec(module) is not None for _, module in parts):
            found[family] = ", ".join(f"{dist} {importlib.metadata.version(dist)}"
                                      for dist, _ in parts)
        else:
            missing[family] = ", ".join(dist for dist, _ in parts)
    return found, missing


def guard_network() -> list[str]:
    """Block every connection and name lookup that is not to this machine; return the
    list the blocked attempts are appended to."""
    blocked: list[str] = []
    local = ("127.0.0.1", "::1", "localhost", None)
    connect, connect_ex, getaddrinfo = (socket.socket.connect, socket.socket.connect_ex,
                                        socket.getaddrinfo)

    def refuse(what: str) -> OSError:
        blocked.append(what)
        return OSError(f"benchmarks/peers.py: network access blocked ({what})")

    def guarded_connect(sock, address):
        if isinstance(address, tuple) and address[0] not in local:
            raise refuse(f"connect {address!r}")
        return connect(sock, address)

    def guarded_connect_ex(sock, address):
        if isinstance(address, tuple) and address[0] not in local:
            raise refuse(f"connect {address!r}")
        return connect_ex(sock, address)

    def guarded_getaddrinfo(host, *args, **kwargs):
        if host not in local:
            raise refuse(f"lookup {host!r}")
        return getaddrinfo(host, *args, **kwargs)

    socket.socket.connect, socket.socket.connect_ex = guarded_connect, guarded_connect_ex
    socket.getaddrinfo = guarded_getaddrinfo
    return blocked


# -- running --------------------------------------------------------------------------------
def run(contender: Contender, turns, check: Callable[[str], int] | None
        ) -> tuple[float, SharedTokenizer, StubSummariser, list[int], dict[str, bool]]:
    """One pass over ``turns``: seconds spent in the memory (adds and loads), the
    tokenizer and summariser it used, and, if ``check`` is given, the size of every
    context loaded (rendered and measured with ``check`` while the clock is stopped)
    and the facts in the last one."""
    tokenizer, summariser = SharedTokenizer(), StubSummariser()
    driver = contender.make(tokenizer, summariser)
    sizes, last, seconds = [], "", 0.0
    gc.collect()
    gc.disable()
    try:
        for role, text in turns:
            start = time.perf_counter()
            if role == "user":
                loaded = driver.user(text)
                seconds += time.perf_counter() - start
                if check is not None:
                    last = driver.render(loaded)
                    sizes.append(check(last))
            else:
                driver.assistant(text)
                seconds += time.perf_counter() - start
    finally:
        gc.enable()
    return seconds, tokenizer, summariser, sizes, facts_in(last)


def measure(contender: Contender, turns, budget: int, repeat: int,
            check: Callable[[str], int]) -> Result:
    """Run ``contender`` ``repeat`` times (the first also checks each context against
    ``budget``); the best time and the first run's figures."""
    seconds, tokenizer, summariser, sizes, facts = run(contender, turns, check)
    for _ in range(repeat - 1):
        seconds = min(seconds, run(contender, turns, None)[0])
    return Result(seconds, repeat, tokenizer.tokens, len(sizes),
                  sum(size > budget for size in sizes), summariser.calls, facts)


def table(n: int, budget: int, contenders: list[Contender], results: list[Result],
          conversation_tokens: int) -> Table:
    floor = results[0].seconds
    loads = results[0].loads
    rows = []
    for contender, r in zip(contenders, results):
        rows.append([
            contender.name, f"{r.seconds * 1000:,.1f}", f"{r.seconds / floor:.2f}",
            f"best of {r.runs}" if r.runs > 1 else "1",
            f"{r.tokens / conversation_tokens:.2f}" if contender.tokenises else "-",
            r.over, r.summariser_calls if contender.summarises else "-",
            f"{sum(r.facts.values())}/{len(PLANTED_FACTS)}"])
    return Table(["memory", "wall (ms)", "wall (x floor)", "timed runs", "tokens encoded / conversation",
                  f"loads over budget (of {loads:,})", "summariser calls", "facts kept"],
                 rows, f"shopping_chat({n:,}), budget {budget:,} cl100k tokens, context loaded "
                       f"at each of the {loads:,} user turns")


def message_counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--messages takes numbers like 2000,10000, got {text!r}")
    if not counts or min(counts) < 2:
        raise argparse.ArgumentTypeError(f"--messages must each be >= 2, got {text!r}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=message_counts, default=[2000],
                        help="conversation lengths, comma-separated (default 2000)")
    parser.add_argument("--budget", type=int, default=2000, help="cl100k tokens (default 2000)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs of the kit's memories and the floor, the best shown "
                             "(default 3)")
    parser.add_argument("--peer-repeat", type=int, default=1,
                        help="timed runs of each peer, the best shown (default 1)")
    args = parser.parse_args()
    if args.budget < 100:
        parser.error(f"--budget must be >= 100 tokens, got {args.budget}")
    if args.repeat < 1 or args.peer_repeat < 1:
        parser.error(f"--repeat and --peer-repeat must be >= 1, got {args.repeat}, "
                     f"{args.peer_repeat}")
    for key, value in OFFLINE.items():
        os.environ.setdefault(key, value)
    blocked = guard_network()
    warnings.filterwarnings("ignore", category=DeprecationWarning)   # the peers' own
    found, missing = find_peers()
    print("peers found: " + ("; ".join(f"{f} ({v})" for f, v in found.items()) or "none"))
    if missing:
        print("peers not found: " + "; ".join(f"{f} ({d})" for f, d in missing.items())
              + '; to run them: pip install -e ".[peers]"')
    check = tiktoken_counter("cl100k_base")      # the same tokenizer, not counted
    for n in args.messages:
        turns = shopping_chat(n)
        conversation = sum(check(text) for _, text in turns)
        per_message = sum(check(f"{role}: {text}\n") for role, text in turns) / n
        target_count = max(2, int(args.budget / per_message))
        contenders = kit_contenders(args.budget)
        if "LangChain" in found:
            contenders += langchain_contenders(args.budget)
        if "LlamaIndex" in found:
            contenders += llamaindex_contenders(args.budget)
        if "Semantic Kernel" in found:
            contenders += semantic_kernel_contenders(args.budget, target_count)
        results = [measure(c, turns, args.budget, args.peer_repeat if c.peer else args.repeat,
                           check) for c in progress(contenders, f"{n:,} messages")]
        print()
        print(table(n, args.budget, contenders, results, conversation))
        print(f"conversation: {conversation:,} tokens in {n:,} messages, "
              f"{per_message:.1f} tokens per rendered message"
              + (f"; Semantic Kernel's target_count {target_count} = budget / that"
                 if "Semantic Kernel" in found else ""))
    print()
    print("network: " + (f"{len(blocked)} attempts blocked: {'; '.join(blocked[:5])}"
                         if blocked else "no connection attempted"))


if __name__ == "__main__":
    main()
