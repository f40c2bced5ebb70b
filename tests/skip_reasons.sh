#!/usr/bin/env bash
# Prints why tests were skipped, one line per reason with the number of tests
# it skipped, from a ctest log (Testing/Temporary/LastTest.log): GoogleTest's
# GTEST_SKIP() messages (the line after "...: Skipped") and the "SKIP: ..."
# line of a script test that exits 77. Prints nothing when none was skipped.
#   skip_reasons.sh LAST_TEST_LOG
log=$1
[ -f "$log" ] || exit 0
reasons=$(awk '/: Skipped$/ { if ((getline reason) > 0) print reason; next } /^SKIP/ { print }' "$log" |
  sed 's/^SKIP:* *//' | sort | uniq -c | sort -rn)
[ -n "$reasons" ] || exit 0
echo "Skipped tests, by reason:"
echo "$reasons"
