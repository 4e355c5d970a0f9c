"""``--html FILE``: one self-contained page plotting the replay.

The page draws, with its own inline script and no request to anything, the
streak of every tool over the rounds (a text series for the text streak),
the ladder's thresholds as horizontal lines (LAD-01), a mark for each verdict
coloured by its action (the message in its tooltip), a vertical line at each
resume, and a table of the verdicts; a sub-agent's conversation gets a plot
of its own. The data is written into the page one
line per entry as the replay goes, so the replay keeps nothing in memory.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Final

from doomloop_kit.reference import ResolvedConfig
from doomloop_kit.vectorset.writing import OutputStream

from .charts import RUNG_COLOURS
from .driver import (
    CallResult,
    Entry,
    ResumeResult,
    RoundResult,
    ServerResult,
    TextResult,
    ThreadResult,
)
from .summary import Summary

ACTION_COLOURS: Final = RUNG_COLOURS


def script(*names: str) -> str:
    """The package's script files ``names``, joined (plot.js before the page's own)."""
    folder = resources.files(__package__)
    return "".join(folder.joinpath(name).read_text(encoding="utf-8") for name in names)


def script_json(data: object) -> str:
    """JSON that cannot end the script element it sits in."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _verdicts(calls: tuple[CallResult, ...]) -> list[dict[str, object]]:
    """The round's verdicts; equal ones (the calls of one fan-out) once, with a count."""
    found: dict[tuple[str, str, float, str], int] = {}
    for call in calls:
        if call.verdict is not None:
            v = call.verdict
            key = (call.tool, v.action, v.streak, v.message)
            found[key] = found.get(key, 0) + 1
    return [
        {"tool": tool, "action": action, "streak": streak, "message": message, "calls": count}
        for (tool, action, streak, message), count in found.items()
    ]


def _streaks(calls: tuple[CallResult, ...]) -> dict[str, float]:
    streaks: dict[str, float] = {}
    for call in calls:
        if call.streak is not None:
            streaks[call.tool] = max(streaks.get(call.tool, 0), call.streak)
    return streaks


def point(entry: Entry) -> dict[str, object] | None:
    """The plot's data for one entry (None for notices), without an empty action or
    verdict list (nothing fired: the common case, kept short)."""
    data = _point(entry)
    if data is not None:
        for name in ("action", "verdicts"):
            if name in data and not data[name]:
                del data[name]
    return data


def _point(entry: Entry) -> dict[str, object] | None:
    if isinstance(entry, RoundResult):
        return {
            "t": "round",
            "x": entry.number,
            "line": entry.line,
            "action": entry.action,
            "streaks": _streaks(entry.calls),
            "verdicts": _verdicts(entry.calls),
        }
    if isinstance(entry, ServerResult):
        return {
            "t": "server",
            "x": entry.after_round + 0.5,
            "line": entry.line,
            "action": entry.action,
            "streaks": _streaks(entry.calls),
            "verdicts": _verdicts(entry.calls),
        }
    if isinstance(entry, TextResult):
        verdicts = []
        if entry.verdict is not None:
            v = entry.verdict
            verdicts.append(
                {
                    "tool": "text",
                    "action": v.action,
                    "streak": entry.streak,
                    "message": v.message,
                    "detector": v.detector,
                }
            )
        x = entry.after_round + (0.75 if entry.in_round else 0.5)
        return {
            "t": "text",
            "x": x,
            "line": entry.line,
            "action": entry.action,
            "streaks": {"text": entry.streak},
            "verdicts": verdicts,
        }
    if isinstance(entry, ResumeResult):
        return {"t": "resume", "x": None, "line": entry.line, "run": entry.run}
    return None


class HtmlPage:
    """Writes the page to ``path`` as the entries come (published at :meth:`close`)."""

    def __init__(self, path: Path, log: Path, config: ResolvedConfig) -> None:
        self.file = OutputStream(path)
        self.summary = Summary()
        self.thread: str | None = None
        self.last_x: dict[str | None, float] = {}
        """Each conversation's latest position (a sub-agent's rounds start from 1)."""
        title = f"Replay of {log.name}"
        setup = {"log": str(log), "ladder": config.ladder.to_json(), "colours": ACTION_COLOURS}
        style = resources.files(__package__).joinpath("page.css").read_text(encoding="utf-8")
        self.file.write(
            '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title>\n<style>\n{style}</style></head>\n<body>\n"
            f"<h1>{html.escape(title)}</h1>\n"
            '<p id="summary"></p>\n'
            '<div id="plot" role="img" aria-label="streak per tool over the rounds"></div>\n'
            '<div id="legend"></div>\n'
            "<noscript><p>The plot is drawn by the script inside this page "
            "(no network access needed): allow scripts to see it.</p></noscript>\n"
            '<h2 id="verdicts-title">Verdicts</h2>\n'
            '<table id="verdicts"><thead><tr><th>at</th><th>line</th>'
            "<th>tool</th><th>streak</th><th>action</th><th>message</th></tr></thead>"
            "<tbody></tbody></table>\n"
            '<script type="application/json" id="replay-setup">'
            f"{script_json(setup)}</script>\n"
            '<script type="text/plain" id="replay-data">\n'
        )

    def add(self, entry: Entry) -> None:
        self.summary.add(entry)
        if isinstance(entry, ThreadResult):
            self.thread = entry.name
            return
        data = point(entry)
        if data is None:
            return
        if data["x"] is None:  # after the last round's text check
            data["x"] = int(self.last_x.get(self.thread, 0)) + 0.65
        self.last_x[self.thread] = float(str(data["x"]))
        if self.thread is not None:
            data["thread"] = self.thread
        self.file.write(script_json(data) + "\n")

    def close(self, log_format: str | None) -> None:
        summary = {"format": log_format, **self.summary.to_json()}
        code = script("plot.js", "page.js")
        self.file.write(
            "</script>\n"
            f'<script type="application/json" id="replay-summary">{script_json(summary)}'
            f"</script>\n<script>\n{code}</script>\n</body></html>\n"
        )
        self.file.commit()

    def abort(self) -> None:
        self.file.abort()
