"""Agent trajectories: mini-swe-agent's ``.traj.json`` and SWE-agent's ``.traj``.

* mini-swe-agent (``mini-swe-agent``): ``{"info", "messages",
  "trajectory_format", ...}`` whose messages are chat messages; each
  assistant message holds a THOUGHT and one fenced ``bash`` block. The
  block's command is one call ``bash`` with arguments ``{"command": <the
  command>}``, the rest of the message is the text, and the next user
  message (the command's output) is its result. A message without exactly
  one such block makes no call (mini-swe-agent executes nothing then either).
* SWE-agent (``swe-agent``): ``{"trajectory": [...], "history", "info"}``;
  each step of ``trajectory`` (``thought``, ``action``, ``observation``)
  is one response: ``thought`` its text, and its ``action`` -- the command
  line the agent ran -- one call named by the command's first word
  (``str_replace_editor``, ``find_file``, ``python`` ...) with arguments
  ``{"command": <the whole action>}``; ``observation`` is the result. A
  step with an empty action makes no call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from ..events import Call, Event, Response
from ..jsonstream import Located
from .common import Context, text_of

INPUT_ROLES: Final = frozenset({"user", "system", "developer", "tool"})
TEXT_PARTS: Final = frozenset({"text", "output_text"})
BASH_BLOCK: Final = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
"""mini-swe-agent's action: the one fenced bash block of an assistant message."""


class MiniSweAgentReader:
    """mini-swe-agent trajectories: one ``bash`` call per assistant message."""

    name = "mini-swe-agent"

    def __init__(self, context: Context) -> None:
        self.context = context
        self.steps = 0
        self.awaiting: str | None = None

    def feed(self, record: Located) -> Iterable[Event]:
        message, line = record.value, record.line
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise self.context.error(line, "a trajectory holds messages with a string `role`")
        role = message["role"]
        content = text_of(message.get("content"), TEXT_PARTS)
        if role == "assistant":
            self.steps += 1
            commands = BASH_BLOCK.findall(content)
            if len(commands) != 1:
                self.awaiting = None
                return [Response(line, content)]
            call_id = f"step-{self.steps}"
            self.context.called(call_id)
            self.awaiting = call_id
            thought = BASH_BLOCK.sub("", content).strip()
            call = Call("bash", {"command": commands[0]}, call_id, parsed=True)
            return [Response(line, thought, (call,))]
        if role in INPUT_ROLES:
            waiting, self.awaiting = self.awaiting, None
            return [] if waiting is None else self.context.answered(waiting, line, content)
        raise self.context.error(line, f"unknown message role {role!r}")

    def end(self) -> Iterable[Event]:
        return []


class SweAgentReader:
    """SWE-agent trajectory steps: one call per step, named by the command's first word."""

    name = "swe-agent"

    def __init__(self, context: Context) -> None:
        self.context = context
        self.steps = 0

    def feed(self, record: Located) -> Iterable[Event]:
        step, line = record.value, record.line
        if not isinstance(step, dict) or not isinstance(step.get("action"), str):
            raise self.context.error(line, "a SWE-agent trajectory step needs a string `action`")
        self.steps += 1
        thought = step.get("thought")
        text = thought if isinstance(thought, str) else ""
        action = step["action"].strip()
        if not action:
            return [Response(line, text)]
        call_id = f"step-{self.steps}"
        self.context.called(call_id)
        call = Call(action.split()[0], {"command": action}, call_id, parsed=True)
        events: list[Event] = [Response(line, text, (call,))]
        if "observation" in step:
            events += self.context.answered(call_id, line, step.get("observation"))
        return events

    def end(self) -> Iterable[Event]:
        return []
