"""Pinned outputs of a game's commands (``tests/<game>/test_*pinned*.py``): the digest
of an output less what says where it ran, the rules variant file, one command's output.

A pin file lists ``(case, argv, digest)``; an argv word ``{variant}`` is the variant
rules file (its path differs between runs, so it is written ``{variant}`` again in the
output before the digest). A change that is *meant* to change results recomputes the
digest and says so in CHANGELOG.md."""

import hashlib
import json
import re
from importlib import resources

from tests.cli_helpers import run

#: the JSON metadata that says where a run happened, not what it computed
VERSIONS = ("sheepsim_version", "python", "numpy", "numba", "pandas")


def digest(out: str) -> str:
    """sha256 of ``out`` (JSON: less the package versions; text: sheepsim's version as
    ``{version}``), first 16 hex digits."""
    out = re.sub(r"sheepsim \d+\.\d+\.\d+[\w.+-]*", "sheepsim {version}", out)
    try:
        doc = json.loads(out)
    except ValueError:
        text = out
    else:
        if isinstance(doc, dict) and isinstance(doc.get("meta"), dict):
            for key in VERSIONS:
                doc["meta"].pop(key, None)
        text = json.dumps(doc, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def variant_file(tmp_path_factory, package: str, edits: dict[str, str]) -> str:
    """The path of ``package``'s ``standard.toml`` with each ``old -> new`` of ``edits``
    replaced (each must be found)."""
    text = resources.files(package).joinpath("standard.toml").read_text()
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path_factory.mktemp("rules") / "variant.toml"
    path.write_text(text)
    return str(path)


def output(capsys, game: str, argv, variant: str, plugin: str | None = None) -> str:
    """``sheepsim <game> <argv>``'s standard output (the command must succeed and print),
    the variant's path written ``{variant}`` again and, with ``plugin``, that plug-in's
    name (it holds the test module's import name) written ``{plugin}``."""
    argv = [a.replace("{variant}", variant) for a in argv]
    code, out, err = run(capsys, game, *argv)
    assert code == 0, err
    assert out.strip(), argv
    out = out.replace(variant, "{variant}")
    return out.replace(plugin, "{plugin}") if plugin else out
