"""Plain SVG charts for the fleet page: drawn here, so the charts need no script and no network.

Three shapes: grouped vertical bars (:func:`grouped_bars`), horizontal
stacked bars (:func:`stacked_rows`) and a labelled scatter (:func:`scatter`).
Every chart takes the colour of each series by its name, from one of the
maps below, so a colour keeps one meaning within a chart whatever series are
present (and the same meaning wherever the same series appear). Axes carry
evenly spaced ticks with gridlines and a title; labels are sized to their
text. Every mark carries ``data-*`` attributes with its numbers and a
``<title>`` (the tooltip), so a reader -- or a test in a browser -- can
check them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Final

WIDTH: Final = 760
CHAR: Final = 7.0
"""The width of a character of 12px text, near enough to size margins by."""
OUTCOME_COLOURS: Final = {
    "all": "#37474f",
    "success": "#00897b",
    "failure": "#ad1457",
    "unlabelled": "#9e9e9e",
}
RUNG_COLOURS: Final = {
    "observe": "#1e88e5",
    "steer": "#43a047",
    "escalate": "#fb8c00",
    "block": "#e53935",
    "stop": "#6a1b9a",
}
"""The ladder's actions, as the replay page colours them too."""
STREAK_COLOURS: Final = {"identical": "#6d4c41", "changed": "#f9a825", "unknown": "#b0bec5"}
"""A streak's results: identical (a loop), changed (polling or progress), unknown."""
VERDICT_COLOURS: Final = {"by a call verdict": "#3949ab", "by a text verdict": "#8d6e63"}
SWEEP_COLOURS: Final = {"runs interfered with": "#fb8c00", "runs stopped": "#6a1b9a"}


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _tick(value: float) -> str:
    """A tick's label, exact (ticks are round numbers: 0.25 stays 0.25)."""
    return f"{value:g}"


def nice_ticks(highest: float, count: int = 4, whole: bool = False) -> list[float]:
    """Evenly spaced round ticks from 0 covering ``highest`` (about ``count`` steps)."""
    highest = max(highest, 1.0 if whole else 0.1)
    raw = highest / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    if whole:
        step = max(1.0, math.ceil(step))
    top = math.ceil(highest / step - 1e-9) * step
    return [round(i * step, 6) for i in range(round(top / step) + 1)]


def _frame(title: str, height: int, body: list[str], ident: str = "") -> str:
    figure_id = f' id="{escape(ident)}"' if ident else ""
    return (
        f'<figure class="chart"{figure_id}><figcaption>{escape(title)}</figcaption>'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">'
        + "".join(body)
        + "</svg></figure>\n"
    )


def _legend(names: Sequence[str], colours: Mapping[str, str], y: int, x: float = 60) -> list[str]:
    parts = []
    for name in names:
        parts.append(
            f'<rect class="legend" x="{x:.1f}" y="{y - 10}" width="12" height="12" '
            f'fill="{colours[name]}" data-series="{escape(name)}"/>'
        )
        parts.append(f'<text x="{x + 18:.1f}" y="{y}" font-size="12">{escape(name)}</text>')
        x += 30 + CHAR * len(name)
    return parts


def _y_axis(
    ticks: list[float], left: float, right: float, bottom: float, top: float, unit: str, title: str
) -> list[str]:
    """Gridlines and tick labels from 0 to the last tick, and the axis title."""
    parts = []
    for tick in ticks:
        y = bottom - (bottom - top) * tick / ticks[-1]
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" '
            f'stroke="{"#555" if tick == 0 else "#e0e0e0"}"/>'
        )
        parts.append(
            f'<text class="tick" x="{left - 6}" y="{y + 4:.1f}" font-size="11" '
            f'text-anchor="end">{_tick(tick)}{escape(unit)}</text>'
        )
    middle = (bottom + top) / 2
    parts.append(
        f'<text class="axis-title" x="14" y="{middle:.1f}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {middle:.1f})">{escape(title)}</text>'
    )
    return parts


