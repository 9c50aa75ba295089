"""Shared by the drill tests: a drill's exercise cells, read from its solution notebook
(or its learner version, the starter) and run, giving the symbol the candidate writes."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lessons  # noqa: E402

__all__ = ["ROOT", "lessons", "notebook_of", "exercise_source", "answer"]


def notebook_of(drill) -> Path:
    """solutions/drills/<drill.notebook>.ipynb."""
    return ROOT / "solutions" / "drills" / f"{drill.notebook}.ipynb"


def exercise_source(drill, learner: bool = False) -> str:
    """The code of the drill's exercise cells: the model solution, or with ``learner`` the
    starter (solution blocks replaced by the stub), joined by blank lines."""
    nb = lessons.read(notebook_of(drill))
    if learner:
        nb = lessons.learner_version(nb)
    return "\n\n".join(cell.source for cell in nb.cells
                       if "exercise" in cell.metadata.get("tags", []))


def answer(drill, learner: bool = False):
    """Run the exercise cells and return what they define under the drill's symbol."""
    namespace: dict = {}
    exec(compile(exercise_source(drill, learner), str(notebook_of(drill)), "exec"), namespace)
    return namespace[drill.symbol]
