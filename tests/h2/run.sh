#!/usr/bin/env bash
# tests/h2/run.sh - the whole HTTP/2 suite against one server it starts: h2spec (h2c and TLS,
# normal and strict), the Python client checks (client.py), and the real clients (smoke.sh:
# curl, nghttp, h2load, headless Chromium). See tests/h2/README.md.
#
#   tests/h2/run.sh --hello PATH/tachy-hello           tachy's demo server (the default target)
#   tests/h2/run.sh --ref h2o|nginx                    a reference server, with its known counts
#   tests/h2/run.sh --plain 'CMD {port}' [--tls-cmd 'CMD {port} {cert} {key}'] [options]
#   tests/h2/run.sh --both 'CMD {port} {tlsport} {cert} {key}' [options]
#
# {port}, {tlsport}, {cert}, {key} are replaced by free ports on 127.0.0.1 and a fresh
# self-signed certificate. Options (each has the default of the target chosen above):
#   --expect-h2spec A,B,C,D  least passes: h2c, h2c strict, TLS, TLS strict (default: all)
#   --client-fail N          most client.py failures allowed (default 0)
#   --smoke-fail N           most smoke.sh failures allowed (default 0)
#   --client-opts 'OPTS'     for client.py (and smoke.sh's --echo/--no-upgrade), e.g.
#                            '--echo= --big /big --no-upgrade --no-h1'
#   --only h2spec,client,smoke   run only these parts
# Prints each part's "N passed, M failed" and its time, then the parts' own
# "N passed, M failed"; exit 1 when a part is below its expectation.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
source "$HERE/lib.sh"
PLAIN= TLSCMD= BOTH= REF= EXPECT_H2SPEC= CLIENT_FAIL=0 SMOKE_FAIL=0 CLIENT_OPTS= ONLY=h2spec,client,smoke
set_ref() {
  REF=$1
  case "$1" in
    # h2o: the JDK's 200 concurrent GETs fail on both ports (h2o advertises 100 streams; lib.sh)
    h2o) EXPECT_H2SPEC=143,144,144,145; CLIENT_FAIL=6; SMOKE_FAIL=2; CLIENT_OPTS=$(h2_ref_client_opts h2o) ;;
    nginx) EXPECT_H2SPEC=118,119,118,119; CLIENT_FAIL=9; CLIENT_OPTS=$(h2_ref_client_opts nginx) ;;
    *) echo "run.sh: --ref h2o or nginx" >&2; exit 2 ;;
  esac
}
while [ $# -gt 0 ]; do
  case "$1" in
    --hello) PLAIN="$2 -p {port}"; TLSCMD="$2 -p {port} -c {cert} -k {key}"; CLIENT_OPTS="--echo /echo"; shift ;;
    --ref) set_ref "$2"; shift ;;
    --plain) PLAIN=$2; shift ;;
    --tls-cmd) TLSCMD=$2; shift ;;
    --both) BOTH=$2; shift ;;
    --expect-h2spec) EXPECT_H2SPEC=$2; shift ;;
    --client-fail) CLIENT_FAIL=$2; shift ;;
    --smoke-fail) SMOKE_FAIL=$2; shift ;;
    --client-opts) CLIENT_OPTS=$2; shift ;;
    --only) ONLY=$2; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$PLAIN$BOTH$REF" ] || { sed -n '2,24p' "$0"; exit 2; }

