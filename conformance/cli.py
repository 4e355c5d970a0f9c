"""The ``doomloop-kit`` command: one entry point, one subcommand per job.

Each subcommand lives in the module that owns the job; this file only routes
(:data:`COMMANDS`), and gives every parser the same manners
(:class:`KitParser`): no abbreviated options, and a "did you mean" for a
misspelt command, option or choice.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import re
import signal
import sys
from collections.abc import Callable, Generator, Sequence
from typing import NoReturn

from . import interrupts

# subcommand path -> (module, help). Each module exposes
# `add_arguments(parser)` and `run(args) -> int`.
COMMANDS: dict[tuple[str, ...], tuple[str, str]] = {
    ("list",): (
        "doomloop_kit.conformance.listing",
        "list the vector set: families, tags, features and counts, or the ids (-k, --family, "
        "--tag)",
    ),
    ("conformance", "run"): (
        "doomloop_kit.conformance.runner",
        "run the vectors against a port's harness",
    ),
    ("conformance", "fuzz"): (
        "doomloop_kit.conformance.fuzz",
        "differential fuzzing of a port against the reference (or another harness: --against)",
    ),
    ("conformance", "sdk-replay"): (
        "doomloop_kit.conformance.sdk_replay.command",
        "replay the SDK's recorded answers through a harness",
    ),
    ("report", "summary"): (
        "doomloop_kit.conformance.report_summary",
        "summarise a --report-json report (markdown for a CI job page, or JSON)",
    ),
    ("replay",): (
        "doomloop_kit.replay.cli",
        "replay a recorded agent log: what the monitor would have done",
    ),
    ("vectors", "regenerate"): (
        "doomloop_kit.generators.regenerate",
        "regenerate the vector files deterministically (--check to verify)",
    ),
    ("constraints",): (
        "doomloop_kit.conformance.pins",
        "print the pinned versions this kit was tested with (a pip constraints file)",
    ),
    ("completion",): (
        "doomloop_kit.conformance.cli",
        "print a shell completion script (bash, zsh or tcsh)",
    ),
}

GROUPS = {
    "conformance": "check a port: run the vectors, fuzz, replay the SDK's answers",
    "report": "read the reports of a conformance run",
    "vectors": "the vector set's files",
}

DESCRIPTION = """\
Check a port of the doom-loop monitor (and its engine) against the kit's
specification and vectors. A port is checked through its harness, a program
speaking JSON lines on stdin/stdout (docs/guide/write-a-harness.md)."""

EXAMPLES = """\
examples:
  doomloop-kit list                                   families, tags, features, vector counts
  doomloop-kit list ids -k fanout                     the ids holding "fanout"
  doomloop-kit conformance run --port "./my-harness"  every vector against your harness
  doomloop-kit conformance run --port "./my-harness" --family restore -k resume -x
  doomloop-kit conformance run --port "./my-harness" --report-json r.jsonl --junit-xml r.xml
  doomloop-kit report summary r.jsonl                 markdown for a CI job page
  doomloop-kit conformance fuzz --port "./my-harness" --examples 200 --seed 1
  doomloop-kit replay example:repeated-fan-out        when would the monitor have fired?
  doomloop-kit constraints > constraints.txt          the pinned dependency versions
  doomloop-kit completion bash > ~/.local/share/bash-completion/completions/doomloop-kit

`doomloop-kit COMMAND --help` says more about each command. Exit status of a
run: 0 passed, 1 failures, 2 usage or input error, 3 errored or aborted
(docs/guide/ci.md)."""


HANDLES = "HANDLES_INTERRUPTS"
"""A command module setting this true enters :func:`~.interrupts.interruptible` itself."""

_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")
_UNRECOGNIZED = "unrecognized arguments: "


class KitParser(argparse.ArgumentParser):
    """An argument parser that takes no abbreviated option (``--fam`` is not ``--family``)
    and suggests the nearest name for a misspelt command, option or choice."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["allow_abbrev"] = False
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        super().error(message + self._suggestion(message))

    def _suggestion(self, message: str) -> str:
        choice = _INVALID_CHOICE.search(message)
        if choice is not None:
            given, choices = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
            return did_you_mean(given, choices)
        if message.startswith(_UNRECOGNIZED):
            options = [o for o in self._option_string_actions if o.startswith("--")]
            for word in message.removeprefix(_UNRECOGNIZED).split():
                if word.startswith("-"):
                    hint = did_you_mean(word.split("=", 1)[0], options)
                    if hint:
                        return hint
        return ""


