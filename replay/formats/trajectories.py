"""Agent trajectories: mini-swe-agent's ``.traj.json`` and SWE-agent's ``.traj``.

* mini-swe-agent (``mini-swe-agent``), version 1 and 2: a list of chat
  messages, bare or as the ``messages`` of ``{"info", "messages",
  "trajectory_format", ...}``. An assistant message's calls are, in this
  order of preference: its ``tool_calls`` (version 2 with tool calling, read
  as OpenAI chat, results in ``tool`` messages); the ``extra.actions`` it
  recorded (version 2: one ``bash`` call ``{"command"}`` per action); or its
  one fenced block, ```` ```bash ```` (version 1) or
  ```` ```mswea_bash_command ```` (version 2), as one ``bash`` call. The rest
  of the message is its text, and the next user message (the command's
  output) the result of a call without an id. A message without exactly one
  block makes no call (mini-swe-agent runs nothing then either). With the
  Responses API a version 2 assistant message is a whole response object
  (``"object": "response"``, its ``output`` items read as Responses items)
  and its results are ``function_call_output`` items. The closing ``exit``
  message is passed over.
* SWE-agent (``swe-agent``): ``{"trajectory": [...], "history": [...],
  "info"}``. Each step of ``trajectory`` (``thought``, ``action``,
  ``observation``) is one response: ``thought`` its text, the ``action`` --
  the command the agent ran -- its call, ``observation`` the result. The
  call's name and arguments are those of the history's assistant message for
  that action when it recorded ``tool_calls`` (function calling); otherwise
  the action is read with SWE-agent's command set: a command of the set
  (``open``, ``edit``, ``str_replace_editor``, ``find_file``, ...) is a call
  of that name with arguments ``{"args": <the rest of the action>}``, and
  any other command line is a call ``bash`` with ``{"command": <the
  action>}``, as SWE-agent runs it. A step with an empty action, or the
  framework's own ``exit_*`` marker, makes no call. A file with a history
  and no trajectory (a demonstration) is read from its history.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from ..events import Call, Event, Response, Result, Skipped, digest
from ..jsonstream import Located
from .chat import ChatReader
from .common import Context, string, text_of
from .responses import ResponsesReader

INPUT_ROLES: Final = frozenset({"user", "system", "developer"})
TEXT_PARTS: Final = frozenset({"text", "output_text", "input_text"})
FENCE: Final = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.DOTALL)
"""mini-swe-agent's action: the fenced block of an assistant message (v1 ``bash``, v2
``mswea_bash_command``)."""


def mini_swe_agent_text(message: Mapping[str, object]) -> bool:
    """True for an assistant message only mini-swe-agent writes (a v2 fence or actions)."""
    extra = message.get("extra")
    content = text_of(message.get("content"), TEXT_PARTS)
    return "```mswea_bash_command" in content or (
        isinstance(extra, dict) and isinstance(extra.get("actions"), list)
    )


class MiniSweAgentReader:
    """mini-swe-agent trajectories (v1 and v2): ``bash`` calls, or the recorded tool calls."""

    name = "mini-swe-agent"

    def __init__(self, context: Context) -> None:
        self.context = context
        self.steps = 0
        self.awaiting: list[str] = []
        """Calls without an id of their own, answered by the next user message."""
        self.chat = ChatReader(context, "chat")
        self.responses = ResponsesReader(context)

    def feed(self, record: Located) -> Iterable[Event]:
        message, line = record.value, record.line
        if not isinstance(message, dict):
            raise self.context.error(line, "a trajectory holds messages (JSON objects)")
        if message.get("object") == "response":
            return self._response_object(message, line)
        if message.get("type") == "function_call_output":
            return self.context.answered(message.get("call_id"), line, message.get("output"))
        role = message.get("role")
        if not isinstance(role, str):
            raise self.context.error(line, "a trajectory holds messages with a string `role`")
        if role == "assistant":
            return self._assistant(message, line)
        if role == "tool":
            return list(self.chat.feed(record))
        if role in INPUT_ROLES:
            waiting, self.awaiting = self.awaiting, []
            content = text_of(message.get("content"), TEXT_PARTS)
            return [
                event
                for call_id in waiting
                for event in self.context.answered(call_id, line, content)
            ]
        if role == "exit":
            return []
        return [Skipped(line, f"a mini-swe-agent message of unknown role {role!r}: left out")]

    def _response_object(self, message: Mapping[str, object], line: int) -> list[Event]:
        """A Responses API response (v2 with the Responses API): its output items."""
        output = message.get("output")
        for item in output if isinstance(output, list) else []:
            self.responses.item(item, line)
        self.responses.response.at(line)  # an empty response is one too
        return self.responses.flush()

    def _assistant(self, message: Mapping[str, object], line: int) -> list[Event]:
        self.steps += 1
        self.awaiting = []
        if message.get("tool_calls"):
            return list(self.chat.feed(Located(line, message)))
        content = text_of(message.get("content"), TEXT_PARTS)
        commands = FENCE.findall(content)
        thought = FENCE.sub("", content).strip() if commands else content
        extra = message.get("extra")
        actions = extra.get("actions") if isinstance(extra, dict) else None
        calls: list[Call] = []
        if isinstance(actions, list) and actions:
            for index, action in enumerate(actions):
                command = action.get("command") if isinstance(action, dict) else None
                if not isinstance(command, str):
                    raise self.context.error(line, f"action {index} has no string `command`")
                own = string(action.get("tool_call_id")) if isinstance(action, dict) else None
                calls.append(self._bash(command, own or f"step-{self.steps}.{index + 1}", own))
        elif len(commands) == 1:
            calls.append(self._bash(commands[0], f"step-{self.steps}", None))
        return [Response(line, thought, tuple(calls))]

    def _bash(self, command: str, call_id: str, own: str | None) -> Call:
        self.context.called(call_id)
        if own is None:
            self.awaiting.append(call_id)
        return Call("bash", {"command": command.strip()}, call_id, parsed=True)

    def end(self) -> Iterable[Event]:
        return []


COMMANDS: Final = frozenset(
    {
        # file viewer, search and editing (SWE-agent's default tool bundles)
        *("open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert", "submit"),
        *("search_dir", "search_file", "find_file", "filemap", "str_replace_editor"),
        *("exit_forfeit", "view_image"),
        # CTF bundles: decompiler, debugger, network connection
        *("decompile", "disassemble", "debug_start", "debug_add_breakpoint"),
        *("debug_continue", "debug_step", "debug_exec", "debug_stop"),
        *("connect_start", "connect_sendline", "connect_exec", "connect_stop"),
        # web browser bundle
        *("open_site", "close_site", "screenshot_site", "click_mouse", "double_click_mouse"),
        *("move_mouse", "drag_mouse", "type_text", "scroll_on_page", "execute_script_on_page"),
        *("navigate_back", "navigate_forward", "reload_page", "wait_time", "press_keys"),
        *("set_browser_window_size", "get_console_output"),
    }
)
"""SWE-agent's commands: an action starting with one is a call of that name."""
STOP_MARKERS: Final = frozenset(
    {"exit_cost", "exit_context", "exit_error", "exit_format", "exit_api"}
)
"""Actions SWE-agent itself records when it stops a run: no call of the model's."""


