"""What a replay is configured with: the ``doomLoop`` option and per-tool loop keys.

The option is the value of ``doomLoop`` on a ``callModel`` request (CFG-01):
``true``, or a config object ``{ladder?, text?, escalation?}``, given as JSON
text or as the path of a JSON file. Loop keys are field lists (KEY-09) or
``false`` to exempt a tool (KEY-06); functions cannot be given on a command line.
"""

from __future__ import annotations

import argparse
import glob
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from doomloop_kit.jsvalue import jsjson
from doomloop_kit.reference import ResolvedConfig, resolve_doom_loop_option
from doomloop_kit.vectorset import reading, writing

from . import examples

LoopKey = list[str] | bool
"""A field list, or ``False`` (the tool is exempt)."""


class OptionError(ValueError):
    """A replay option that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class ReplayOptions:
    """The monitor option (plain JSON), the loop key of each tool, and ``--engine``."""

    option: object = True
    loop_keys: Mapping[str, LoopKey] = field(default_factory=dict)
    engine: bool = False
    """Apply the engine's consequences between responses: steer, escalation, halt."""

    def config(self) -> ResolvedConfig:
        """The resolved configuration (CFG-01); an option that turns detection off is an error."""
        resolution = resolve_doom_loop_option(self.option)
        if resolution.config is None:
            raise OptionError("the doomLoop option turns detection off: there is nothing to replay")
        return resolution.config

    def warnings(self) -> list[str]:
        return [warning.message for warning in resolve_doom_loop_option(self.option).warnings]

    def with_ladder(self, ladder: Mapping[str, object]) -> ReplayOptions:
        """The same options with some ladder rungs replaced (for the sweep)."""
        base = self.option if isinstance(self.option, dict) else {}
        old = base.get("ladder")
        merged = {**(old if isinstance(old, dict) else {}), **ladder}
        return ReplayOptions({**base, "ladder": merged}, self.loop_keys, self.engine)


# -- command line ---------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        default="true",
        metavar="JSON|FILE",
        help="the doomLoop option as JSON text or a JSON file (default true: the defaults), "
        'e.g. \'{"ladder": {"observe": 2, "block": 4, "stop": 8}}\'',
    )
    parser.add_argument(
        "--loop-key",
        action="append",
        default=[],
        metavar="TOOL=FIELD,...",
        help="identify TOOL's calls by these argument fields only (repeatable)",
    )
    parser.add_argument(
        "--exempt",
        action="append",
        default=[],
        metavar="TOOL",
        help="loopKey false: TOOL's calls are never declared or recorded (repeatable)",
    )
    parser.add_argument(
        "--engine",
        action="store_true",
        help="apply what the engine does between responses: inject steer messages, spend "
        "escalation budget, halt the run at a stop",
    )


_JSON_STARTS = ("{", "[", '"')


def option_file(text: str) -> Path | None:
    """The file ``--option`` names, or None when it is JSON text."""
    if text.lstrip().startswith(_JSON_STARTS):
        return None
    path = Path(text)
    return path if path.is_file() else None


def parse_option(text: str) -> object:
    """The option from JSON text, or from the JSON file it names, read as JS reads it."""
    path = option_file(text)
    source = "--option"
    if path is not None:
        try:
            text = reading.read_text(path, regular=False)
        except reading.InputError as error:
            raise OptionError(f"--option {error}") from None
        source = f"--option {path}"
    try:
        return jsjson.loads(text)
    except ValueError as error:
        hint = (
            ""
            if path is not None or text.lstrip().startswith(_JSON_STARTS)
            else " (and not a file)"
        )
        raise OptionError(f"{source}: {jsjson.problem(error)}{hint}") from None


def options_from_args(args: argparse.Namespace) -> ReplayOptions:
    loop_keys: dict[str, LoopKey] = {}
    for entry in args.loop_key:
        tool, sep, fields = entry.partition("=")
        if not sep or not tool:
            raise OptionError(f"--loop-key {entry!r}: expected TOOL=FIELD,FIELD")
        loop_keys[tool] = [name for name in fields.split(",") if name]
    for tool in args.exempt:
        loop_keys[tool] = False
    return ReplayOptions(parse_option(args.option), loop_keys, args.engine)


def replay_inputs(args: argparse.Namespace) -> list[writing.Input]:
    """What a replay reads, which no output may be or lie inside (:class:`~.writing.Input`):
    the logs and folders named (a glob's files are added once it is listed), the
    ``--outcomes`` file and an ``--option`` file."""
    named = [examples.resolve(path) for path in args.log]
    found = [writing.Input(path) for path in named if not glob.has_magic(str(path))]
    if getattr(args, "outcomes", None) is not None:
        found.append(writing.Input(args.outcomes))
    option = option_file(args.option)
    if option is not None:
        found.append(writing.Input(option))
    return found
