"""Sphinx configuration of the sheepsim docs: offline (no intersphinx, nothing fetched).

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (warnings are
errors; ``tests/test_docs.py`` builds it the same way). The gallery's examples
(``docs/examples/plot_*.py``) run at build time.
"""

import os
import re

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("MPLBACKEND", "Agg")

from sheepsim._version import __version__ as release  # light: imports no numba, no pandas

version = release

project = "sheepsim"
author = "the sheepsim authors"
copyright = "2026, the sheepsim authors"  # noqa: A001 - Sphinx's name

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples/README.txt", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.json"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 4

autosummary_generate = True
autodoc_default_options = {"members": True, "undoc-members": False}
autodoc_member_order = "bysource"
autodoc_typehints = "none"

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "plot_gallery": "True",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "min_reported_time": 1,
    "show_memory": False,
}

html_theme = "pydata_sphinx_theme"
html_title = f"sheepsim {release}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_static_path: list[str] = []
html_show_sourcelink = False


def _absolute_module_refs(app, what, name, obj, options, lines):
    """``:mod:`.analysis``` in a game module's docstring names the game's own module: write
    it out in full (three games have an ``analysis`` module, so the short name is
    ambiguous in one docs site)."""
    package = name.rsplit(".", 1)[0] if what == "module" else name.rsplit(".", 2)[0]
    for i, line in enumerate(lines):
        lines[i] = re.sub(r":mod:`\.(\w+)`", lambda m: f":mod:`{package}.{m[1]}`", line)


def setup(app):
    app.connect("autodoc-process-docstring", _absolute_module_refs)
