"""Command line: `python -m kit tokens TEXT`, `python -m kit trace laptop`,
`python -m kit trace cod`, and the drills: `python -m kit drill --list`,
`python -m kit drill NAME --start` (copy its starter to work/drills/ and start the clock),
`python -m kit drill NAME FILE` (the scored rubric of your answer), and the chat service:
`python -m kit serve --workers 4 --store sqlite:chat.db` (or `--store redis://...`)."""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

__all__ = ["main"]


def _tokens(args: argparse.Namespace) -> None:
    from kit.tokens import count_tokens
    print(count_tokens(args.text, args.encoding))


def _trace(args: argparse.Namespace) -> None:
    if args.example == "cod":
        from kit.rag.cod import cod_trace
        print(cod_trace())
        return
    from kit.conversations import laptop_memory, laptop_trace
    print(laptop_trace())
    memory = laptop_memory()
    print(f"\nFinal context:\n{memory.context()}\n")
    print(f"{memory.summary_tokens} summary words + {memory.turn_tokens} verbatim words "
          f"= {memory.size} words (budget {memory.budget}: keep_recent wins)")


def _python() -> str:
    """How to call this interpreter: ``.venv/bin/python`` inside the repository's venv."""
    from pathlib import Path
    here = Path(sys.executable)
    try:
        return str(here.relative_to(Path.cwd()))
    except ValueError:
        return "python"


NONCE_VARIABLE = "KIT_DRILL_NONCE"   # the child's verdict line starts with it
OUTPUT_LIMIT = 4_000                 # characters of output passed through (an answer may print)


