"""Saving charts reproducibly: PNG and SVG bytes with no dates or random ids.

matplotlib stamps a creation date and a software string into its files and draws random
ids into SVGs unless ``svg.hashsalt`` is set; all three are pinned here so the same
figure gives the same bytes (on the same matplotlib version).
"""

from __future__ import annotations

import contextlib
import io

DPI = 100


@contextlib.contextmanager
def deterministic_style():
    """rcParams for reproducible files: fixed SVG ids, text kept as text (small files)."""
    import matplotlib as mpl

    from sheepsim.plots import SVG_SALT

    with mpl.rc_context({"svg.hashsalt": SVG_SALT, "svg.fonttype": "none",
                         "savefig.bbox": "tight", "figure.dpi": DPI}):
        yield


def png_bytes(fig) -> bytes:
    """The chart as a 256-colour PNG: charts use few colours, so the palette is visually
    lossless and the file about a third of matplotlib's RGBA one (index.html embeds
    every chart, and the example reports are committed)."""
    from PIL import Image

    buf = io.BytesIO()
    with deterministic_style():
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    rgb = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    # median cut without dithering is deterministic: the same figure, the same bytes
    pal = rgb.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    pal.save(out, format="PNG", optimize=True)
    return out.getvalue()


def svg_bytes(fig) -> bytes:
    buf = io.BytesIO()
    with deterministic_style():
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return buf.getvalue()


def title(fig) -> str:
    """The chart's title: the figure's suptitle, else its first titled axes ("" if none)."""
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text():
        return sup.get_text()
    return next((ax.get_title() for ax in fig.axes if ax.get_title()), "")


def close(fig) -> None:
    import matplotlib.pyplot as plt

    plt.close(fig)
