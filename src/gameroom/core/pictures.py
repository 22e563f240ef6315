"""What every game's picture shares: its caption, wrapped to the picture's width.

A caption says who did what (``core.narration``), so it can be longer than the picture is
wide (Q: "Ada places 3 tiles: ..."); an SVG ``<text>`` does not wrap by itself, and a
line longer than the picture is cut at its right edge. :func:`caption_svg` breaks it into
lines at spaces by an estimate of the width of sans-serif text (a character is at most
about 0.6 em wide on average), so no line runs past the picture. Pure text.
"""

from __future__ import annotations

from html import escape

__all__ = ["wrap", "caption_svg", "CHAR_EM"]

CHAR_EM = 0.6
"""The width of an average sans-serif character (bold included) in em: a safe estimate."""


def wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` in lines no wider than ``width`` pixels at ``size`` pixels a character
    height (a word longer than a line is cut into pieces)."""
    per_line = max(8, int(width / (size * CHAR_EM)))
    lines: list[str] = []
    line = ""
    for word in text.split():
        while len(word) > per_line:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:per_line])
            word = word[per_line:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= per_line:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines or [""]


def caption_svg(text: str, x: float, y: float, width: float, size: float = 16, weight: str = "bold",
                css: str = "caption") -> tuple[str, float]:
    """The caption as one ``<text class="caption">`` element whose first baseline is at
    ``y``, wrapped to ``width``; and the height its lines take (from ``y`` to the last
    baseline plus a line's descent)."""
    lines = wrap(text, width, size)
    step = size * 1.25
    spans = "".join(f'<tspan x="{x:g}" dy="{0 if i == 0 else step:g}">{escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    element = (f'<text class="{css}" x="{x:g}" y="{y:g}" font-family="sans-serif" font-size="{size:g}" '
               f'font-weight="{weight}">{spans}</text>')
    return element, (len(lines) - 1) * step + size * 0.35
