from sheepsim.cli import run

run()
