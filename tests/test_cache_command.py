"""``sheepsim cache``: lists the kernel folders and odds tables, ``--prune`` removes those
made from other source (a module digest this tree does not have, the earlier layout),
``--clear`` all of sheepsim's, and nothing else is touched; ``warm`` compiles ahead."""

import os
import re
import time

import pytest

from sheepsim import cachefolders, jit
from sheepsim.cli import main
from sheepsim.games.race.simulate import odds_code_digest

OLD = "0123456789abcdef"
USER = "fedcba9876543210"
BUILT = "00112233445566ff"
SINGLE = "the race's single-race kernels, one per built-in pace policy"
RULES = "ab" * 10


def _fill(root):
    """A cache root with this source's kernel folders (a module's, a plug-in's, a
    built-in variant's) and odds table, old ones (another digest of the module, a plug-in
    and a built-in variant keyed by old modules, the
    earlier one-folder-per-package layout, an old odds table), an unfinished odds write,
    and things that are not sheepsim's."""
    rng, odds_now = jit.module_digest("rng.py"), odds_code_digest()
    k = root / "kernels"
    for name, size in ((f"rng-{rng}", 1000), (f"rng-{OLD}", 500),
                       (f"plugins-{rng}-{USER}", 200), (f"plugins-{OLD}-{USER}", 100)):
        (k / name).mkdir(parents=True)
        (k / name / "k.nbi").write_bytes(b"x" * size)
    for name in (f"plugins-{rng}-{USER}", f"plugins-{OLD}-{USER}"):
        (k / name / jit.VARIANT_MANIFEST).write_text("rng.py\n")
    for which, digest in (("random", rng), ("greedy", OLD)):
        (k / f"plugins-{digest}-{BUILT}").mkdir()
        (k / f"plugins-{digest}-{BUILT}" / jit.VARIANT_MANIFEST).write_text("rng.py\n")
        (k / f"plugins-{digest}-{BUILT}" / jit.VARIANT_BUILTIN).write_text(f"{SINGLE}: {which}\n")
    (root / f"kernels-{OLD}" / "plugins-1").mkdir(parents=True)
    (root / f"kernels-{OLD}" / "plugins-1" / "k.nbc").write_bytes(b"x" * 3000)
    odds = root / "odds"
    odds.mkdir()
    (odds / f"odds-{RULES}-{odds_now}-200000-20130.npz").write_bytes(b"x" * 10)
    (odds / f"odds-{RULES}-{OLD}-200000-20130.npz").write_bytes(b"x" * 20)
    for name, age in (("stale.tmp", 2 * cachefolders.UNFINISHED_AFTER_S), ("fresh.tmp", 0)):
        (odds / name).write_bytes(b"x")
        t = time.time() - age
        os.utime(odds / name, (t, t))
    (root / "kernels-not-a-digest").mkdir()  # not names sheepsim makes
    (k / "mine").mkdir()
    (root / "notes.txt").write_text("mine")


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("SHEEPSIM_CACHE_DIR", str(tmp_path / "cache"))
    _fill(tmp_path / "cache")
    return tmp_path / "cache"


