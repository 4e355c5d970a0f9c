"""The ``doomloop-kit`` command: one entry point, one subcommand per job.

Each subcommand lives in the module that owns the job; this file only routes.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Callable, Sequence

from . import interrupts

# subcommand path -> (module, help). Each module exposes
# `add_arguments(parser)` and `run(args) -> int`.
COMMANDS: dict[tuple[str, ...], tuple[str, str]] = {
    ("vectors", "regenerate"): (
        "doomloop_kit.generators.regenerate",
        "regenerate the vector files deterministically (--check to verify)",
    ),
    ("conformance", "run"): (
        "doomloop_kit.conformance.runner",
        "run the vectors against a port's harness",
    ),
    ("conformance", "fuzz"): (
        "doomloop_kit.conformance.fuzz",
        "differential fuzzing of a port against the reference (or another harness: --against)",
    ),
    ("replay",): (
        "doomloop_kit.replay.cli",
        "replay a recorded agent log: what the monitor would have done",
    ),
}


HANDLES = "HANDLES_INTERRUPTS"
"""A command module setting this true enters :func:`~.interrupts.interruptible` itself."""


class _Version(argparse.Action):
    """``--version``, computed only when asked for (it reads the shipped manifest)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the versions and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from .version import version_text

        print(version_text())
        parser.exit()


def _asked_for(argv: Sequence[str]) -> tuple[str, ...]:
    """The command path ``argv`` names (its leading words that are command names)."""
    words = [word for word in argv if not word.startswith("-")]
    return next(
        (path for path in COMMANDS if tuple(words[: len(path)]) == path),
        tuple(words[:1]),
    )


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, given ``argv``, with the arguments of the
    command ``argv`` names only (the others keep their name and help)."""
    wanted = None if argv is None else _asked_for(argv)
    parser = argparse.ArgumentParser(prog="doomloop-kit", description=__doc__)
    parser.add_argument("--version", action=_Version)
    groups = parser.add_subparsers(dest="group", required=True, metavar="GROUP")
    group_parsers: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]] = {}
    for (group, *name), (module_name, help_text) in COMMANDS.items():
        if not name:  # a command outside any group
            sub = groups.add_parser(group, help=help_text, description=help_text)
        elif group not in group_parsers:
            group_parser = groups.add_parser(group, help=f"{group} commands")
            group_parsers[group] = group_parser.add_subparsers(
                dest="command", required=True, metavar="COMMAND"
            )
        if name:
            sub = group_parsers[group].add_parser(name[0], help=help_text, description=help_text)
        if wanted is not None and wanted != (group, *name):
            # not asked for, so never parsed: a `conformance run` does not pay for
            # importing the generators (Hypothesis) or the fuzzer
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            # a command whose module is not written yet must not break the others
            sub.set_defaults(_run=_unavailable(" ".join((group, *name))))
            continue
        module.add_arguments(sub)
        # a command that handles signals itself (the runner: its reports) is not
        # made interruptible here; every other is, once its options are read
        sub.set_defaults(_run=module.run, _handles_interrupts=module.__dict__.get(HANDLES, False))
    return parser


def _unavailable(command: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        print(f"doomloop-kit: `{command}` is not available in this build", file=sys.stderr)
        return 2

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a signal or a closed stdout ends it with one line on stderr and
    its own exit status (:mod:`.interrupts`), never a traceback."""
    restore = interrupts.install()
    try:
        with interrupts.held():  # a signal waits until the command can end well
            try:
                words = sys.argv[1:] if argv is None else argv
                args = build_parser(words).parse_args(words)
                if getattr(args, "_handles_interrupts", False):
                    result: int = args._run(args)
                    return result
                with interrupts.interruptible():
                    result = args._run(args)
                    return result
            except interrupts.Interrupted as stop:
                interrupts.say(f"doomloop-kit: interrupted by {stop.name}")
                return stop.exit_status
            except KeyboardInterrupt:  # raised by other means than our handlers
                interrupts.say("doomloop-kit: interrupted by SIGINT")
                return 128 + signal.SIGINT
            except (interrupts.StdoutClosed, BrokenPipeError):
                interrupts.silence_stdout()
                interrupts.say("doomloop-kit: stdout was closed; stopped")
                return interrupts.STDOUT_CLOSED
    finally:
        if argv is not None:  # called in-process: give the caller its handlers back
            restore()
        else:  # the process exits now: a late signal must not change how it ended
            interrupts.ignore()


if __name__ == "__main__":
    sys.exit(main())
