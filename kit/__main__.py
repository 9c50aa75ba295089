"""Command line: `python -m kit tokens TEXT`, `python -m kit trace laptop` and
`python -m kit trace cod`."""
from __future__ import annotations

import argparse
import sys

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
    args = parser.parse_args(argv)
    from kit.offline import OfflineEncodingError
    try:
        args.run(args)
    except OfflineEncodingError as exc:
        print(f"python -m kit: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