def _names(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_entries_tell_this_source_from_old_ones(root):
    entries = cachefolders.cache_entries(root)
    rng, odds_now = jit.module_digest("rng.py"), odds_code_digest()
    got = {(e.path.name, e.kind, e.size_bytes, e.current) for e in entries}
    assert got == {
        (f"rng-{rng}", "kernels", 1000, True),
        (f"rng-{OLD}", "kernels", 500, False),
        (f"plugins-{rng}-{USER}", "plug-in kernels", 207, True),
        (f"plugins-{OLD}-{USER}", "plug-in kernels", 107, False),
        (f"plugins-{rng}-{BUILT}", "built-in variant kernels", 7 + len(SINGLE) + 9, True),
        (f"plugins-{OLD}-{BUILT}", "built-in variant kernels", 7 + len(SINGLE) + 9, False),
        (f"kernels-{OLD}", "kernels (old layout)", 3000, False),
        (f"odds-{RULES}-{odds_now}-200000-20130.npz", "odds table", 10, True),
        (f"odds-{RULES}-{OLD}-200000-20130.npz", "odds table", 20, False),
        ("stale.tmp", "unfinished write", 1, False),
    }
    assert [e.current for e in entries] == sorted((e.current for e in entries), reverse=True)


def test_a_plugin_folder_without_its_manifest_is_old(root):
    rng = jit.module_digest("rng.py")
    (root / "kernels" / f"plugins-{rng}-{USER}" / jit.VARIANT_MANIFEST).unlink()
    entries = {e.path.name: e.current for e in cachefolders.cache_entries(root)}
    assert entries[f"plugins-{rng}-{USER}"] is False


def test_listing_removes_nothing(root, capsys):
    before = _names(root)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert "kernels/ (modules) (2 folders)" in out and "1 for this source, 1 old" in out
    # plug-ins apart from sheepsim's own variants for built-in policies, named by what they are
    assert "kernels/plugins-* plug-ins (2 folders)" in out
    assert "kernels/plugins-* built-in variants (2 folders)" in out
    assert f"\n    {SINGLE}: random\n" in out  # this source's alone: greedy's is old
    assert f"kernels-{OLD}/" in out and "old (an earlier version's layout)" in out
    assert "odds/ (3 files)" in out and "1 for this source, 2 old" in out
    assert "--prune" in out
    assert _names(root) == before


def test_prune_removes_only_what_other_source_made(root, capsys):
    assert main(["cache", "--prune"]) == 0
    assert "removed 6 folders and files" in capsys.readouterr().out
    rng, odds_now = jit.module_digest("rng.py"), odds_code_digest()
    assert _names(root) == sorted([
        "kernels", f"kernels/rng-{rng}", f"kernels/rng-{rng}/k.nbi", "kernels/mine",
        f"kernels/plugins-{rng}-{USER}", f"kernels/plugins-{rng}-{USER}/k.nbi",
        f"kernels/plugins-{rng}-{USER}/{jit.VARIANT_MANIFEST}",
        f"kernels/plugins-{rng}-{BUILT}", f"kernels/plugins-{rng}-{BUILT}/{jit.VARIANT_BUILTIN}",
        f"kernels/plugins-{rng}-{BUILT}/{jit.VARIANT_MANIFEST}",
        "kernels-not-a-digest", "notes.txt", "odds",
        f"odds/odds-{RULES}-{odds_now}-200000-20130.npz", "odds/fresh.tmp"])


def test_clear_removes_all_of_sheepsims_and_nothing_else(root, capsys):
    assert main(["cache", "--clear"]) == 0
    assert _names(root) == ["kernels", "kernels-not-a-digest", "kernels/mine", "notes.txt",
                            "odds", "odds/fresh.tmp"]
    assert "removed 10 folders and files" in capsys.readouterr().out
    assert main(["cache"]) == 0  # what is left is not sheepsim's: nothing listed
    assert capsys.readouterr().out.startswith("nothing cached at ")


def test_clear_removes_the_odds_and_kernels_folders_once_empty(root, capsys):
    (root / "odds" / "fresh.tmp").unlink()  # no write of another process under way
    (root / "kernels" / "mine").rmdir()
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
    assert re.search(rf"cannot remove \S*{OLD}\S*: Permission denied\n$", err), err


def test_warm_an_unknown_game_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SHEEPSIM_CACHE_DIR", str(tmp_path))
    assert main(["cache", "warm", "--game", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown game 'nosuch'" in err
    assert main(["cache", "--game", "pig"]) == 2  # --game belongs to warm
    assert "--game is an option of `sheepsim cache warm`" in capsys.readouterr().err


def test_warm_lists_a_run_of_each_shared_command_and_the_games_own():
    from sheepsim.game import get

    assert [c for c, _ in cachefolders.warm_steps(get("pig"))] == [
        "play", "compare", "trace", "balance", "play"]
    race = cachefolders.warm_steps(get("race"))
    assert [c for c, _ in race][4:] == ["odds", "odds", "ev", "play", "play", "play"]
    # the harness games play a shipped plug-in too: their plug-in entry (none before)
    for game in ("pig", "awsheep", "panic"):
        plugged = [o for c, o in cachefolders.warm_steps(get(game)) if c == "play" and "policy" in o]
        assert plugged == [{"games": 16, "policy": cachefolders.WARM_PLUGIN}], game
    # the race's: its machine's plug-in entry (a plug-in pace and bet policy), and its
    # kernels for the line-ups whose machine holds the rules (ev bets, a lookahead pace)
    assert race[-1][1]["pace_policy"] == race[-1][1]["bet_policy"] == cachefolders.WARM_PLUGIN
    assert race[-3][1]["bet_policy"] == "ev" and race[-2][1]["pace_policy"] == "lookahead-exact"


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20])
def test_warm_slices_cover_every_step_once(n):
    """The test suite's warm-up runs each game's steps in ``n`` slices (``part``)."""
    from sheepsim.game import games

    for g in games():
        steps = cachefolders.warm_steps(g)
        sliced = [s for i in range(n) for s in cachefolders._slice(steps, i, n)]
        assert sliced == steps, (g.name, n)


def test_warm_compiles_a_game_once(tmp_path):
    """``sheepsim cache warm --game pig`` (the cheapest game, from examples/pig) fills the
    cache; a second one loads everything and writes no cache file; a first line-up with
    a plug-in then compiles the plug-in alone (its guard), not the game's plug-in entry
    (``harness_loop``'s ``play_games``: about 9 of 10 CPU s before the warm-up played one)."""
    import subprocess
    import sys

    pytest.importorskip("sheepsim_pig")
    env = {**os.environ, "SHEEPSIM_CACHE_DIR": str(tmp_path)}

    def warm():
        # a process each: the second warm-up and the play load what an earlier process
        # compiled into the disk cache (in this process they would find it in memory)
        done = subprocess.run([sys.executable, "-m", "sheepsim", "cache", "warm", "--game", "pig"],
                              env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert "warm: 5 runs of pig" in done.stdout and "5/5" in done.stderr  # the bar
        assert "pig play (plug-in entry)" in done.stderr
        return {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.nb*")}

    first = warm()
    assert any(p.suffix == ".nbi" for p in first)
    assert warm() == first  # nothing compiled, nothing written
    done = subprocess.run([sys.executable, "-m", "sheepsim", "pig", "play", "--players", "2",
                           "--games", "100", "--policy", "random,tests.harness.rungs:always_bank",
                           "--quiet"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    new = sorted(p.name for p in tmp_path.rglob("*.nbi") if p not in first)
    assert len(new) == 1 and new[0].startswith("policy_values._plugin_guard"), new


def test_sheepsims_own_variants_say_what_they_are(tmp_path):
    """The kernels sheepsim rebuilds for built-in policies alone (the race's single
    races per pace policy, a harness game's entries) are listed as
    built-in variants, named; a kernel rebuilt around a plug-in stays a plug-in's. Only
    the folders are made here (rebinding compiles nothing)."""
    import subprocess
    import sys

    code = (
        "from sheepsim.games.race import kernels, policies\n"
        "from sheepsim.harness import machine\n"
        "from sheepsim.warm_policy import any_option\n"
        "for pid in range(len(kernels.ONE_PACE) + 1): kernels.one_pace(pid)\n"
        "machine.load('sheepsim.games.awsheep.machine').kernel((), 9)\n"
        "kernels.kernels_for((any_option,), ())\n")
    env = {**os.environ, "SHEEPSIM_CACHE_DIR": str(tmp_path)}
    # a process: a fresh cache root and none of this process's kernels already rebuilt
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    entries = cachefolders.cache_entries(tmp_path)
    assert all(e.current for e in entries)
    kinds = [e.kind for e in entries if e.path.name.startswith("plugins-")]
    assert sorted(kinds) == ["built-in variant kernels"] * 6 + ["plug-in kernels"]
    out = "\n".join(cachefolders.cache_report(entries, tmp_path))
    assert "kernels/plugins-* built-in variants (6 folders)" in out
    assert "kernels/plugins-* plug-ins (1 folder)" in out
    assert ("\n    the race's single-race kernels, one per built-in pace policy: greedy, "
            "partisan, random, saver, steady\n") in out
    assert ("\n    a harness game's entries, by the line-ups they play (a folder per set of "
            "built-in policies):\n      sheepsim.games.awsheep.machine: built-ins\n") in out


def test_a_harness_games_entries_name_each_machine_once(tmp_path):
    """Shear Panic's machine has three kinds of entry (built-in line-ups, built-ins it
    plays itself, plug-ins), one folder per set of built-in policies: one line for the
    machine, each kind once with its count; a folder labelled by an earlier version is
    counted with today's."""
    rng = jit.module_digest("rng.py")
    panic = "sheepsim.games.panic.machine"
    labels = [f"a harness game's entries: {panic} (built-ins)",
              f"a harness game's entries: {panic} (built-ins)",
              f"a harness game's entries: {panic} (built-ins the machine plays itself)",
              f"a harness game's entries, one for built-in line-ups and one for plug-ins: "
              f"{panic} (plug-ins)",
              "a harness game's entries: sheepsim_pig.machine (plug-ins)",
              f"{SINGLE}: greedy"]
    for i, label in enumerate(labels):
        folder = tmp_path / "kernels" / f"plugins-{rng}-{i:016x}"
        folder.mkdir(parents=True)
        (folder / jit.VARIANT_MANIFEST).write_text("rng.py\n")
        (folder / jit.VARIANT_BUILTIN).write_text(f"{label}\n")
    out = cachefolders.cache_report(cachefolders.cache_entries(tmp_path), tmp_path)
    named = out[out.index("  kernels/plugins-* built-in variants (6 folders)  0.0 MB  "
                          "6 for this source, 0 old") + 1:]
    assert named[:4] == [
        "    a harness game's entries, by the line-ups they play (a folder per set of built-in "
        "policies):",
        f"      {panic}: built-ins (2 folders), built-ins the machine plays itself, plug-ins",
        "      sheepsim_pig.machine: plug-ins",
        f"    {SINGLE}: greedy"]
    assert sum(panic in line for line in out) == 1
