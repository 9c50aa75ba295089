"""Starter for the drill system-design: write your answer, then check it with

    .venv/bin/python -m kit drill system-design <this file>

(from the repository root; `python -m kit drill ...` with the environment active).
The spec, hints and follow-ups are in the notebook notebooks/drills/07_system_design.ipynb (your copy: work/drills/07_system_design.ipynb)."""

# Your design, as text (a few paragraphs or bullet lists): state and concurrency, the
# order of writes in a turn and the budget, recall, failures, metrics, privacy.
DESIGN = """
raise NotImplementedError("Exercise: write your answer here")
"""
