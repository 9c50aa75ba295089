"""kit.agent: the pair invariant, clearing, compaction inside the loop, the cache model with
its two profiles, the meter, every policy over the short trace, and compaction priced for the
cache (a cached summariser) over both traces."""
from __future__ import annotations

import pytest

from kit.agent import (ANTHROPIC, OPENAI, AgentContext, ClearToolResults, CompactInLoop,
                       Ledger, PromptCache, cached_compaction, long_trace, make_trace, meter,
                       pair_problems, policies, run_agent, run_policy, short_trace)
from kit.agent.cache import ANTHROPIC_1H, Usage
from kit.agent.compaction import TaskStateModel, split_pairs
from kit.agent.meter import PLACEMENTS
from kit.messages import AGENT_ROLES, make_message
from kit.tokens import count_chat_tokens, count_words


def call(i, name="grep"):
    return [{"id": f"c{i}", "name": name, "arguments": "{}"}]


def step(ctx, i, words, name="grep"):
    ctx.add("assistant", f"step {i}", tool_calls=call(i, name))
    ctx.add("tool", " ".join(["w"] * words), call_id=f"c{i}")


# -- the pair invariant ---------------------------------------------------------------
def test_pair_problems_names_orphans_and_dangling_calls():
    a = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}]}
    r = {"role": "tool", "content": "x", "tool_call_id": "c1"}
    u = {"role": "user", "content": "hi"}
    assert pair_problems([u, a, r, u]) == []
    assert pair_problems([u, a]) == [] and pair_problems([u, a], running=False)
    assert "orphaned result" in pair_problems([u, r])[0]
    assert "dangling call" in pair_problems([a, u])[0]


def test_the_context_refuses_what_breaks_pairs_unchanged():
    ctx = AgentContext(count_words, count="text")
    ctx.add("user", "fix the bug")
    with pytest.raises(ValueError, match="orphaned result"):
        ctx.add("tool", "x", call_id="c9")
    ctx.add("assistant", "look", tool_calls=call(1))
    before = (ctx.messages(), ctx.size)
    with pytest.raises(ValueError, match="wait for their results"):
        ctx.add("user", "hurry")
    assert (ctx.messages(), ctx.size) == before
    ctx.add("tool", "found it", call_id="c1")
    with pytest.raises(ValueError, match="used before"):
        ctx.add("assistant", "again", tool_calls=call(1))
    assert ctx.size == 3 + 1 + 1 + 1 + 2             # the texts, the call's name and "{}"


# -- clearing ------------------------------------------------------------------------
def cleared_run(steps=5, sizes=(10, 20, 30, 40, 50), **options):
    rule = ClearToolResults(placeholder="[cleared {name} {tokens}]", **options)
    ctx = AgentContext(count_words, clearing=rule, count="text")
    ctx.add("user", "the task")
    for i in range(1, steps + 1):
        step(ctx, i, sizes[(i - 1) % len(sizes)], "notes" if i == 2 else "grep")
    return ctx


def test_clearing_keeps_the_newest_excluded_and_user_and_counts_the_placeholder():
    ctx = cleared_run(trigger=100, keep=2, exclude=("notes",))
    contents = [m["content"] for m in ctx.messages() if m["role"] == "tool"]
    assert contents == ["[cleared grep 10]", " ".join(["w"] * 20), "[cleared grep 30]",
                        " ".join(["w"] * 40), " ".join(["w"] * 50)]
    assert ctx.messages()[0]["content"] == "the task" and pair_problems(ctx.messages()) == []
    assert ctx.size == sum(count_words(m["content"]) for m in ctx.messages()) + 5 * 2


def test_clear_at_least_clears_more_at_once_so_it_fires_less_often():
    """Each step adds 24 words; clearing a 20-word result saves 17. With 0, clearing stops
    as soon as the context is back under 100: it fires at every step from step 4."""
    every = cleared_run(12, (20,), trigger=100, keep=1)
    batched = cleared_run(12, (20,), trigger=100, keep=1, clear_at_least=50)
    assert [e["results"] for e in every.trace] == [2, 1, 2, 1, 1, 2, 1, 1]     # steps 5-12
    assert [e["results"] for e in batched.trace] == [3, 3, 2, 1, 1, 1]
    # back under the trigger each time, until only placeholders and the newest are left
    assert [e["after"] for e in every.trace] == [88, 95, 85, 92, 99, 89, 96, 103]
    # the first two fire at steps 5 and 7 and save >= 50; then only the newest-but-one is
    # left to clear (keep=1): placeholders alone hold the context near the trigger
    assert [e["saved"] >= 50 for e in batched.trace] == [True, True, False, False, False, False]


