"""The command line as the test files at the top of ``tests/`` run it in-process."""

from sheepsim.cli import main


def run(capsys, *argv):
    """``sheepsim ARGV...`` in this process: ``(exit code, stdout, stderr)``; argparse's
    own refusals (``SystemExit``) give their code too."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
