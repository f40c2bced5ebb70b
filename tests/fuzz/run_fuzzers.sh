#!/usr/bin/env bash
# Runs every fuzz target of a libFuzzer build (tests/fuzz/README.md) for a
# bounded time on a copy of its seed corpus, and prints a record per target:
# executions, coverage (edges), corpus size, defects. Fails on the first
# crash, sanitizer report, hang past 60 s or memory past 2 GB; libFuzzer
# leaves the input that found it as crash-*/timeout-*/oom-* in OUT.
#   run_fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET=60] [OUT=/tmp/lsm-fuzz]
set -uo pipefail
build=$1 seconds=${2:-60} out=${3:-/tmp/lsm-fuzz}
source_dir=$(cd "$(dirname "$0")" && pwd)
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
printf '%-20s %12s %8s %8s %s\n' target executions edges corpus defects
for target in connection_string option_values centres_file class_raster execute_request; do
  work=$out/$target
  rm -rf "$work" && mkdir -p "$work/corpus"
  cp "$source_dir/corpus/$target/"* "$work/corpus/"
  (cd "$work" && "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 \
     -max_len=65536 -print_final_stats=1 corpus >log.txt 2>&1)
  rc=$?
  executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log.txt" | grep -o '[0-9]*$' | tail -1)
  edges=$(grep -oE 'cov: [0-9]+' "$work/log.txt" | tail -1 | grep -oE '[0-9]+')
  corpus=$(ls "$work/corpus" | wc -l)
  defects=$(ls "$work" | grep -cE '^(crash|timeout|oom|leak)-')
  printf '%-20s %12s %8s %8s %s\n' "$target" "${executions:-?}" "${edges:-?}" "$corpus" "$defects"
  if ((rc != 0 || defects != 0)); then
    status=1
    echo "fuzz_$target found a defect (exit $rc); its input and log are in $work:"
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$work/log.txt" | head -20
  fi
done
exit $status
