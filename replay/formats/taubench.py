"""tau-bench result files (``tau-bench``): many runs in one JSON document.

The document is an array of runs ``{"task_id", "trial", "reward", "info",
"traj"}``; ``traj`` is the run's OpenAI chat messages (assistant
``tool_calls``, ``tool`` results), read as :mod:`.chat` reads them. Each run
is its own conversation, named ``<task_id>.<trial>`` (``task_id`` alone
without a trial), with its ``reward`` as its outcome label. A problem inside
a run names the line where the run starts and the message's index.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..events import Conversation, Event
from ..jsonstream import Located, LogError
from .chat import ChatReader
from .common import Context


def run_id(run: dict[str, object]) -> str:
    task, trial = run.get("task_id"), run.get("trial")
    return str(task) if trial is None else f"{task}.{trial}"


class TauBenchReader:
    """One conversation per element of the document."""

    name = "tau-bench"

    def __init__(self, context: Context) -> None:
        self.context = context

    def feed(self, record: Located) -> Iterable[Event]:
        run, line = record.value, record.line
        if not isinstance(run, dict) or not isinstance(run.get("traj"), list):
            raise self.context.error(line, "a tau-bench result holds runs with a `traj` list")
        name = run_id(run)
        self.context.forget()
        events: list[Event] = [Conversation(line, name, run.get("reward"))]
        chat = ChatReader(self.context, "chat")
        for index, message in enumerate(run["traj"]):
            try:
                events += chat.feed(Located(line, message))
            except LogError as error:
                detail = f"run {name}, message {index}: {error.detail}"
                raise self.context.error(line, detail) from None
        return events

    def end(self) -> Iterable[Event]:
        return []