def _check_child(name: str, file: str) -> int:
    """In the child process: load the answer, print the rubric, then the verdict line.

    The verdict starts with a nonce the parent put in the environment, removed before the
    answer is loaded, so nothing the answer prints can pass for it."""
    from kit.drills import candidate_report, get, load_answer
    nonce = os.environ.pop(NONCE_VARIABLE, "")
    drill = get(name)                        # the drills load before the answer can patch them
    try:
        answer = load_answer(drill.name, file)
    except (FileNotFoundError, ValueError):
        raise
    except Exception as error:          # noqa: BLE001 (the candidate's file did not import)
        where = f", line {error.lineno}" if isinstance(error, SyntaxError) else ""
        print(f"python -m kit drill: {file}{where} does not import: "
              f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    report = candidate_report(drill.name, answer)
    print(report.text())
    got, out_of = report.score
    print(f"{nonce} {got} {out_of}", flush=True)
    return 0 if report.passed else 1


def _cut(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    return text[:OUTPUT_LIMIT] + f"\n... ({len(text) - OUTPUT_LIMIT} more characters cut)\n"


def _check(name: str, file: str, timeout: float) -> int:
    """Run the check in a child process, bounded by ``timeout`` seconds, and report it:
    0 only when the child printed a full score under the nonce and exited 0."""
    import secrets
    import subprocess
    nonce = secrets.token_hex(12)
    env = dict(os.environ, **{NONCE_VARIABLE: nonce})
    command = [sys.executable, "-m", "kit", "drill", name, file, "--child"]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as late:
        shown = late.stdout.decode(errors="replace") if isinstance(late.stdout, bytes) else \
            (late.stdout or "")
        print(_cut(shown), end="")
        print(f"python -m kit drill: the check did not finish within {timeout:g} s (does your "
              f"code loop or wait?): not a pass", file=sys.stderr)
        return 1
    lines = done.stdout.splitlines(keepends=True)
    verdicts = [line for line in lines if line.startswith(nonce + " ")]
    print(_cut("".join(line for line in lines if not line.startswith(nonce + " "))), end="")
    print(_cut(done.stderr), end="", file=sys.stderr)
    if done.returncode == 2:
        return 2
    if len(verdicts) != 1:
        print(f"python -m kit drill: the check ended before its verdict (exit code "
              f"{done.returncode}: did your code exit or crash the process?): not a pass",
              file=sys.stderr)
        return 1
    got, out_of = (int(n) for n in verdicts[0].split()[1:3])
    return 0 if done.returncode == 0 and got == out_of else 1


def _drill(args: argparse.Namespace) -> int:
    import json
    import shutil
    from pathlib import Path

    from kit.drills import drills, elapsed_text, get
    if args.child:
        return _check_child(args.name, args.file)
    if args.list or not args.name:
        for drill in drills():
            print(f"{drill.name:<22} {drill.minutes:>3} min  {drill.title}  "
                  f"(work/drills/{drill.notebook}.ipynb)")
        return 0
    drill = get(args.name)
    if args.spec or args.hint is not None:
        from kit.drills import hint_text, spec_text
        print(spec_text(drill.name) if args.hint is None else hint_text(drill.name, args.hint))
        if args.hint is None:
            here = os.path.relpath(sys.executable)          # the interpreter that runs the kit
            python = sys.executable if here.startswith("..") else here
            print(f"\nIn a terminal (the notebook's cells aside): {python} -m kit drill "
                  f"{drill.name} --start copies the starter to work/drills/ and starts the "
                  f"clock; {python} -m kit drill {drill.name} FILE scores it.\n"
                  f"Hints, one level at a time: {python} -m kit drill {drill.name} --hint 1 "
                  f"(then 2, then 3)")
        return 0
    if args.start:
        repo = Path(__file__).resolve().parents[1]
        starter = repo / "notebooks" / "drills" / f"{drill.notebook}.py"
        target = Path(args.file) if args.file else repo / "work" / "drills" / starter.name
        if target.is_dir():
            raise ValueError(f"{target} is a folder: name the .py file to write, or leave it "
                             f"out for work/drills/{starter.name}")
        kept = target.exists()
        try:
            if not kept:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(starter, target)
            (target.parent / f".{drill.name}.started").write_text(json.dumps(time.time()))
        except OSError as error:
            raise ValueError(f"cannot write in {target.parent}: {error}") from None
        print(f"{drill.title}: {drill.minutes} min, from now. "
              f"{'Your file is kept: ' if kept else ''}write {drill.symbol} in {target}, then "
              f"run:\n  {_python()} -m kit drill {drill.name} {target}\n"
              f"The spec: {_python()} -m kit drill {drill.name} --spec; hints one at a "
              f"time: --hint 1, 2, 3; the notebook: work/drills/{drill.notebook}.ipynb")
        return 0
    if not args.file:
        raise ValueError(f"name the file with your {drill.symbol}: "
                         f"python -m kit drill {drill.name} FILE")
    if not Path(args.file).is_file():
        raise FileNotFoundError(f"no file {args.file}")
    code = _check(drill.name, args.file, args.timeout)
    stamp = Path(args.file).parent / f".{drill.name}.started"
    if stamp.is_file() and code != 2:
        print(elapsed_text(json.loads(stamp.read_text())))
    return code


def _number(kind: type, least: float, *, inclusive: bool = True, top: float = math.inf):
    """An argparse type: a ``kind`` number >= ``least`` (> with ``inclusive=False``) and
    <= ``top`` (finite); argparse names the option in its error."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        low = value >= least if inclusive else value > least
        if not (low and value <= top and math.isfinite(value)):     # also refuses NaN
            most = f" and <= {top:g}" if math.isfinite(top) else ""
            raise argparse.ArgumentTypeError(
                f"must be {'>=' if inclusive else '>'} {least:g}{most}, got {text}")
        return value
    return parse


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError:
        raise ValueError("the service needs the serve extra: pip install -e '.[serve]'") from None
    from kit.serve.app import ENV, build_service
    from kit.serve.redis_store import redact
    if args.workers > 1 and args.store.strip() == "sqlite::memory:":
        raise ValueError("sqlite::memory: is one store per process: with --workers "
                         f"{args.workers} each worker would have its own; give a file")
    if args.workers > 1 and args.lock == "local":
        print(f"python -m kit serve: --lock local with {args.workers} workers: each worker "
              f"locks only its own turns, and turns of one session will be lost (the "
              f"failure lesson 10 shows)", file=sys.stderr)
    settings = {"HOST": args.host, "STORE": args.store, "LOCK": args.lock, "TTL": args.lease,
                "WAIT": args.wait, "MODEL_DELAY": args.model_delay,
                "SUMMARY_DELAY": args.summary_delay, "BUDGET": args.budget,
                "KEEP_RECENT": args.keep_recent, "MAX_BODY": args.max_body,
                "STREAM_DELAY": args.stream_delay, "BODY_TIMEOUT": args.body_timeout,
                "HEADER_TIMEOUT": args.header_timeout,
                "ACCEPT_DATA_LOSS": "1" if args.accept_data_loss else None}
    env = {ENV + key: str(value) for key, value in settings.items() if value is not None}
    try:                                       # every setting checked here, once
        service, options = build_service(env)
    except TypeError as exc:
        raise ValueError(str(exc)) from None
    service.store.close()
    if options["warning"]:
        print(f"python -m kit serve: WARNING: {options['warning']} (/health says so too)",
              file=sys.stderr)
    os.environ.update(env)                     # what the worker processes read
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"python -m kit serve: listening on {args.host}: reachable from other "
              f"machines, with no authentication", file=sys.stderr)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"python -m kit serve: http://{shown}:{args.port}/ ({args.workers} worker"
          f"{'s' * (args.workers > 1)}, store {redact(args.store)}, lock {args.lock}); "
          f"Ctrl-C stops it", file=sys.stderr, flush=True)
    from kit.serve.limits import PROTOCOL
    uvicorn.run("kit.serve.app:app_from_env", factory=True, host=args.host, port=args.port,
                workers=args.workers, log_level=args.log_level, access_log=False,
                http=PROTOCOL, limit_concurrency=args.limit_concurrency)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    tokens = sub.add_parser("tokens", help="count the tokens of a text (offline)")
    tokens.add_argument("text")
    tokens.add_argument("--encoding", default="cl100k_base",
                        help="cl100k_base (default), o200k_base, or a model name")
    tokens.set_defaults(run=_tokens)
    trace = sub.add_parser("trace", help="print a worked example of the course")
    trace.add_argument("example", choices=["laptop", "cod"])
    trace.set_defaults(run=_trace)
    drill = sub.add_parser("drill", help="list the live-coding drills, or check your answer")
    drill.add_argument("name", nargs="?", help="the drill, e.g. summary-memory")
    drill.add_argument("file", nargs="?", help="the .py file with your answer")
    drill.add_argument("--list", action="store_true", help="list the drills")
    drill.add_argument("--start", action="store_true",
                       help="copy the starter to work/drills/ (or FILE) and start the clock")
    drill.add_argument("--spec", action="store_true",
                       help="print the drill's spec and worked examples")
    drill.add_argument("--hint", type=int, choices=(1, 2, 3),
                       help="print one hint of the ladder: 1 nudge, 2 approach, 3 pseudo-code")
    drill.add_argument("--timeout", type=float, default=300,
                       help="seconds the check may take before it counts as failed (300)")
    drill.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    drill.set_defaults(run=_drill)
    serve = sub.add_parser("serve", help="serve the chatbot over HTTP, with its chat page")
    from kit.serve.stores import LONGEST     # no serve extra needed for this
    seconds = _number(float, 0, inclusive=False, top=LONGEST)
    delay = _number(float, 0, top=LONGEST)
    serve.add_argument("--store", default="sqlite:chat.db",
                       help="sqlite:PATH (default sqlite:chat.db) or a redis:// URL")
    serve.add_argument("--workers", type=_number(int, 1, top=64), default=1, help="worker processes (1)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (127.0.0.1: this machine only)")
    serve.add_argument("--port", type=_number(int, 0, top=65535), default=8000, help="port (8000)")
    serve.add_argument("--lock", choices=["lease", "local"], default="lease",
                       help="lease: the store's lease and fencing token (default); local: "
                            "a lock in each process, wrong with several workers (lesson 10)")
    serve.add_argument("--lease", type=seconds, default=10.0,
                       help="seconds a session's lease lasts unless renewed: its ttl (10)")
    serve.add_argument("--wait", type=seconds, default=30.0,
                       help="seconds a turn waits for a busy session before 503 (30)")
    serve.add_argument("--model-delay", type=delay, default=0.0,
                       help="seconds the stub model sleeps per call (0)")
    serve.add_argument("--summary-delay", type=delay, default=0.0,
                       help="seconds the stub summariser sleeps per call (0)")
    serve.add_argument("--budget", type=_number(int, 1), default=None,
                       help="the memory's budget in tokens (250)")
    serve.add_argument("--keep-recent", type=_number(int, 0), default=None,
                       help="messages the memory keeps verbatim (2)")
    serve.add_argument("--max-body", type=_number(int, 1), default=None,
                       help="bytes of a request body accepted (16384)")
    serve.add_argument("--stream-delay", type=delay, default=0.0,
                       help="seconds between two streamed reply events (0)")
    serve.add_argument("--header-timeout", type=seconds, default=10.0,
                       help="seconds a request's line and headers may take to arrive; a "
                            "slower connection is closed (10)")
    serve.add_argument("--body-timeout", type=seconds, default=10.0,
                       help="seconds a request's body may take to arrive; then 408 (10)")
    serve.add_argument("--limit-concurrency", type=_number(int, 1), default=512,
                       help="connections a worker holds at once; beyond, 503 (512)")
    serve.add_argument("--accept-data-loss", action="store_true",
                       help="serve from a Redis that keeps nothing on disk (a restart "
                            "loses every session); refused without this flag")
    serve.add_argument("--log-level", default="warning", help="uvicorn's log level",
                       choices=["critical", "error", "warning", "info", "debug", "trace"])
    serve.set_defaults(run=_serve)
    args = parser.parse_args(argv)
    from kit.offline import OfflineEncodingError
    try:
        return args.run(args) or 0
    except BrokenPipeError:                      # `... --list | head`: the reader left
        return 0
    except (OfflineEncodingError, ValueError, FileNotFoundError) as exc:
        print(f"python -m kit: error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, OfflineEncodingError) else 2


if __name__ == "__main__":
    sys.exit(main())