def command_call(action: str, call_id: str) -> Call | None:
    """The call an action makes, read with SWE-agent's command set (None: no call)."""
    words = action.split(maxsplit=1)
    if not words or words[0] in STOP_MARKERS:
        return None
    if words[0] in COMMANDS:
        rest = words[1].strip() if len(words) > 1 else ""
        return Call(words[0], {"args": rest}, call_id, parsed=True)
    return Call("bash", {"command": action}, call_id, parsed=True)


@dataclass(frozen=True)
class _Step:
    """A trajectory step waiting for the history message that names its call."""

    line: int
    number: int
    thought: str
    action: str
    observation: str | None
    """The digest of the step's observation, None when the step has none."""


class SweAgentReader:
    """SWE-agent trajectory steps (named from the history's tool calls), or its history."""

    name = "swe-agent"

    def __init__(self, context: Context) -> None:
        self.context = context
        self.steps = 0
        self.waiting: deque[_Step] = deque()
        """Steps read from the trajectory, before the history that follows it."""
        self.trajectory = False
        self.awaiting: list[str] = []
        self.chat = ChatReader(context, "chat")

    def feed(self, record: Located) -> Iterable[Event]:
        value, line = record.value, record.line
        if not isinstance(value, dict):
            raise self.context.error(line, "a SWE-agent log holds JSON objects")
        if "role" in value:
            return self._history(value, line)
        if not isinstance(value.get("action"), str):
            raise self.context.error(line, "a SWE-agent trajectory step needs a string `action`")
        self.trajectory = True
        self.steps += 1
        thought = value.get("thought")
        observation = digest(value["observation"]) if "observation" in value else None
        step = _Step(line, self.steps, string(thought) or "", value["action"].strip(), observation)
        self.waiting.append(step)
        return []

    def _step(self, step: _Step, named: Call | None) -> list[Event]:
        """A trajectory step as its response and result (``named``: the history's call)."""
        call_id = named.call_id if named and named.call_id else f"step-{step.number}"
        call = named or command_call(step.action, call_id)
        if call is None:
            return [Response(step.line, step.thought)]
        events: list[Event] = [Response(step.line, step.thought, (call,))]
        if step.observation is not None:
            events.append(Result(step.line, call_id, step.observation))
        return events

    def _history(self, message: Mapping[str, object], line: int) -> list[Event]:
        if message.get("is_demo") is True:
            return []
        role = message.get("role")
        if self.trajectory:
            return self._name_steps(message) if role == "assistant" else []
        if role == "assistant":
            return self._history_response(message, line)
        if role == "tool":
            ids = message.get("tool_call_ids")
            if isinstance(ids, list):
                content = message.get("content")
                return [e for i in ids for e in self.context.answered(i, line, content)]
            return list(self.chat.feed(Located(line, message)))
        if role in INPUT_ROLES:
            waiting, self.awaiting = self.awaiting, []
            content = message.get("content")
            return [e for i in waiting for e in self.context.answered(i, line, content)]
        return [Skipped(line, f"a SWE-agent history message of unknown role {role!r}: left out")]

    def _name_steps(self, message: Mapping[str, object]) -> list[Event]:
        """The step whose action this history message made, named by its tool call; the
        steps before it, which the history does not show, read with the command set."""
        action = string(message.get("action"))
        if action is None:
            return []
        found = next((i for i, s in enumerate(self.waiting) if s.action == action.strip()), None)
        if found is None:
            return []
        events: list[Event] = []
        for _ in range(found):
            events += self._step(self.waiting.popleft(), None)
        step = self.waiting.popleft()
        return events + self._step(step, self._tool_call(message, step.line))

    def _tool_call(self, message: Mapping[str, object], line: int) -> Call | None:
        """The one call of a history message's ``tool_calls`` (SWE-agent makes one per step)."""
        calls = message.get("tool_calls")
        if not isinstance(calls, list) or not calls or not isinstance(calls[0], dict):
            return None
        function = calls[0].get("function")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise self.context.error(line, "a SWE-agent tool call has no `function.name`")
        return Call(function["name"], function.get("arguments"), string(calls[0].get("id")))

    def _history_response(self, message: Mapping[str, object], line: int) -> list[Event]:
        """A history without a trajectory: each assistant message is a response."""
        self.steps += 1
        self.awaiting = []
        if message.get("tool_calls"):
            chat = {**message, "content": string(message.get("thought")) or message.get("content")}
            return list(self.chat.feed(Located(line, chat)))
        text = string(message.get("thought")) or text_of(message.get("content"), TEXT_PARTS)
        action = string(message.get("action"))
        call = command_call(action.strip(), f"step-{self.steps}") if action else None
        if call is None:
            return [Response(line, text)]
        self.context.called(call.call_id)
        self.awaiting.append(str(call.call_id))
        return [Response(line, text, (call,))]

    def end(self) -> Iterable[Event]:
        events: list[Event] = []
        while self.waiting:
            events += self._step(self.waiting.popleft(), None)
        return events
