#!/usr/bin/env bash
# tests/h2/h2spec.sh - h2spec 2.2.1 against a running server, normal and strict mode.
#
#   tests/h2/h2spec.sh [--tls] [--expect N] [--expect-strict M] [--h2spec PATH] HOST:PORT
#
# --tls: the port speaks TLS (h2spec -t -k: ALPN h2, the certificate not verified).
# --expect N: fail when fewer than N of the generic + HTTP/2 + HPACK cases pass (default: all
# of them); --expect-strict M: the same for strict mode (-S, which adds the cases where the
# RFC says SHOULD). Prints, per mode:
#   h2spec h2c: N passed, M failed (of T; expected >= E)     (h2c or tls, "strict" added)
# and the failed cases' names; the full reports go to $H2SPEC_OUT (default: a temp dir).
# Exit status 1 when a mode is below its expectation or h2spec could not run.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TLS=0 EXPECT= EXPECT_STRICT= H2SPEC=
while [ $# -gt 1 ]; do
  case "$1" in
    --tls) TLS=1 ;;
    --expect) EXPECT=$2; shift ;;
    --expect-strict) EXPECT_STRICT=$2; shift ;;
    --h2spec) H2SPEC=$2; shift ;;
    *) echo "h2spec.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ $# -eq 1 ] || { sed -n '2,14p' "$0"; exit 2; }
HOST=${1%:*} PORT=${1##*:}
if [ -z "$H2SPEC" ]; then
  # shellcheck source=../../scripts/deps.sh
  H2SPEC=$(source "$ROOT/scripts/deps.sh" && tachy_h2spec) || { echo "h2spec.sh: no h2spec"; exit 1; }
fi
OUTDIR=${H2SPEC_OUT:-$(mktemp -d)}
mkdir -p "$OUTDIR"
label=h2c
args=(-h "$HOST" -p "$PORT" -o 3)
if [ "$TLS" = 1 ]; then label=tls; args+=(-t -k); fi

rc=0
for mode in normal strict; do
  extra=() want=$EXPECT name="h2spec $label"
  if [ $mode = strict ]; then extra=(-S); want=$EXPECT_STRICT; name="h2spec $label strict"; fi
  log="$OUTDIR/h2spec-$label-$mode.txt"
  t0=$SECONDS
  timeout 300 "$H2SPEC" "${args[@]}" "${extra[@]}" >"$log" 2>&1
  # the last line: "145 tests, 143 passed, 0 skipped, 2 failed"
  line=$(grep -E '^[0-9]+ tests, [0-9]+ passed' "$log" | tail -1)
  if [ -z "$line" ]; then
    echo "$name: h2spec did not finish ($log): $(tail -3 "$log" | tr '\n' ' ')"
    rc=1
    continue
  fi
  total=$(echo "$line" | sed -E 's/^([0-9]+) tests.*/\1/')
  pass=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/')
  fail=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  [ -n "$want" ] || want=$total
  verdict=ok
  [ "$pass" -ge "$want" ] || { verdict="BELOW EXPECTATION"; rc=1; }
  echo "$name: $pass passed, $fail failed (of $total; expected >= $want; $((SECONDS - t0)) s) $verdict"
  # the failures' section: the case names (lines with ×)
  sed -n '/^Failures:/,$p' "$log" | grep '×' | sed 's/^ */    failed: /'
done
exit $rc
