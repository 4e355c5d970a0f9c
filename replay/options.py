"""What a replay is configured with: the ``doomLoop`` option and per-tool loop keys.

The option is the value of ``doomLoop`` on a ``callModel`` request (CFG-01):
``true``, or a config object ``{ladder?, text?, escalation?}``, given as JSON
text or as the path of a JSON file. Loop keys are field lists (KEY-09) or
``false`` to exempt a tool (KEY-06); functions cannot be given on a command line.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from doomloop_kit.reference import (
    UNDEFINED,
    ResolvedConfig,
    resolve_doom_loop_option,
    resolve_loop_key_material,
)

from .events import Arguments, Malformed, TooDeep

LoopKey = list[str] | bool
"""A field list, or ``False`` (the tool is exempt)."""


class OptionError(ValueError):
    """A replay option that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class ReplayOptions:
    """The monitor option (plain JSON) and the loop key of each tool."""

    option: object = True
    loop_keys: Mapping[str, LoopKey] = field(default_factory=dict)

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
        return ReplayOptions({**base, "ladder": merged}, self.loop_keys)


@dataclass(frozen=True)
class Identity:
    """How the engine identifies one call (ENG-03, ENG-04, ENG-05).

    ``kind``: ``malformed`` (raw text as key material), ``key`` (loop key or
    full arguments), ``fallback`` (full arguments, with ``warning``),
    ``exempt``, or ``skip`` (no detection, ``warning`` says why).
    ``retry`` is the full-argument identity tried when ``material`` cannot be
    fingerprinted, or UNDEFINED when there is none.
    """

    kind: str
    material: object = UNDEFINED
    retry: object = UNDEFINED
    warning: str | None = None

    @property
    def declared(self) -> bool:
        return self.kind in ("malformed", "key", "fallback")


def identify(loop_keys: Mapping[str, LoopKey], name: str, arguments: Arguments) -> Identity:
    """The identity of one call under the tool's loop key (engine brief 2.2.3-2.3.3)."""
    if isinstance(arguments, Malformed):
        return Identity("malformed", arguments.raw)
    if isinstance(arguments, TooDeep):
        return Identity("skip", warning="arguments nested too deeply to fingerprint")
    loop_key: object = loop_keys.get(name, UNDEFINED)
    if isinstance(loop_key, list) and not isinstance(arguments, dict):
        if not isinstance(arguments, list):
            # JS `in` throws on a primitive: the engine skips detection for the call
            return Identity("skip", warning="loop-key fields on arguments that are not an object")
        arguments_map: Mapping[str, object] = {}
    else:
        arguments_map = arguments if isinstance(arguments, dict) else {}
    if loop_key is UNDEFINED:
        return Identity("key", arguments)
    resolution = resolve_loop_key_material(loop_key, arguments_map)
    if resolution.kind == "exempt":
        return Identity("exempt")
    if resolution.kind == "fallback":
        return Identity("fallback", arguments, warning=resolution.warning)
    return Identity("key", resolution.key_material, retry=arguments)


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


def parse_option(text: str) -> object:
    """The option from JSON text, or from the JSON file it names."""
    path = Path(text)
    source = "--option"
    if not text.lstrip().startswith(("{", "[", '"')) and path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise OptionError(f"--option {path}: cannot read: {error}") from None
        source = f"--option {path}"
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as error:
        raise OptionError(f"{source}: not JSON (and not a file): {error}") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def options_from_args(args: argparse.Namespace) -> ReplayOptions:
    loop_keys: dict[str, LoopKey] = {}
    for entry in args.loop_key:
        tool, sep, fields = entry.partition("=")
        if not sep or not tool:
            raise OptionError(f"--loop-key {entry!r}: expected TOOL=FIELD,FIELD")
        loop_keys[tool] = [name for name in fields.split(",") if name]
    for tool in args.exempt:
        loop_keys[tool] = False
    return ReplayOptions(parse_option(args.option), loop_keys)