# the Python h2 package for client.py (pip, once); h2spec.sh builds h2spec itself when missing
(source "$ROOT/scripts/deps.sh" && tachy_h2_python) || echo "run.sh: no Python h2 package: client.py will fail"
W=$(mktemp -d /tmp/tachy-h2.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  [ "${KEEP:-0}" = 1 ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
h2_cert "$W" || { echo "run.sh: openssl could not make a certificate"; exit 1; }
CERT=$W/cert.pem KEY=$W/key.pem
PORT=$(h2_free_port) TLSPORT=$(h2_free_port)
if [ -n "$REF" ]; then
  command -v "$REF" >/dev/null || [ -x "/usr/sbin/$REF" ] ||
    { echo "run.sh: $REF is not installed (Debian package $REF)"; echo "0 passed, 1 failed"; exit 1; }
  PATH="$PATH:/usr/sbin"
  BOTH=$(h2_ref_conf "$REF" "$PORT" "$TLSPORT" "$CERT" "$KEY" "$W/$REF")
fi
fill() { local s=$1; s=${s//\{port\}/$2}; s=${s//\{tlsport\}/$TLSPORT}; s=${s//\{cert\}/$CERT}; echo "${s//\{key\}/$KEY}"; }
start() { # start LOGNAME CMD: runs it in the background, records its pid in SERVER_PID
  ( exec $2 ) >"$W/$1.log" 2>&1 &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
}
T_START=$SECONDS
if [ -n "$BOTH" ]; then
  start server "$(fill "$BOTH" "$PORT")"; MAIN_PID=$SERVER_PID
else
  start server "$(fill "$PLAIN" "$PORT")"; MAIN_PID=$SERVER_PID
  if [ -n "$TLSCMD" ]; then start server-tls "$(fill "$TLSCMD" "$TLSPORT")"; else TLSPORT=; fi
fi
for p in $PORT $TLSPORT; do
  if ! h2_wait_port "$p" 15; then
    echo "run.sh: the server did not listen on 127.0.0.1:$p within 15 s:"
    tail -5 "$W"/server*.log
    echo "0 passed, 1 failed"
    exit 1
  fi
done
echo "h2 suite: server ${REF:-${PLAIN:-$BOTH}} on h2c 127.0.0.1:$PORT${TLSPORT:+, TLS 127.0.0.1:$TLSPORT}"

parts_ok=0 parts_bad=0
part() { # part NAME OK SECONDS
  if [ "$2" = 1 ]; then parts_ok=$((parts_ok + 1)); v=ok; else parts_bad=$((parts_bad + 1)); v=FAILED; fi
  SUMMARY+=("$(printf '  %-8s %-6s %4d s  %s' "$1" "$v" "$3" "${4:-}")")
}
SUMMARY=()
IFS=, read -r E1 E2 E3 E4 <<<"${EXPECT_H2SPEC:-,,,}"
has() { [[ ",$ONLY," == *",$1,"* ]]; }

if has h2spec; then
  t=$SECONDS
  echo "== h2spec"
  ok=1
  H2SPEC_OUT="$W/h2spec" "$HERE/h2spec.sh" ${E1:+--expect $E1} ${E2:+--expect-strict $E2} "127.0.0.1:$PORT" |
    tee "$W/h2spec.out" || ok=0
  if [ -n "$TLSPORT" ]; then
    H2SPEC_OUT="$W/h2spec" "$HERE/h2spec.sh" --tls ${E3:+--expect $E3} ${E4:+--expect-strict $E4} "127.0.0.1:$TLSPORT" |
      tee -a "$W/h2spec.out" || ok=0
  fi
  part h2spec $ok $((SECONDS - t)) "$(grep -o '^h2spec [a-z2 ]*: [0-9]* passed, [0-9]* failed' "$W/h2spec.out" | sed 's/^h2spec //' | paste -sd';' | sed 's/;/; /g')"
fi

if has client; then
  t=$SECONDS
  echo "== client.py"
  # shellcheck disable=SC2086
  python3 "$HERE/client.py" --h2c "127.0.0.1:$PORT" ${TLSPORT:+--tls 127.0.0.1:$TLSPORT} \
    --pid "$MAIN_PID" $CLIENT_OPTS | tee "$W/client.out"
  line=$(tail -1 "$W/client.out")
  f=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed$/\1/p')
  ok=0; [ -n "$f" ] && [ "$f" -le "$CLIENT_FAIL" ] && ok=1
  part client $ok $((SECONDS - t)) "$line (at most $CLIENT_FAIL failures expected)"
fi

if has smoke; then
  t=$SECONDS
  echo "== smoke.sh (curl, nghttp, h2load, chromium)"
  sopts=()
  for o in $CLIENT_OPTS; do
    case "$o" in --no-upgrade|--echo=*) sopts+=("$o") ;; esac
  done
  [[ " $CLIENT_OPTS " == *" --echo /echo "* ]] && sopts+=(--echo /echo)
  "$HERE/smoke.sh" --h2c "127.0.0.1:$PORT" ${TLSPORT:+--tls 127.0.0.1:$TLSPORT} "${sopts[@]}" | tee "$W/smoke.out"
  line=$(tail -1 "$W/smoke.out")
  f=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed$/\1/p')
  ok=0; [ -n "$f" ] && [ "$f" -le "$SMOKE_FAIL" ] && ok=1
  part smoke $ok $((SECONDS - t)) "$line"
fi

if ! kill -0 "$MAIN_PID" 2>/dev/null; then
  part alive 0 0 "the server exited during the suite: $(tail -3 "$W/server.log" | tr '\n' ' ')"
fi
echo "== h2 suite summary (${REF:-${PLAIN:-$BOTH}}; $((SECONDS - T_START)) s)"
printf '%s\n' "${SUMMARY[@]}"
echo "$parts_ok passed, $parts_bad failed"
[ "$parts_bad" = 0 ]