def did_you_mean(given: str, known: Sequence[str]) -> str:
    """`` (did you mean X?)`` for the nearest of ``known``, or nothing."""
    close = [name for name in known if name.startswith(given) and len(given) >= 3]
    if len(close) != 1:
        close = difflib.get_close_matches(given, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


class _TopHelp(argparse.RawDescriptionHelpFormatter):
    """The top-level help: every command is in the description's list (with the groups'
    commands), so argparse's own list of the first words is left out."""

    def _iter_indented_subactions(
        self, action: argparse.Action
    ) -> Generator[argparse.Action, None, None]:
        if not isinstance(action, argparse._SubParsersAction):
            yield from super()._iter_indented_subactions(action)


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


def _command_list() -> str:
    width = max(len(" ".join(path)) for path in COMMANDS) + 2
    lines = [f"  {' '.join(path):<{width}}{help_text}" for path, (_, help_text) in COMMANDS.items()]
    return "commands:\n" + "\n".join(lines)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, given ``argv``, with the arguments of the
    command ``argv`` names only (the others keep their name and help)."""
    wanted = None if argv is None else _asked_for(argv)
    parser = KitParser(
        prog="doomloop-kit",
        description=f"{DESCRIPTION}\n\n{_command_list()}",
        epilog=EXAMPLES,
        formatter_class=_TopHelp,
    )
    parser.add_argument("--version", action=_Version)
    groups = parser.add_subparsers(
        dest="group", required=True, metavar="COMMAND", help="one of the commands above"
    )
    group_parsers: dict[str, argparse._SubParsersAction[KitParser]] = {}
    for (group, *name), (module_name, help_text) in COMMANDS.items():
        sub: argparse.ArgumentParser
        if not name:  # a command outside any group
            sub = groups.add_parser(group, help=help_text, description=help_text)
        else:
            if group not in group_parsers:
                group_parser = groups.add_parser(
                    group, help=GROUPS[group], description=GROUPS[group]
                )
                group_parsers[group] = group_parser.add_subparsers(
                    dest="command", required=True, metavar="COMMAND"
                )
            sub = group_parsers[group].add_parser(name[0], help=help_text, description=help_text)
        sub.set_defaults(_parser=sub)
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


def parse(parser: argparse.ArgumentParser, words: Sequence[str]) -> argparse.Namespace:
    """The options of ``words``; an unknown option is refused by the command it was given
    to, which suggests its nearest option."""
    args, extras = parser.parse_known_args(words)
    if extras:
        owner: argparse.ArgumentParser = getattr(args, "_parser", parser)
        owner.error(f"{_UNRECOGNIZED}{' '.join(extras)}")
    return args


# -- `doomloop-kit completion SHELL` (its parser is the whole command line's) --------

SHELLS = ("bash", "zsh", "tcsh")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="the shell the script is for")
    parser.epilog = (
        "install, e.g.:\n"
        "  doomloop-kit completion bash > ~/.local/share/bash-completion/completions/doomloop-kit\n"
        "  doomloop-kit completion zsh > ~/.zfunc/_doomloop-kit   # with fpath+=~/.zfunc"
    )


def run(args: argparse.Namespace) -> int:
    """Print the completion script shtab writes from the parsers of every command."""
    import shtab

    print(shtab.complete(build_parser(), shell=args.shell))
    return 0


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
                args = parse(build_parser(words), words)
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