def grouped_bars(
    title: str,
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    colours: Mapping[str, str],
    *,
    unit: str = "%",
    y_title: str = "",
    x_title: str = "",
    ident: str = "",
) -> str:
    """One group of bars per category, one bar per series (values in ``unit``)."""
    names = list(series)
    longest = max((len(c) for c in categories), default=1)
    slanted = longest * CHAR > (WIDTH - 90) / max(len(categories), 1) - 6
    height, left, plot_top, right = (
        300 + (int(longest * CHAR * 0.7) if slanted else 0),
        64,
        16,
        WIDTH - 16,
    )
    bottom = height - (70 + (int(longest * CHAR * 0.7) if slanted else 0))
    values = [v for vs in series.values() for v in vs]
    ticks = nice_ticks(max(values, default=0.0), whole=unit != "%")
    if unit == "%":
        ticks = [t for t in ticks if t <= 100] or [0.0, 100.0]
        if ticks[-1] < max(values, default=0.0):
            ticks.append(100.0)
    highest = ticks[-1]
    body = _y_axis(ticks, left, right, bottom, plot_top, "%" if unit == "%" else "", y_title)
    slot = (right - left) / max(len(categories), 1)
    bar = max(min(slot / (len(names) + 1), 40), 2)
    for c, category in enumerate(categories):
        x0 = left + c * slot + (slot - bar * len(names)) / 2
        for s, name in enumerate(names):
            value = series[name][c]
            h = (bottom - plot_top) * value / highest if highest else 0
            x, y = x0 + s * bar, bottom - h
            body.append(
                f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" '
                f'height="{h:.1f}" fill="{colours[name]}" data-category="{escape(category)}" '
                f'data-series="{escape(name)}" data-value="{_fmt(value)}">'
                f"<title>{escape(category)}, {escape(name)}: {_fmt(value)}{escape(unit)}</title>"
                "</rect>"
            )
        cx = left + c * slot + slot / 2
        if slanted:
            body.append(
                f'<text class="category" x="{cx:.1f}" y="{bottom + 14}" font-size="12" '
                f'text-anchor="end" transform="rotate(-35 {cx:.1f} {bottom + 14})">'
                f"{escape(category)}</text>"
            )
        else:
            body.append(
                f'<text class="category" x="{cx:.1f}" y="{bottom + 16}" font-size="12" '
                f'text-anchor="middle">{escape(category)}</text>'
            )
    if x_title:
        body.append(
            f'<text class="axis-title" x="{(left + right) / 2:.1f}" y="{height - 30}" '
            f'font-size="12" text-anchor="middle">{escape(x_title)}</text>'
        )
    return _frame(title, height, body + _legend(names, colours, height - 8), ident)


