"""``sheepsim cache``: lists the kernel folders and odds tables, ``--prune`` removes those
of other source digests, ``--clear`` all of sheepsim's, and nothing else is touched."""

import os
import time

import pytest

from sheepsim import cachefolders
from sheepsim.cli import main
from sheepsim.jit import source_digest

OLD = "0123456789abcdef"
RULES = "ab" * 10


def _fill(root):
    """A cache root with this version's folder and odds table, an old version's, an
    unfinished odds write, and things that are not sheepsim's."""
    now = source_digest()
    (root / f"kernels-{now}").mkdir(parents=True)
    (root / f"kernels-{now}" / "k.nbi").write_bytes(b"x" * 1000)
    (root / f"kernels-{OLD}" / "plugins-1").mkdir(parents=True)
    (root / f"kernels-{OLD}" / "plugins-1" / "k.nbc").write_bytes(b"x" * 3000)
    odds = root / "odds"
    odds.mkdir()
    (odds / f"odds-{RULES}-{now}-200000-20130.npz").write_bytes(b"x" * 10)
    (odds / f"odds-{RULES}-{OLD}-200000-20130.npz").write_bytes(b"x" * 20)
    for name, age in (("stale.tmp", 2 * cachefolders.UNFINISHED_AFTER_S), ("fresh.tmp", 0)):
        (odds / name).write_bytes(b"x")
        t = time.time() - age
        os.utime(odds / name, (t, t))
    (root / "kernels-not-a-digest").mkdir()  # not a name sheepsim makes
    (root / "notes.txt").write_text("mine")


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("SHEEPSIM_CACHE_DIR", str(tmp_path / "cache"))
    _fill(tmp_path / "cache")
    return tmp_path / "cache"


def _names(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_entries_tell_this_version_from_old_ones(root):
    entries = cachefolders.cache_entries(root)
    now = source_digest()
    got = {(e.path.name, e.kind, e.size_bytes, e.current) for e in entries}
    assert got == {
        (f"kernels-{now}", "kernels", 1000, True),
        (f"kernels-{OLD}", "kernels", 3000, False),
        (f"odds-{RULES}-{now}-200000-20130.npz", "odds table", 10, True),
        (f"odds-{RULES}-{OLD}-200000-20130.npz", "odds table", 20, False),
        ("stale.tmp", "unfinished write", 1, False),
    }
    assert [e.current for e in entries] == sorted((e.current for e in entries), reverse=True)


def test_listing_removes_nothing(root, capsys):
    before = _names(root)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert f"kernels-{source_digest()}/" in out and "this version" in out
    assert f"kernels-{OLD}/" in out and "old" in out
    assert "odds/ (3 files)" in out and "1 for this version, 2 old" in out
    assert "--prune" in out
    assert _names(root) == before


def test_prune_removes_only_other_versions(root, capsys):
    assert main(["cache", "--prune"]) == 0
    assert "removed 3 folders and files" in capsys.readouterr().out
    now = source_digest()
    assert _names(root) == sorted([
        f"kernels-{now}", f"kernels-{now}/k.nbi", "kernels-not-a-digest", "notes.txt", "odds",
        f"odds/odds-{RULES}-{now}-200000-20130.npz", "odds/fresh.tmp"])


def test_clear_removes_all_of_sheepsims_and_nothing_else(root, capsys):
    assert main(["cache", "--clear"]) == 0
    assert _names(root) == ["kernels-not-a-digest", "notes.txt", "odds", "odds/fresh.tmp"]
    assert "removed 5 folders and files" in capsys.readouterr().out
    assert main(["cache"]) == 0  # what is left is not sheepsim's: nothing listed
    assert capsys.readouterr().out.startswith("nothing cached at ")


def test_clear_removes_the_odds_folder_once_it_is_empty(root, capsys):
    (root / "odds" / "fresh.tmp").unlink()  # no write of another process under way
    assert main(["cache", "--clear"]) == 0
    assert _names(root) == ["kernels-not-a-digest", "notes.txt"]


def test_one_entry_reads_in_the_singular(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SHEEPSIM_CACHE_DIR", str(tmp_path))
    (tmp_path / "odds").mkdir()
    (tmp_path / "odds" / f"odds-{RULES}-{OLD}-200000-20130.npz").write_bytes(b"x")
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert "odds/ (1 file)" in out and "in 1 folder or file;" in out


def test_empty_root(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SHEEPSIM_CACHE_DIR", str(tmp_path / "none"))
    assert main(["cache"]) == 0
    assert capsys.readouterr().out.startswith("nothing cached at ")
    assert main(["cache", "--prune"]) == 0


def test_prune_and_clear_together_is_one_error_line(root, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["cache", "--prune", "--clear"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not allowed with" in err


def test_a_folder_that_cannot_be_removed_is_named(root, monkeypatch, capsys):
    def refuse(path, *a, **k):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(cachefolders.shutil, "rmtree", refuse)
    assert main(["cache", "--prune"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"cannot remove {root / f'kernels-{OLD}'}: Permission denied" in err
