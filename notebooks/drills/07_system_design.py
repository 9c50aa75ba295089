"""Starter for the drill system-design: write your answer, then check it with

    python -m kit drill system-design <this file>

The spec, hints and follow-ups are in the notebook 07_system_design.ipynb."""

# Your design, as text (a few paragraphs or bullet lists): state and concurrency, the
# order of writes in a turn and the budget, recall, failures, metrics, privacy.
DESIGN = """
raise NotImplementedError("Exercise: write your answer here")
"""
