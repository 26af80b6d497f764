"""Where outputs go: links, pipes and devices are written through (never replaced), a
folder no file can be created in is refused before any work, a write that fails at the
end loses nothing, and ``--out x.csv`` means CSV."""

import json
import os
import threading
from pathlib import Path

import pytest

from sheepsim import output
from sheepsim.cli import main
from sheepsim.errors import SheepsimError
from sheepsim.output import check_output_file, emit, output_format


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    emit("a,b\n1,2\n", str(link), {"seed": 1})
    assert link.is_symlink() and target.read_text() == "a,b\n1,2\n"
    assert json.loads((tmp_path / "link.csv.meta.json").read_text()) == {"seed": 1}


def test_a_fifo_is_written_directly_and_gets_no_sidecar(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(Path(fifo).read_text()))
    reader.start()
    check_output_file(str(fifo))
    emit("x,y\n", str(fifo), {"seed": 2})
    reader.join(timeout=10)
    assert got == ["x,y\n"] and Path(fifo).exists() and not Path(fifo).is_file()
    assert not (tmp_path / "pipe.meta.json").exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_a_folder_where_no_file_can_be_created_is_refused_before_work():
    # permission bits say yes here for root; creating a file is what tells
    with pytest.raises(SheepsimError, match="cannot create a file in /proc"):
        check_output_file("/proc/x.csv")


def test_a_write_that_fails_at_the_end_saves_the_result_elsewhere(tmp_path, monkeypatch):
    write = output.atomic_write_text

    def disk_full(path, text):
        if str(path).startswith(str(tmp_path)):
            raise OSError(28, "No space left on device")
        write(path, text)

    monkeypatch.setattr(output, "atomic_write_text", disk_full)
    with pytest.raises(SheepsimError) as info:
        emit("a,b\n1,2\n", str(tmp_path / "t.csv"), {"seed": 3})
    message = str(info.value)
    assert "No space left on device" in message and "\n" not in message
    monkeypatch.undo()
    rescue = Path(message.rsplit("saved in ", 1)[1])
    try:
        assert rescue.read_text() == "a,b\n1,2\n"
        assert json.loads(Path(f"{rescue}.meta.json").read_text()) == {"seed": 3}
    finally:
        rescue.unlink()
        Path(f"{rescue}.meta.json").unlink()
    assert not (tmp_path / "t.csv").exists()


def test_the_out_file_ending_picks_the_format_and_format_must_agree(tmp_path, capsys):
    assert output_format(None, "a.CSV") == "csv" and output_format(None, "a.json") == "json"
    assert output_format(None, "a.txt") == "table" and output_format(None, None) == "table"
    assert output_format("json", "a") == "json" and output_format("csv", "a.CSV") == "csv"
    # JSON in a .txt would mislead whoever opens it: refused, naming the file to write
    with pytest.raises(SheepsimError, match=r"--format json but --out a.txt ends in .txt: "
                                            r"name the file a.json"):
        output_format("json", "a.txt")
    out_txt = tmp_path / "x.txt"
    assert main(["race", "odds", "--format", "json", "--out", str(out_txt)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--format json but --out" in err and not out_txt.exists()
    with pytest.raises(SheepsimError, match=r"--format json but --out y.csv ends in .csv"):
        output_format("json", "y.csv")
    with pytest.raises(SheepsimError, match=r"--format table but --out a.csv"):
        output_format("table", "a.csv")
    out = tmp_path / "odds.csv"
    assert main(["race", "odds", "--mc", "--games", "2000", "--quiet", "--out", str(out)]) == 0
    assert out.read_text().startswith("lane,")


def test_the_sheepsim_command_finds_a_policy_module_in_the_current_folder(tmp_path):
    """The installed script does not put the current folder on sys.path as `python -m`
    does; `python -P -c` starts the same way (no folder prepended), so a module found
    here was found because the command added the current folder."""
    import subprocess
    import sys

    (tmp_path / "mypolicy_here.py").write_text("raise ValueError('imported from here')\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    # a process: the interpreter's start (-P, no folder on sys.path) and cli.run's own
    proc = subprocess.run([sys.executable, "-P", "-c", "from sheepsim.cli import run; run()",
                           "race", "trace", "--policy", "mypolicy_here:pace"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "raised ValueError on import: imported from here" in proc.stderr, proc.stderr


def test_an_out_path_that_cannot_be_a_file_is_one_line_naming_why(tmp_path, capsys):
    """Before any simulation: a parent that is a file is not a missing folder; a
    sidecar name taken by a folder would fail only after the work."""
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "y.csv.meta.json").mkdir()
    cases = {tmp_path / "a.json" / "x.csv": f"{tmp_path / 'a.json'} is a file, not a folder",
             tmp_path / "a.json" / "sub" / "x.csv": f"{tmp_path / 'a.json'} is a file, not a folder",
             tmp_path / "no" / "x.csv": f"folder {tmp_path / 'no'} does not exist",
             tmp_path / "y.csv": "its metadata file",
             tmp_path: "is a folder; give a file name"}
    for out, says in cases.items():
        before = sorted(tmp_path.rglob("*"))
        code = main(["race", "odds", "--mc", "--games", "2000", "--quiet", "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and says in err, (out, err)
        assert "Traceback" not in err and sorted(tmp_path.rglob("*")) == before


def test_an_out_ending_sheepsim_does_not_write_is_refused_naming_the_ones_it_does(tmp_path, capsys):
    out = tmp_path / "x.xlsx"
    assert main(["race", "odds", "--mc", "--games", "2000", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not write .xlsx files" in err
    assert "end the name in .csv, .json or .txt (the text table), or leave the ending out" in err
    assert not list(tmp_path.iterdir())
    with pytest.raises(SheepsimError, match=r"end the name in \.json or \.txt"):
        output_format(None, "t.xlsx", ("table", "json"))  # a trace writes no csv
    with pytest.raises(SheepsimError, match="does not write .xlsx"):
        output_format("table", "t.xlsx")
    assert output_format(None, "a.TXT") == "table" and output_format("csv", "a") == "csv"
