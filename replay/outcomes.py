"""``--outcomes FILE``: which runs succeeded, to split a fleet report by outcome.

The file maps run ids to labels, as one JSON object (``{"run-1": true,
"run-2": {"resolved": false}, "run-3": 0.5}``) or as JSON lines
(``{"id": "run-1", "success": true}``). A label is a boolean, a number (a
reward: a success when it is 1 or more), the text ``success``/``failure``,
or an object with one of ``resolved``, ``success``, ``reward``, ``outcome``.
A run's id is its file name without the log suffixes
(``astropy__astropy-14369.traj.json`` -> ``astropy__astropy-14369``), or
the id a many-run file gives it (tau-bench: ``<task_id>.<trial>``); a run a
file labels itself (tau-bench's ``reward``) keeps that label unless the
outcomes file names it. A sub-agent's run takes its session's label (the
label of its session id) unless the file labels it by its own id. A label
naming no run of the corpus is reported with its file and line, and a file
none of whose labels name a run says so; a label that cannot be read is an
error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from doomloop_kit.jsvalue import jsjson
from doomloop_kit.vectorset import reading

from .options import OptionError

SUCCESS, FAILURE, UNLABELLED = "success", "failure", "unlabelled"
GROUPS: Final = (SUCCESS, FAILURE, UNLABELLED)
LABEL_MEMBERS: Final = ("resolved", "success", "reward", "outcome")
_KEY: Final = re.compile(r'^\s*("(?:[^"\\]|\\.)*")\s*:')


def group_of(label: object) -> str | None:
    """``success``, ``failure``, or None for a value that is not a label."""
    if isinstance(label, bool):
        return SUCCESS if label else FAILURE
    if isinstance(label, int | float):
        return SUCCESS if label >= 1 else FAILURE
    if isinstance(label, str) and label.lower() in ("success", "failure"):
        return label.lower()
    if isinstance(label, dict):
        for name in LABEL_MEMBERS:
            if name in label:
                return group_of(label[name])
    return None


@dataclass
class Outcomes:
    """The labels of a file, and which of them the corpus used."""

    path: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def group(self, run_id: str, own: object, parent: str | None = None) -> str:
        """The run's outcome group: the file's label for the run (or for its parent
        session), else the run's own, else unlabelled."""
        for key in (run_id, parent):
            if key is not None and key in self.labels:
                self.used.add(key)
                return self.labels[key]
        return group_of(own) or UNLABELLED

    @property
    def matched(self) -> int:
        """How many labels named a run of the corpus."""
        return len(self.used)

    def unknown(self) -> list[tuple[int, str]]:
        """(line, id) of every label that named no run of the corpus, in file order."""
        return sorted((self.lines.get(i, 1), i) for i in self.labels if i not in self.used)


def load(path: Path) -> Outcomes:
    """Read a label file; :class:`OptionError` naming the file and line when it cannot be."""
    try:
        text = reading.read_text(path, regular=False)
    except reading.InputError as error:
        raise OptionError(f"--outcomes {error}") from None
    outcomes = Outcomes(str(path))
    try:
        whole = jsjson.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        for number, line in enumerate(_lines(text), 1):
            found = _KEY.match(line)
            if found:
                outcomes.lines.setdefault(str(jsjson.loads(found.group(1))), number)
        for run_id, label in whole.items():
            _add(outcomes, run_id, label, outcomes.lines.get(run_id, 1))
        return outcomes
    for number, line in enumerate(_lines(text), 1):
        if not line.strip():
            continue
        try:
            record = jsjson.loads(line)
        except ValueError as error:
            raise OptionError(f"--outcomes {path}:{number}: {jsjson.problem(error)}") from None
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise OptionError(f"{path}:{number}: a label line needs a string `id`")
        outcomes.lines[record["id"]] = number
        _add(outcomes, record["id"], {k: v for k, v in record.items() if k != "id"}, number)
    return outcomes


def _add(outcomes: Outcomes, run_id: str, label: object, line: int) -> None:
    group = group_of(label)
    if group is None:
        raise OptionError(
            f"{outcomes.path}:{line}: the label of {run_id!r} is not a boolean, a reward, "
            f"success/failure or an object with {', '.join(LABEL_MEMBERS)}"
        )
    outcomes.labels[run_id] = group


def _lines(text: str) -> list[str]:
    """JSON lines split on ``\n`` only: ``str.splitlines`` also splits on U+2028 and
    U+2029, which JSON leaves raw inside strings."""
    return [line.removesuffix("\r") for line in text.split("\n")]