def stacked_rows(
    title: str,
    rows: Sequence[tuple[str, Sequence[float]]],
    parts: Sequence[str],
    colours: Mapping[str, str],
    *,
    x_title: str = "",
    ident: str = "",
) -> str:
    """One horizontal bar per row, stacked from ``parts`` (counts); labels in full."""
    longest = max((len(label) for label, _ in rows), default=4)
    left = min(max(int(longest * CHAR) + 16, 80), WIDTH // 2)
    fits = int((left - 16) / CHAR)
    row_height, top = 22, 10
    bottom = top + row_height * len(rows)
    height = bottom + 70
    right = WIDTH - 50
    ticks = nice_ticks(max([sum(values) for _, values in rows] + [0.0]), whole=True)
    span = right - left
    body = []
    for tick in ticks:
        x = left + span * tick / ticks[-1]
        body.append(
            f'<line class="grid" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" '
            f'stroke="{"#555" if tick == 0 else "#e0e0e0"}"/>'
        )
        body.append(
            f'<text class="tick" x="{x:.1f}" y="{bottom + 14}" font-size="11" '
            f'text-anchor="middle">{_tick(tick)}</text>'
        )
    if x_title:
        body.append(
            f'<text class="axis-title" x="{(left + right) / 2:.1f}" y="{bottom + 32}" '
            f'font-size="12" text-anchor="middle">{escape(x_title)}</text>'
        )
    for r, (label, values) in enumerate(rows):
        y = top + r * row_height
        shown = label if len(label) <= fits else label[: fits - 1] + "…"
        body.append(
            f'<text class="row-label" x="{left - 6}" y="{y + 14}" font-size="12" '
            f'text-anchor="end">{escape(shown)}<title>{escape(label)}</title></text>'
        )
        x = float(left)
        for part, value in zip(parts, values, strict=True):
            w = span * value / ticks[-1]
            body.append(
                f'<rect class="bar" x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_height - 6}" '
                f'fill="{colours[part]}" data-category="{escape(label)}" '
                f'data-series="{escape(part)}" data-value="{_fmt(value)}"><title>{escape(label)}, '
                f"{escape(part)}: {_fmt(value)}</title></rect>"
            )
            x += w
        body.append(
            f'<text class="total" x="{x + 4:.1f}" y="{y + 14}" font-size="11">'
            f"{_fmt(sum(values))}</text>"
        )
    return _frame(title, height, body + _legend(parts, colours, height - 8), ident)


def scatter(
    title: str,
    points: Sequence[tuple[str, float, float, bool]],
    x_title: str,
    y_title: str,
    *,
    ident: str = "",
) -> str:
    """Labelled points ``(label, x, y, dead)``, both axes in percent from 0 to a round top
    covering the points; a ladder with a dead rung is a hollow point."""
    height, left, bottom, plot_top, right = 360, 64, 300, 16, WIDTH - 20
    x_ticks = nice_ticks(max([p[1] for p in points] + [1.0]))
    y_ticks = nice_ticks(max([p[2] for p in points] + [1.0]))
    body = _y_axis(y_ticks, left, right, bottom, plot_top, "%", y_title)
    for tick in x_ticks:
        x = left + (right - left) * tick / x_ticks[-1]
        body.append(
            f'<line class="grid" x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{plot_top}" '
            f'stroke="{"#555" if tick == 0 else "#e0e0e0"}"/>'
        )
        body.append(
            f'<text class="tick" x="{x:.1f}" y="{bottom + 16}" font-size="11" '
            f'text-anchor="middle">{_tick(tick)}%</text>'
        )
    body.append(
        f'<text class="axis-title" x="{(left + right) / 2:.1f}" y="{bottom + 38}" '
        f'font-size="12" text-anchor="middle">{escape(x_title)}</text>'
    )
    labels: dict[tuple[str, str], list[str]] = {}
    """The labels at each drawn position: ladders that land on one point share a label."""
    for label, px, py, dead in points:
        x = left + (right - left) * px / x_ticks[-1]
        y = bottom - (bottom - plot_top) * py / y_ticks[-1]
        fill = "#fff" if dead else OUTCOME_COLOURS["all"]
        note = " (dead rung)" if dead else ""
        body.append(
            f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{fill}" '
            f'stroke="{OUTCOME_COLOURS["all"]}" stroke-width="1.5" data-label="{escape(label)}" '
            f'data-x="{_fmt(px)}" data-y="{_fmt(py)}" data-dead="{str(dead).lower()}">'
            f"<title>{escape(label)}{note}: {_fmt(px)}%, {_fmt(py)}%</title></circle>"
        )
        labels.setdefault((f"{x:.1f}", f"{y:.1f}"), []).append(label + note)
    if len(labels) <= 16:  # more would crowd the chart: the tooltips and the table say them
        for (x_text, y_text), names in labels.items():
            x, y = float(x_text), float(y_text)
            text = ", ".join(names)
            anchor = "end" if x + 8 + CHAR * 0.85 * len(text) > right else "start"
            dx = -8 if anchor == "end" else 8
            body.append(
                f'<text class="point-label" x="{x + dx:.1f}" y="{max(y - 6, plot_top + 10):.1f}" '
                f'font-size="11" text-anchor="{anchor}">{escape(text)}</text>'
            )
    legend = [
        f'<circle cx="66" cy="{height - 12}" r="5" fill="{OUTCOME_COLOURS["all"]}"/>',
        f'<text x="76" y="{height - 8}" font-size="12">a ladder</text>',
        f'<circle cx="156" cy="{height - 12}" r="5" fill="#fff" '
        f'stroke="{OUTCOME_COLOURS["all"]}" stroke-width="1.5"/>',
        f'<text x="166" y="{height - 8}" font-size="12">a ladder with a dead rung</text>',
    ]
    return _frame(title, height, body + legend, ident)