@pytest.mark.parametrize("options, error", [({"trigger": -1}, ValueError),
                                            ({"keep": "3"}, TypeError),
                                            ({"exclude": "grep"}, TypeError),
                                            ({"placeholder": "gone"}, ValueError)])
def test_clearing_options_are_checked(options, error):
    with pytest.raises(error):
        ClearToolResults(**options)


# -- compaction ----------------------------------------------------------------------
def messages(*roles):
    made, n = [], 0
    for role in roles:
        n += role == "assistant"
        kwargs = ({"calls": call(n)} if role == "assistant" else
                  {"call_id": f"c{n}"} if role == "tool" else {})
        made.append(make_message(role, f"{role} {len(made)}", count_words, len(made) + 1,
                                 AGENT_ROLES, **kwargs))
    return made


def test_the_split_never_keeps_a_result_without_its_call_and_keeps_the_question():
    turns = messages("user", "assistant", "tool", "assistant", "tool", "assistant", "tool")
    old, kept = split_pairs(turns, 3)                      # the cut falls on a result
    assert [m.role for m in kept] == ["user", "assistant", "tool", "assistant", "tool"]
    assert [m.content for m in old] == ["assistant 1", "tool 2"]


def run_compacting(summariser):
    ctx = AgentContext(count_words, "be careful", compaction=CompactInLoop(60, 2),
                       summariser=summariser, count="text")
    ctx.add("user", "Refund ORD-48213 for Priya Raman, $1,284.50 by 14 March")
    for i in range(1, 9):
        if i == 4:
            ctx.add("user", "Also write a note for finance")   # the task is folded now
        step(ctx, i, 15)
    return ctx


@pytest.mark.parametrize("summariser, by", [
    (TaskStateModel(), "model"),
    (lambda prompt: "Summary of the task so far: we grep a lot for Priya", "fallback"),
    (lambda prompt: "Refund ORD-48213 for Priya Raman, $1,284.50", "model"),   # repaired
    (lambda prompt: 1 / 0, "fallback"),
    (lambda prompt: "nothing to report", "fallback")])
def test_compaction_keeps_facts_pairs_and_question_whatever_the_model(summariser, by):
    ctx = run_compacting(summariser)
    events = [e for e in ctx.trace if e["event"] == "compacted"]
    assert events and events[-1]["by"] == by and ctx.summariser_calls == len(events)
    text = ctx.context()
    assert all(f in text for f in ("ORD-48213", "Priya Raman", "1,284.50", "14 March"))
    assert pair_problems(ctx.messages()) == [] and ctx.messages()[1]["role"] == "user"
    calls = sum(len(m.get("tool_calls", [])) for m in ctx.messages())
    assert ctx.size == sum(count_words(m["content"]) for m in ctx.messages()) + 2 * calls


@pytest.mark.parametrize("cached", [False, True])
def test_a_summary_longer_than_what_it_folds_is_the_fallbacks_job(cached):
    """A summariser that echoes its prompt keeps every fact, yet its 'summary' is bigger
    than what it folds: committed, the context grows at each fold until it overflows."""
    trace = short_trace()
    ctx = AgentContext(system=trace.system, summariser=lambda prompt: prompt,
                       compaction=CompactInLoop(trigger=4000, keep_recent=4, cached=cached))
    run = run_agent(ctx, trace)
    events = [e for e in ctx.trace if e["event"] == "compacted"]
    assert events and {e["by"] for e in events} == {"fallback"}
    assert run.overflow is None and run.finished
    assert max(e["after"] for e in events) < trace.window // 5


# -- the cache model -----------------------------------------------------------------
def test_automatic_prefix_hits_in_128_token_steps_from_1024():
    cache = PromptCache(OPENAI)
    assert cache.send(("a", "b"), (600, 300), 0) == Usage(0, 0, 900)
    assert cache.send(("a", "b", "c"), (600, 300, 500), 1) == Usage(0, 0, 1400)   # < 1,024
    assert cache.send(("a", "b", "c", "d"), (600, 300, 500, 9), 2) == Usage(1280, 0, 129)
    assert cache.send(("a", "x", "c", "d"), (600, 300, 500, 9), 3) == Usage(0, 0, 1409)
    assert cache.send(("a", "b", "c"), (600, 300, 500), 2 + 301) == Usage(0, 0, 1400)  # expired


