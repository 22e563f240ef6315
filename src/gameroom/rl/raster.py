"""The ``rgb_array`` render mode: a game's SVG picture as an H x W x 3 ``uint8`` array.

The SVG is rasterised by cairosvg on the system's libcairo (Debian's ``libcairo2``), a
well-kept converter that draws everything the games' pictures use (shapes, paths, text);
it is in the ``rl`` extra. When cairosvg or libcairo is missing the environments simply
do not offer ``rgb_array`` (their ``metadata["render_modes"]`` leaves it out), and asking
for it says what to install. The picture is drawn on white (the SVGs leave their
background transparent in places), so every pixel is opaque.
"""

from __future__ import annotations

import functools
import io
from typing import Any

import numpy as np

__all__ = ["RGB_ARRAY", "available", "missing", "rgb_array", "text_svg"]

RGB_ARRAY = "rgb_array"


@functools.cache
def missing() -> str | None:
    """Why ``rgb_array`` cannot be drawn here (None: it can). cairosvg loads libcairo as it
    is imported, so importing it is the whole check; done once, when first asked."""
    try:
        import cairosvg  # noqa: F401
        import PIL.Image  # noqa: F401  (cairosvg's own dependency: it decodes the PNG)
    except (ImportError, OSError) as exc:   # OSError: cairocffi found no libcairo
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return (f"the rgb_array render mode needs cairosvg and the system's libcairo "
                f"(pip install 'gameroom[rl]'; Debian: apt-get install libcairo2): {first}")
    return None


def available() -> bool:
    """Whether ``rgb_array`` pictures can be drawn here."""
    return missing() is None


def rgb_array(svg: str) -> Any:
    """``svg`` rasterised at its own size on white: an (H, W, 3) ``uint8`` array."""
    reason = missing()
    if reason is not None:
        raise RuntimeError(reason)
    import cairosvg
    import PIL.Image

    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"), background_color="white")
    with PIL.Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def text_svg(text: str) -> str:
    """A small picture of a line of text (what is shown before the game has a position)."""
    from xml.sax.saxutils import escape

    width = 12 + 7 * len(text)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="32">'
            f'<text x="6" y="20" font-family="sans-serif" font-size="12">{escape(text)}</text></svg>')
