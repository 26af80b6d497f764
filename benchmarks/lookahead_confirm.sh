#!/usr/bin/env bash
# The confirmatory run of the fast `lookahead` against `lookahead-exact` (issue 46; its
# plan: benchmarks/README.md, "A confirmatory run, planned before it started"): seed
# 4646, games 0-9,999 in 20 chunks of 500, each chunk's per-game outcomes kept in
# DIR/c_<first game>.npz (default benchmarks/data/lookahead_confirm). A chunk is written
# under a temporary name and renamed when complete, so a file there is a whole chunk;
# chunks already there are skipped, so the run goes on where the last one stopped.
# The summary is read once, when all 20 are there (the plan's one look):
#   python benchmarks/lookahead_fast.py h2h --summarize $(ls DIR/c_*.npz | sort -t_ -k2 -n)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-benchmarks/data/lookahead_confirm}
PY=${PYTHON:-python}
mkdir -p "$DIR"
for i in $(seq 0 19); do
    F=$((i * 500))
    [ -e "$DIR/c_$F.npz" ] && continue
    # the script prints the chunk's summary: kept out of sight (the plan looks once)
    "$PY" benchmarks/lookahead_fast.py h2h --seed 4646 --threads 2 --block 25 --first "$F" \
        --games 500 --out "$DIR/part_$F.npz" > /dev/null
    mv "$DIR/part_$F.npz" "$DIR/c_$F.npz"
done
echo "all 20 chunks in $DIR"