def test_breakpoints_write_read_and_look_back_20_blocks():
    cache = PromptCache(ANTHROPIC)
    keys, sizes = tuple(range(70)), (100,) * 70
    assert cache.send(keys[:12], sizes[:12], 0, (11,)) == Usage(0, 1200, 0)
    assert cache.send(keys[:20], sizes[:20], 1, (19,)) == Usage(1200, 800, 0)
    assert cache.send(keys[:40], sizes[:40], 2, (39,)) == Usage(2000, 2000, 0)  # 20 back
    assert cache.send(keys[:65], sizes[:65], 3, (64,)) == Usage(0, 6500, 0)    # 25 back
    assert cache.send(keys[:65], sizes[:65], 4, (39, 64)) == Usage(6500, 0, 0)
    assert cache.send(keys[:5], sizes[:5], 5, (4,)) == Usage(0, 0, 500)         # < 1,024
    assert cache.send(keys[:12], sizes[:12], 4 + 301, (11,)) == Usage(0, 1200, 0)  # expired
    with pytest.raises(ValueError, match="at most 4"):
        cache.send(keys, sizes, 5, (1, 2, 3, 4, 5))
    assert Usage(100, 10, 1).bill(ANTHROPIC_1H) == pytest.approx(1 + 20 + 10)


# -- every policy over the short trace ------------------------------------------------
@pytest.fixture(scope="module")
def runs():
    trace, ledger = short_trace(), Ledger()
    return {name: run_policy(name, trace, ledger) for name in policies(trace.window)}


def test_every_managed_policy_finishes_with_pairs_and_the_question(runs):
    for name, run in runs.items():
        assert run.pair_violations == 0 and run.question_lost == 0, name
        assert run.finished == (name != "full history"), name
        assert run.peak <= run.trace.window or name == "full history"
        assert len(run.facts_kept) == (1 if name == "sliding window" else 5), name


def test_the_meter_bills_every_token_once_and_prices_it(runs):
    run = runs["clearing, clear_at_least"]
    for profile in (OPENAI, ANTHROPIC):
        bill = meter(run, profile)
        assert bill.written + bill.read + bill.uncached == run.sent
        assert bill.bill == pytest.approx(bill.uncached + bill.written * profile.write
                                          + bill.read * profile.read + bill.summariser)
        assert bill.running[-1] == pytest.approx(bill.bill)
    assert meter(run, ANTHROPIC, PLACEMENTS["none"]).bill == run.sent


def test_clearing_every_step_defeats_the_cache(runs):
    for profile in (OPENAI, ANTHROPIC):
        every = meter(runs["clearing, clear_at_least=0"], profile)
        batched = meter(runs["clearing, clear_at_least"], profile)
        assert every.hit_ratio < 0.5 < 0.7 < batched.hit_ratio
        assert batched.bill * 2 < every.bill


def test_the_context_counts_what_a_request_bills():
    """size (count="billed") equals count_chat_tokens of messages() under every policy, after
    clearings, evictions and compactions."""
    trace = short_trace()
    for name, make in policies(trace.window).items():
        ctx = make(trace.system)
        run_agent(ctx, trace)
        assert ctx.size == count_chat_tokens(ctx.messages()), name
        assert bool(ctx.trace) == (name != "full history"), name


def test_an_add_is_all_or_nothing_when_the_measure_fails_in_a_policy():
    """A measure that fails on a placeholder: the add raises and nothing changed; the same
    add then succeeds once the measure works again."""
    broken = {"on": False}

    def measure(text):
        if broken["on"] and text.startswith("[cleared"):
            raise RuntimeError("tokenizer down")
        return count_words(text)

    ctx = AgentContext(measure, clearing=ClearToolResults(trigger=60, keep=1), count="text")
    ctx.add("user", "the task")
    for i in range(1, 3):
        step(ctx, i, 20)
    ctx.add("assistant", "step 3", tool_calls=call(3))
    before = (ctx.messages(), ctx.size, list(ctx.trace), set(ctx.cleared))
    broken["on"] = True
    with pytest.raises(RuntimeError, match="tokenizer down"):
        ctx.add("tool", " ".join(["w"] * 30), call_id="c3")     # over 60: clearing measures
    assert (ctx.messages(), ctx.size, list(ctx.trace), set(ctx.cleared)) == before
    broken["on"] = False
    ctx.add("tool", " ".join(["w"] * 30), call_id="c3")
    assert ctx.trace and ctx.size == sum(count_words(m["content"]) for m in ctx.messages()) + 6


