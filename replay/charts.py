"""Plain SVG charts for the fleet page: drawn here, so the page needs no script and no network.

Three shapes: grouped vertical bars (:func:`grouped_bars`), horizontal
stacked bars (:func:`stacked_rows`) and a labelled scatter (:func:`scatter`).
Every mark carries ``data-*`` attributes with its numbers and a ``<title>``
(the tooltip), so a reader -- or a test in a browser -- can check them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Final

WIDTH: Final = 720
PALETTE: Final = ("#1e88e5", "#43a047", "#e53935", "#9e9e9e", "#fb8c00", "#6a1b9a")
"""In order: all runs, success, failure, unlabelled (the outcome groups' colours)."""
STREAK_COLOURS: Final = ("#e53935", "#43a047", "#9e9e9e")
"""identical (a loop), changed (polling), unknown."""


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _frame(title: str, height: int, body: list[str]) -> str:
    return (
        f'<figure class="chart"><figcaption>{escape(title)}</figcaption>'
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">'
        + "".join(body)
        + "</svg></figure>\n"
    )


def _legend(names: Sequence[str], colours: Sequence[str], y: int) -> list[str]:
    parts = []
    for index, (name, colour) in enumerate(zip(names, colours, strict=True)):
        x = 60 + index * 150
        parts.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{x + 18}" y="{y}" font-size="12">{escape(name)}</text>')
    return parts


def grouped_bars(
    title: str,
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    unit: str = "%",
    top: float | None = None,
) -> str:
    """One group of bars per category, one bar per series (values in ``unit``)."""
    height, left, bottom, plot_top = 280, 50, 230, 20
    names = list(series)
    colours = PALETTE[: len(names)]
    highest = top or max([v for values in series.values() for v in values] + [1.0])
    body = [
        f'<line x1="{left}" y1="{bottom}" x2="{WIDTH - 10}" y2="{bottom}" stroke="#555"/>',
        f'<text x="4" y="{plot_top + 4}" font-size="11">{_fmt(highest)}{escape(unit)}</text>',
        f'<text x="4" y="{bottom}" font-size="11">0</text>',
    ]
    slot = (WIDTH - left - 20) / max(len(categories), 1)
    bar = max(min(slot / (len(names) + 1), 40), 2)
    for c, category in enumerate(categories):
        x0 = left + c * slot + (slot - bar * len(names)) / 2
        for s, name in enumerate(names):
            value = series[name][c]
            h = (bottom - plot_top) * value / highest if highest else 0
            x, y = x0 + s * bar, bottom - h
            body.append(
                f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" '
                f'height="{h:.1f}" fill="{colours[s]}" data-category="{escape(category)}" '
                f'data-series="{escape(name)}" data-value="{_fmt(value)}">'
                f"<title>{escape(category)}, {escape(name)}: {_fmt(value)}{escape(unit)}</title>"
                "</rect>"
            )
        body.append(
            f'<text x="{left + c * slot + slot / 2:.1f}" y="{bottom + 16}" font-size="12" '
            f'text-anchor="middle">{escape(category)}</text>'
        )
    return _frame(title, height, body + _legend(names, colours, height - 12))


def stacked_rows(
    title: str,
    rows: Sequence[tuple[str, Sequence[float]]],
    parts: Sequence[str],
    colours: Sequence[str] = PALETTE,
) -> str:
    """One horizontal bar per row, stacked from ``parts`` (counts)."""
    left, row_height = 180, 22
    height = 40 + row_height * len(rows) + 20
    colours = colours[: len(parts)]
    highest = max([sum(values) for _, values in rows] + [1.0])
    span = WIDTH - left - 60
    body = []
    for r, (label, values) in enumerate(rows):
        y = 10 + r * row_height
        body.append(
            f'<text x="{left - 6}" y="{y + 14}" font-size="12" text-anchor="end">'
            f"{escape(label[:28])}</text>"
        )
        x = float(left)
        for part, value, colour in zip(parts, values, colours, strict=True):
            w = span * value / highest
            body.append(
                f'<rect class="bar" x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_height - 6}" '
                f'fill="{colour}" data-category="{escape(label)}" data-series="{escape(part)}" '
                f'data-value="{_fmt(value)}"><title>{escape(label)}, {escape(part)}: '
                f"{_fmt(value)}</title></rect>"
            )
            x += w
        body.append(f'<text x="{x + 4:.1f}" y="{y + 14}" font-size="11">{_fmt(sum(values))}</text>')
    return _frame(title, height, body + _legend(parts, colours, height - 8))


def scatter(
    title: str, points: Sequence[tuple[str, float, float]], x_label: str, y_label: str
) -> str:
    """Labelled points, both axes in percent (0..100)."""
    height, left, bottom, plot_top, right = 340, 60, 290, 20, WIDTH - 20
    body = [
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#555"/>',
        f'<line x1="{left}" y1="{bottom}" x2="{left}" y2="{plot_top}" stroke="#555"/>',
        f'<text x="{(left + right) / 2}" y="{bottom + 34}" font-size="12" '
        f'text-anchor="middle">{escape(x_label)}</text>',
        f'<text x="14" y="{(bottom + plot_top) / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 14 {(bottom + plot_top) / 2})">{escape(y_label)}</text>',
    ]
    for tick in (0, 25, 50, 75, 100):
        x = left + (right - left) * tick / 100
        y = bottom - (bottom - plot_top) * tick / 100
        body.append(f'<text x="{x:.1f}" y="{bottom + 16}" font-size="10">{tick}%</text>')
        body.append(f'<text x="{left - 30}" y="{y:.1f}" font-size="10">{tick}%</text>')
    for label, px, py in points:
        x = left + (right - left) * px / 100
        y = bottom - (bottom - plot_top) * py / 100
        body.append(
            f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{PALETTE[0]}" '
            f'data-label="{escape(label)}" data-x="{_fmt(px)}" data-y="{_fmt(py)}">'
            f"<title>{escape(label)}: {_fmt(px)}%, {_fmt(py)}%</title></circle>"
        )
    return _frame(title, height, body)
