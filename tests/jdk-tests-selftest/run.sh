#!/usr/bin/env bash
# tests/jdk-tests-selftest/run.sh - proves scripts/jdk-tests.sh on the three jtreg tests in
# this folder (laid out like an OpenJDK checkout's test/jdk):
#   SelftestEcho             passes with both providers (and really runs on tachy)
#   SelftestBuiltinProvider  passes only on the built-in provider: the "differ" list has it
#   SelftestNewerJdk         @requires jdk.version.major >= 99: skipped, with the reason
# Same environment as jdk-tests.sh (JAVA_HOME, TACHY_JAR, OUT). Prints "N passed, M failed".
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export OUT=${OUT:-$ROOT/build/jdk-tests-selftest}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$ROOT/scripts/jdk-tests.sh" "$HERE" >"$log" 2>&1
rc=$?
cat "$log"
echo
passed=0
failed=0
check() { # DESCRIPTION COMMAND...
    if "${@:2}"; then echo "PASS $1"; passed=$((passed + 1)); else echo "FAIL $1"; failed=$((failed + 1)); fi
}
has() { grep -qE "$1" "$log"; }
check "the runner exits 1 (results differ)" test "$rc" -eq 1
check "tachy run: 1 passed, 1 failed, 1 not run" has '^tachy: +Test results: passed: 1; failed: 1; did not meet platform requirements: 1$'
check "built-in run: 2 passed, 1 not run" has '^builtin: +Test results: passed: 2; did not meet platform requirements: 1$'
check "SelftestBuiltinProvider listed as differing" has '^  com/sun/net/httpserver/SelftestBuiltinProvider.java: Failed \| Passed$'
check "SelftestEcho not listed as differing" bash -c "! grep -q 'SelftestEcho.java:' '$log'"
check "SelftestNewerJdk skipped with its @requires" has '^  com/sun/net/httpserver/SelftestNewerJdk.java: jdk.version.major >= 99 '
check "SelftestEcho ran on tachy's server" grep -q 'provider: dev.tachy.httpserver.TachyHttpServer' \
    "$OUT/tachy/work/com/sun/net/httpserver/SelftestEcho.jtr"
check "SelftestEcho ran on the built-in server" grep -q 'provider: sun.net.httpserver.HttpServerImpl' \
    "$OUT/builtin/work/com/sun/net/httpserver/SelftestEcho.jtr"
check "1 differ, 1 skipped" has '^1 differ, 1 skipped '
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
