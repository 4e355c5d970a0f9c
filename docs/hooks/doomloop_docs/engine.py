"""A worked engine example, generated when the site is built (spec §15.1.4).

A page writes ``<!-- doomloop:engine-example I-08 -->``; the marker becomes one
of the brief's scenarios (``doomloop_kit.generators.curated.engine.brief``),
the facts it pins, and the transcript the reference engine produces for it
(``doomloop_kit.engine.run_scenario``, the answer a harness gives to
``runScenario``): a summary of each run and the whole transcript, folded. No
JSON is pasted into the page by hand, so the example follows the engine.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .util import md_cell, md_text, short_json

MARKER = re.compile(r"<!-- doomloop:engine-example (?P<id>[A-Z]-\d{2}(?:/[a-z0-9-]+)?) -->")
ITEM_WIDTH = 110
"""Characters of an input item shown in the dispatch table (the whole item is in the JSON)."""

Entry = Mapping[str, Any]
StatementLink = Callable[[str], str | None]
"""Statement id -> a Markdown link target from the page, or None for an unknown id."""


class ExampleError(Exception):
    """The example cannot be generated (unknown scenario, or the engine is not importable)."""


def brief_entry(brief_id: str) -> Entry:
    """The brief scenario with this id (``I-08``; a variant is ``I-15/<variant>``)."""
    try:
        from doomloop_kit.generators.curated.engine.brief import SCENARIOS
    except ImportError as error:  # pragma: no cover - the kit is installed with the docs
        raise ExampleError(f"the brief's scenarios are not importable: {error}") from error
    for entry in SCENARIOS:
        scenario = entry["scenario"]
        if isinstance(scenario, dict) and scenario.get("id") == brief_id:
            return entry
    raise ExampleError(f"no brief scenario {brief_id}")


def transcript_of(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """What ``runScenario`` answers for ``scenario``: the reference engine's transcript."""
    from doomloop_kit.engine import Scenario, run_scenario

    result: dict[str, Any] = run_scenario(Scenario.from_json(scenario)).to_json()
    return result


def _short(value: object, width: int = ITEM_WIDTH) -> str:
    text = short_json(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _code(value: object, width: int = ITEM_WIDTH) -> str:
    """Inline code in a table cell (backticks doubled around text that holds one)."""
    text = md_cell(_short(value, width))
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def _json_block(value: object, indent: str = "") -> list[str]:
    body = json.dumps(value, indent=2, ensure_ascii=False)
    return [f"{indent}```json", *(f"{indent}{line}" for line in body.splitlines()), f"{indent}```"]


def _statements(ids: Sequence[str], link: StatementLink) -> str:
    parts = []
    for sid in ids:
        target = link(sid)
        if target is None:
            raise ExampleError(f"the example cites unknown statement id {sid}")
        parts.append(f"[{sid}]({target})")
    return ", ".join(parts)


def _last_item(item: object) -> str:
    """A tool output shows its text (what the model reads), any other item its JSON."""
    if isinstance(item, dict) and item.get("type") == "function_call_output":
        return f"output of `{md_cell(str(item.get('callId')))}`: {_code(item.get('output'), 240)}"
    return _code(item)


def run_summary(run: Mapping[str, Any]) -> list[str]:
    """Markdown tables of one run: dispatches, hook events, executions, end."""
    out = [
        "| Dispatch | Kind | Response | Input items | Last input item |",
        "| ---: | --- | --- | ---: | --- |",
    ]
    for dispatch in run["dispatches"]:
        items = dispatch["request"].get("input", [])
        last = _last_item(items[-1]) if items else "—"
        response = f"`{dispatch['responseId']}`" if dispatch["responseId"] else "none (ENG-20)"
        out.append(
            f"| {dispatch['index']} | {dispatch['kind']} | {response} | {len(items)} | {last} |"
        )
    out += ["", "| Hook event | Applied action | Payload |", "| --- | --- | --- |"]
    for event in run["events"]:
        out.append(
            f"| `{event['hook']}` | {event.get('appliedAction', '—')} | {_code(event['payload'])} |"
        )
    out += ["", "| Execution | Tool | Arguments | Round |", "| --- | --- | --- | ---: |"]
    for execution in run["executions"]:
        out.append(
            f"| `{execution['callId']}` | `{execution['name']}` | "
            f"{_code(execution['arguments'])} | {execution['round']} |"
        )
    if not run["executions"]:
        out.append("| — | | | |")
    out += ["", f"End: {_code(run['end'], 400)}"]
    return out


def example_markdown(
    brief_id: str, link: StatementLink, vector_link: Callable[[str], tuple[str, str] | None]
) -> str:
    """The Markdown that replaces the marker for ``brief_id``; ``vector_link`` gives the
    id and link target of the catalog's vector of that scenario, when there is one."""
    entry = brief_entry(brief_id)
    scenario = entry["scenario"]
    transcript = transcript_of(scenario)
    vector = vector_link(brief_id)
    where = f" It is the vector [`{vector[0]}`]({vector[1]}) of the catalog." if vector else ""
    out = [
        f"**Brief scenario {md_text(brief_id)}, *{md_text(str(entry['title']))}*** "
        f"(cites {_statements(entry['spec'], link)}).{where} The scenario, as the runner "
        "sends it in `runScenario`:",
        "",
        *_json_block(scenario),
        "",
        "The facts the brief pins for it (informative in a vector; the transcript below "
        "satisfies each):",
        "",
        *(f"- {_code(fact, 300)}" for fact in entry["facts"]),
        "",
        "The transcript the reference engine produces, which is the expected `result` of "
        "the vector, run by run:",
        "",
    ]
    for run in transcript["runs"]:
        kind = "decision resume" if run["decisionResume"] else "fresh turn"
        out += [f"Run {run['index']} ({kind}):", "", *run_summary(run), ""]
    out += [
        '??? example "The whole transcript (JSON)"',
        "",
        *_json_block(transcript, "    "),
        "",
    ]
    return "\n".join(out)


def fill(
    markdown: str,
    page_src_uri: str,
    statement_src: Callable[[str], str | None],
    vector_src: Callable[[str], tuple[str, str] | None],
) -> str:
    """Replace every example marker of a page. ``statement_src`` gives a statement's page;
    ``vector_src`` the id and family page of the engine vector whose scenario has an id."""
    page_dir = posixpath.dirname(page_src_uri) or "."

    def link(sid: str) -> str | None:
        src = statement_src(sid)
        return None if src is None else f"{posixpath.relpath(src, page_dir)}#{sid}"

    def vector_link(scenario_id: str) -> tuple[str, str] | None:
        found = vector_src(scenario_id)
        if found is None:
            return None
        vid, src = found
        return vid, f"{posixpath.relpath(src, page_dir)}#{vid}"

    return MARKER.sub(lambda m: example_markdown(m["id"], link, vector_link), markdown)
