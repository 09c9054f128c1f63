#!/usr/bin/env bash
# One bounded, reproducible libFuzzer run: FUZZER over the seeds in SEEDS for
# RUNS inputs, starting from an empty scratch corpus in WORK (new inputs go
# there, and a crashing input to WORK/crash-*). Exits non-zero on any finding.
# Usage: run_bounded.sh FUZZER SEEDS WORK RUNS
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: run_bounded.sh FUZZER SEEDS WORK RUNS" >&2; exit 2; }
fuzzer=$1 seeds=$2 work=$3 runs=$4
rm -rf "$work"
mkdir -p "$work/corpus"
# An input takes microseconds; -timeout (seconds for one input) only has to
# catch a hang. 10 was hit once on a loaded machine by a unit blocked for
# 20 s in open() of its scratch file, not in backstep's code.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  exec "$fuzzer" -runs="$runs" -seed=1 -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus" "$seeds"