# -- compaction priced for the cache ----------------------------------------------------
def test_a_cached_summariser_reads_the_agents_prefix_and_is_billed_through_the_cache():
    """cached_compaction over the short trace: the targets hold; each fold's request extends
    the agent's last request, so the cache reads that prefix, and the meter bills it with the
    agent's requests."""
    trace, ledger = short_trace(), Ledger()
    run = run_agent(cached_compaction(trace.window)(trace.system), trace, ledger=ledger)
    assert (run.finished, run.pair_violations, run.question_lost) == (True, 0, 0)
    assert run.facts_kept == trace.facts and run.peak <= trace.window // 10 + 4_000
    asked = run.summariser_requests
    assert len(asked) == run.summariser_calls > 10 and run.summariser_tokens == 0
    for fold in asked:
        last = max((r for r in run.requests if r.time < fold.time), key=lambda r: r.time)
        assert fold.keys[:len(last.keys)] == last.keys and len(fold.keys) > len(last.keys)
    for profile in (OPENAI, ANTHROPIC):
        bill = meter(run, profile)
        folds = sum(r.tokens for r in asked)
        assert bill.written + bill.read + bill.uncached == run.sent + folds == \
            run.sent + bill.summariser
        assert len(bill.running) == len(run.requests) and bill.running[-1] == bill.bill
    cache, reads = PromptCache(OPENAI), []          # each fold reads the agent's last request
    for request in sorted(run.requests + asked, key=lambda r: r.time):
        usage = cache.send(request.keys, request.sizes, request.time)
        if request in asked:
            last = max((r for r in run.requests if r.time < request.time), key=lambda r: r.time)
            reads.append(usage.read >= last.tokens - OPENAI.step)
    assert all(reads) and len(reads) == len(asked)


def test_cached_compaction_refuses_bad_options():
    with pytest.raises(TypeError, match="cached must be a bool"):
        CompactInLoop(cached="yes")
    with pytest.raises(ValueError, match="window must be >= 10"):
        cached_compaction(5)


@pytest.mark.parametrize("summariser", [5, "model", 0])
def test_a_summariser_that_is_not_callable_is_refused_by_name(summariser):
    """Else every fold calls it, fails, and the fallback writes: silently never the model
    (a falsy one silently became the stub)."""
    with pytest.raises(TypeError, match=f"summariser must be callable.*{summariser!r}"):
        AgentContext(count_words, "sys", compaction=CompactInLoop(trigger=1),
                     summariser=summariser)


def test_a_failed_add_takes_back_the_cached_summarisers_request():
    broken = {"on": False}

    def measure(text):
        if broken["on"] and text.startswith("Summary of the task"):
            raise RuntimeError("tokenizer down")
        return count_words(text)

    ctx = AgentContext(measure, compaction=CompactInLoop(60, 2, cached=True), count="text")
    ctx.add("user", "Refund ORD-48213 for Priya Raman")
    for i in range(1, 4):
        step(ctx, i, 15)
    asked = list(ctx.summariser_requests)
    ctx.add("assistant", "step 4", tool_calls=call(4))
    broken["on"] = True
    with pytest.raises(RuntimeError, match="tokenizer down"):
        ctx.add("tool", " ".join(["w"] * 30), call_id="c4")
    assert ctx.summariser_requests == asked
    broken["on"] = False
    ctx.add("tool", " ".join(["w"] * 30), call_id="c4")
    assert len(ctx.summariser_requests) == len(asked) + 1
    fold = ctx.summariser_requests[-1]
    assert fold[-1]["role"] == "user" and fold[-1]["content"].startswith("Rewrite the state")
    assert fold[-2] == {"role": "tool", "content": " ".join(["w"] * 30), "tool_call_id": "c4"}


def test_a_fold_request_over_the_window_fails_the_run_before_the_next_request():
    trace = make_trace(12, 3, 600, 6, low=20, high=40)
    ctx = AgentContext(system=trace.system, compaction=CompactInLoop(
        trigger=trace.window - 100, keep_recent=2, cached=True))
    run = run_agent(ctx, trace)
    assert run.overflow is not None and len(run.requests) == run.overflow
    assert run.summariser_requests[-1].tokens > trace.window >= run.peak


def test_cached_compaction_meets_the_targets_on_the_long_trace():
    """The benchmark's best policy over the 400-step trace (about 3 s): every request keeps
    the pairs and the live question, none passes a tenth of the window by more than one
    step's result, and the final context keeps the 5 planted facts."""
    trace = long_trace()
    run = run_agent(cached_compaction(trace.window)(trace.system), trace)
    assert (run.finished, run.pair_violations, run.question_lost) == (True, 0, 0)
    assert run.facts_kept == trace.facts and len(run.requests) == len(trace.steps) + 1
    assert run.peak <= trace.window // 10 + 4_100
    assert max(r.tokens for r in run.summariser_requests) <= trace.window // 10 + 4_200
