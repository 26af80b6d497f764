"""The command line run in the test process, for tests of sheepsim and of games in their
own packages."""


def run(capsys, *argv):
    """``sheepsim ARGV...`` in this process: ``(exit code, stdout, stderr)``; argparse's
    own refusals (``SystemExit``) give their code too. ``capsys`` pytest's fixture: what
    it caught since it was last read comes with the output."""
    from sheepsim.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
