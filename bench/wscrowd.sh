#!/usr/bin/env bash
# bench/wscrowd.sh - the WebSocket crowd benchmark (issue 13, bench/README.md "WebSocket crowds").
#
# /ts profile: CLIENTS clients ramped over RAMP seconds, each reading MESSAGES time stamps from
# a server's /ts (the wall clock in decimal microseconds, every 500 ms per connection, from
# 500 ms after the upgrade) and then closing; |client clock - server stamp| in a histogram
# (bench/wsload.c ts: the kernel's receive time stamp, the user-space one beside it).
# Broadcast profile (beside bench/tickfloor.c): TICK_CLIENTS clients on tachy-hello's /tick,
# one synchronised broadcast every 500 ms (bench/wsload.c tick), and the same clients on
# tickfloor, the least one core can do with one send() per client.
#
#   bench/wscrowd.sh [--servers tachy-c,robaho,jetty,tachy-java] [--clients N|max]
#                    [--messages 120] [--ramp 30] [--tick 10000,max | --no-tick]
#                    [--hello PATH/tachy-hello] [--out DIR]
#
# Servers (each on core 0, the client on core 1, 127.0.0.1 only, one at a time):
#   tachy-c     examples/hello.c (tachy-hello) /ts: parked WebSockets, server timers
#   robaho      bench/servers/WsRobahoTs.java: io.github.robaho:httpserver's WebSocket,
#               virtual threads (ROBAHO_VERSION, default 1.0.29)
#   jetty       bench/servers/WsJettyTs.java: Jetty 12's WebSocket server
#               (org.eclipse.jetty.websocket:jetty-websocket-jetty-server, JETTY_VERSION,
#               default 12.1.14)
#   tachy-java  the tachy Java API's /ts: the command in TACHY_JAVA_CMD below (PORT is
#               replaced by the port); left out, with the reason, when its pieces are missing
#               or its /ts does not answer
# Both JVM peers send from one ScheduledExecutorService (no thread per socket for the
# timers); they run on JDK 25 ($JAVA25_HOME) with $WSCROWD_JAVA_OPTS.
#
# Descriptors: every client costs the server one descriptor and the client one. The script
# raises `ulimit -n` to the hard limit (and says so, or says it cannot), probes each server's
# own descriptors, and runs at the largest count every limit allows: min(CLIENTS, server
# limit - its own descriptors - 32, client limit - 16, local port range - 1000). When that is
# below CLIENTS it prints which limit it hit. The ramp keeps the requested arrival rate
# (RAMP x count / CLIENTS). Splitting the client over processes would not help: the server
# needs one descriptor per client whatever the client does.
#
# Output: bench/results/runs/wscrowd-<UTC>/table.md (one row per server and profile: clients,
# errors, p50/p90/p99/p99.9/max, server CPU, peak RSS, peak threads) and raw/ (every wsload
# output, server log and 0.5 s sample); git ignores runs/. Every wait is bounded; a run takes
# about (probe 10 s + RAMP + MESSAGES/2 + 10 s) per server plus ~70 s per broadcast row.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"

# ---- adjustable at merge time ----------------------------------------------------------
JAVA25="${JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JOPTS="${WSCROWD_JAVA_OPTS:--Xms256m -Xmx1g}"
# The tachy Java API's /ts server (the Java demo, examples/java's Hello, on the provider jar).
# PORT is replaced by the port. Needs `mvn -B -ntp -q install -DskipTests` first (the jar and
# examples/java/target/classes).
TACHY_JAVA_CMD_SET="${TACHY_JAVA_CMD:+1}"   # given in the environment: used as is
TACHY_JAR="${TACHY_JAR:-$(ls "$ROOT"/java/target/tachy-httpserver-*[0-9T].jar 2>/dev/null | head -1)}"
TACHY_JAVA_CMD="${TACHY_JAVA_CMD:-$JAVA25/bin/java $JOPTS --enable-native-access=ALL-UNNAMED -cp $TACHY_JAR:$ROOT/examples/java/target/classes dev.tachy.examples.Hello -p PORT}"
ROBAHO_VERSION="${ROBAHO_VERSION:-1.0.29}"
JETTY_VERSION="${JETTY_VERSION:-12.1.14}"
# -------------------------------------------------------------------------------------------

ARGS="$*"
SERVERS="tachy-c,robaho,jetty,tachy-java" CLIENTS=25000 WANT_MAX=0 MESSAGES=120 RAMP=30
TICKS="10000,max" HELLO="" OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
    --servers) SERVERS="$2"; shift 2 ;;
    --clients) if [ "$2" = max ]; then WANT_MAX=1; else CLIENTS="$2"; fi; shift 2 ;;
    --messages) MESSAGES="$2"; shift 2 ;;
    --ramp) RAMP="$2"; shift 2 ;;
    --tick) TICKS="$2"; shift 2 ;;
    --no-tick) TICKS=""; shift ;;
    --hello) HELLO="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "wscrowd.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
    esac
done
STAMP="$(date -u +%Y%m%d-%H%M%S)"
OUT="${OUT:-$HERE/results/runs/wscrowd-$STAMP}"
RAW="$OUT/raw"
WORK="$HERE/build"
mkdir -p "$RAW" "$WORK"
say() { echo "wscrowd.sh: $*"; echo "$*" >>"$RAW/notes.txt"; }
NOTES="$RAW/table-notes.txt"; : >"$NOTES"
note() { say "$*"; echo "$*" >>"$NOTES"; }   # also goes into table.md

# ---- build the clients, tachy-hello and the JVM peers -----------------------------------
cc -O2 -Wall -Wextra -o "$WORK/wsload" "$HERE/wsload.c" || exit 1
cc -O2 -Wall -Wextra -o "$WORK/tickfloor" "$HERE/tickfloor.c" || exit 1
. "$HERE/lib/hello.sh"
tachy_hello_find "$RAW/build.log" || true # without one, tachy-c is left out with the reason

JW="$WORK/wscrowd"
RJ="$HOME/.m2/repository/io/github/robaho/httpserver/$ROBAHO_VERSION/httpserver-$ROBAHO_VERSION.jar"
JL="$JW/jetty-$JETTY_VERSION/lib"
if [ -x "$JAVA25/bin/javac" ] && command -v mvn >/dev/null; then
    mkdir -p "$JW"
    if [ ! -f "$RJ" ]; then
        say "fetching io.github.robaho:httpserver:$ROBAHO_VERSION (Maven)"
        (cd "$JW" && timeout 300 mvn -q -B dependency:get \
            -Dartifact="io.github.robaho:httpserver:$ROBAHO_VERSION" >"$RAW/mvn-robaho.log" 2>&1)
    fi
    if [ ! -f "$JL/jetty-websocket-jetty-server-$JETTY_VERSION.jar" ]; then
        say "fetching org.eclipse.jetty.websocket:jetty-websocket-jetty-server:$JETTY_VERSION (Maven)"
        mkdir -p "$JW/jetty-$JETTY_VERSION"
        cat >"$JW/jetty-$JETTY_VERSION/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>bench</groupId><artifactId>jetty-ws-peer</artifactId><version>1</version><packaging>pom</packaging>
<dependencies><dependency><groupId>org.eclipse.jetty.websocket</groupId><artifactId>jetty-websocket-jetty-server</artifactId><version>$JETTY_VERSION</version></dependency></dependencies>
</project>
POM
        (cd "$JW/jetty-$JETTY_VERSION" && timeout 300 mvn -q -B dependency:copy-dependencies \
            -DoutputDirectory=lib >"$RAW/mvn-jetty.log" 2>&1)
    fi
fi
JETTY_CP=""
[ -f "$JL/jetty-websocket-jetty-server-$JETTY_VERSION.jar" ] && JETTY_CP="$(ls "$JL"/*.jar | tr '\n' ':')"
CLS="$JW/classes"
if [ -f "$RJ" ]; then
    mkdir -p "$CLS/robaho"
    "$JAVA25/bin/javac" --release 21 -d "$CLS/robaho" -cp "$RJ" "$HERE/servers/WsRobahoTs.java" \
        >"$RAW/javac-robaho.log" 2>&1 || rm -f "$CLS/robaho/WsRobahoTs.class"
fi
if [ -n "$JETTY_CP" ]; then
    mkdir -p "$CLS/jetty"
    "$JAVA25/bin/javac" --release 21 -d "$CLS/jetty" -cp "$JETTY_CP" "$HERE/servers/WsJettyTs.java" \
        >"$RAW/javac-jetty.log" 2>&1 || rm -f "$CLS/jetty/WsJettyTs.class"
fi

# server name -> CMD (PORT to be replaced), or CMD empty and the reason in WHY
server_cmd() {
    WHY="" CMD=""
    case "$1" in
    tachy-c) [ -n "$HELLO" ] && CMD="$HELLO -p PORT" || WHY="tachy-hello not built" ;;
    tachy-c-tick) [ -n "$HELLO" ] && CMD="$HELLO -p PORT -t 500" || WHY="tachy-hello not built" ;;
    tick-floor) CMD="$WORK/tickfloor -p PORT -m send -q" ;;
    robaho)
        if [ -f "$CLS/robaho/WsRobahoTs.class" ]; then
            CMD="$JAVA25/bin/java $JOPTS -Dcom.sun.net.httpserver.HttpServerProvider=robaho.net.httpserver.DefaultHttpServerProvider -cp $RJ:$CLS/robaho WsRobahoTs PORT"
        else WHY="io.github.robaho:httpserver:$ROBAHO_VERSION or JDK 25 not available (raw/mvn-robaho.log)"; fi ;;
    jetty)
        if [ -f "$CLS/jetty/WsJettyTs.class" ]; then
            CMD="$JAVA25/bin/java $JOPTS -cp ${JETTY_CP}$CLS/jetty WsJettyTs PORT"
        else WHY="jetty-websocket-jetty-server $JETTY_VERSION or JDK 25 not available (raw/mvn-jetty.log)"; fi ;;
    tachy-java)
        if [ -n "${TACHY_JAVA_CMD_SET:-}" ] || { [ -n "$TACHY_JAR" ] && [ -d "$ROOT/examples/java/target/classes" ]; }; then
            CMD="$TACHY_JAVA_CMD"
        else WHY="the tachy provider jar / examples/java classes are not built (mvn install); TACHY_JAVA_CMD overrides"; fi ;;
    esac
}

# ---- descriptors -------------------------------------------------------------------------
HARD=$(ulimit -Hn)
if [ "$(ulimit -n)" != "$HARD" ]; then
    if ulimit -n "$HARD" 2>/dev/null; then say "raised ulimit -n to $(ulimit -n) (the hard limit)"
    else say "cannot raise ulimit -n above $(ulimit -n) (hard $HARD)"; fi
fi
if [ "$HARD" != unlimited ] && [ "$HARD" -lt $((CLIENTS + 1000)) ]; then
    if ulimit -Hn $((CLIENTS + 1000)) 2>/dev/null; then
        ulimit -n $((CLIENTS + 1000)); HARD=$(ulimit -Hn); say "raised the hard ulimit -n to $HARD"
    else
        say "cannot raise the hard ulimit -n $HARD to $((CLIENTS + 1000)): $(ulimit -Hn $((CLIENTS + 1000)) 2>&1 | sed 's/.*: //') (raising it needs CAP_SYS_RESOURCE)"
    fi
fi
LIMIT=$(ulimit -n)
read -r PLO PHI </proc/sys/net/ipv4/ip_local_port_range
PORTS=$((PHI - PLO + 1))

PIN_S="" PIN_C=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    PIN_S="taskset -c 0" PIN_C="taskset -c 1"
else
    note "taskset or a second CPU missing: not pinned"
fi
PORT_BASE="${WSCROWD_PORT:-18777}"
SPID=""
stop_server() {
    if [ -n "$SPID" ] && kill -0 "$SPID" 2>/dev/null; then
        kill -TERM "$SPID" 2>/dev/null
        for _ in $(seq 1 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$SPID" 2>/dev/null
    fi
    [ -n "$SPID" ] && wait "$SPID" 2>/dev/null
    SPID=""
}
trap 'stop_server' EXIT
trap 'stop_server; exit 130' INT TERM

# start_server NAME PORT LOG: starts it pinned, waits (<= 30 s) for "listening"; 0 when up
start_server() {
    server_cmd "$1"
    [ -n "$CMD" ] || return 1
    local cmd="${CMD//PORT/$2}"
    echo "$cmd" >"$3.cmd"
    # shellcheck disable=SC2086
    $PIN_S $cmd >"$3" 2>&1 &
    SPID=$!
    for _ in $(seq 1 300); do
        grep -q "^listening" "$3" 2>/dev/null && return 0
        kill -0 "$SPID" 2>/dev/null || break
        sleep 0.1
    done
    WHY="did not print 'listening' within 30 s (raw/$(basename "$3"))"
    stop_server
    return 1
}
fds_of() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
nofile_of() { awk '/^Max open files/{print $4}' "/proc/$1/limits"; }

IFS=, read -r -a SV <<<"$SERVERS"

# ---- probe: does /ts answer, and how many descriptors does each server hold itself ------
declare -A CAP OWN SKIP
P=$PORT_BASE
for s in "${SV[@]}"; do
    P=$((P + 1))
    if ! start_server "$s" "$P" "$RAW/$s-probe.log"; then
        SKIP[$s]="${WHY:-not available}"; note "$s left out: ${SKIP[$s]}"; continue
    fi
    if ! timeout 20 $PIN_C "$WORK/wsload" ts -p "$P" -c 4 -m 2 -r 0 -d 8 >"$RAW/$s-probe.txt" 2>&1; then
        SKIP[$s]="its /ts did not send 2 time stamps to 4 clients (raw/$s-probe.txt)"
        note "$s left out: ${SKIP[$s]}"; stop_server; continue
    fi
    OWN[$s]=$(fds_of "$SPID")
    CAP[$s]=$(( $(nofile_of "$SPID") - OWN[$s] - 32 ))
    say "$s: /ts answers; holds ${OWN[$s]} descriptors of its own, limit $(nofile_of "$SPID"): room for ${CAP[$s]} clients"
    stop_server
done

N=$CLIENTS WHYN=""
[ "$WANT_MAX" = 1 ] && N=1000000000
for s in "${!CAP[@]}"; do
    if [ "${CAP[$s]}" -lt "$N" ]; then
        N=${CAP[$s]}; WHYN="the server's descriptor limit: $s holds ${OWN[$s]} descriptors of its own under RLIMIT_NOFILE $LIMIT (hard $HARD), one more per client, 32 kept spare"
    fi
done
if [ $((LIMIT - 16)) -lt "$N" ]; then N=$((LIMIT - 16)); WHYN="the client's descriptor limit ($LIMIT)"; fi
if [ $((PORTS - 1000)) -lt "$N" ]; then N=$((PORTS - 1000)); WHYN="the local port range $PLO-$PHI (one port per client, 1,000 left to others)"; fi
RAMP_N=$(awk -v r="$RAMP" -v n="$N" -v c="$CLIENTS" 'BEGIN{printf "%.1f", (n < c ? r * n / c : r)}')
if [ "$N" -lt "$CLIENTS" ]; then
    note "$CLIENTS clients cannot be reached here: $WHYN. Running $N clients (the largest count the limits allow), ramped over $RAMP_N s (the arrival rate of $CLIENTS over $RAMP s). A client split over several processes would not help: the server needs one descriptor per client."
fi

TCK=$(getconf CLK_TCK)
ticks_of() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
LOAD0="$(cut -d' ' -f1-3 /proc/loadavg)"
PSI0="$(head -1 /proc/pressure/cpu 2>/dev/null)"

# measure NAME PROFILE CLIENTS: runs one row; writes raw/NAME-PROFILE.{txt,log,samples}, ROW json
ROWS="$RAW/rows.jsonl"; : >"$ROWS"
measure() {
    local s="$1" prof="$2" n="$3" run="$1" port; P=$((P + 1)); port=$P
    [ "$prof" = tick ] && [ "$s" = tachy-c ] && run=tachy-c-tick
    local base="$RAW/$s-$prof-$n"
    if ! start_server "$run" "$port" "$base.log"; then
        note "$s $prof $n: not run: ${WHY:-not available}"; return
    fi
    local own; own=$(fds_of "$SPID")
    local load=()
    if [ "$prof" = ts ]; then
        load=("$WORK/wsload" ts -p "$port" -c "$n" -m "$MESSAGES" -r "$RAMP_N")
        local limit; limit=$(awk -v r="$RAMP_N" -v m="$MESSAGES" 'BEGIN{printf "%d", r + m / 2 + 30}')
    else
        load=("$WORK/wsload" tick -p "$port" -c "$n" -d 10 -w 60)
        local limit=80
    fi
    local c0; c0=$(ticks_of "$SPID"); local c1="" up=0 t0; t0=$(date +%s.%N)
    $PIN_C "${load[@]}" >"$base.txt" 2>"$base.err" &
    local lpid=$! peak_rss=0 peak_thr=0 peak_fd=0 i=0 cl=0
    while kill -0 "$lpid" 2>/dev/null && [ $i -lt $(( (limit + 20) * 2 )) ]; do
        local rss thr fd
        rss=$(awk '/^VmRSS/{print $2}' "/proc/$SPID/status" 2>/dev/null)
        thr=$(awk '/^Threads/{print $2}' "/proc/$SPID/status" 2>/dev/null)
        [ "${rss:-0}" -gt "$peak_rss" ] && peak_rss=$rss
        [ "${thr:-0}" -gt "$peak_thr" ] && peak_thr=$thr
        if [ $((i % 4)) = 0 ]; then fd=$(fds_of "$SPID"); [ "$fd" -gt "$peak_fd" ] && peak_fd=$fd; fi
        local c; c=$(ticks_of "$lpid"); [ "${c:-0}" -gt 0 ] && cl=$c   # the client's own CPU
        echo "$(date +%s.%N) rss_kib=$rss threads=$thr fds=${fd:-} ticks=$(ticks_of "$SPID") client_ticks=$cl" >>"$base.samples"
        if [ "$prof" = tick ]; then   # CPU over the measurement only (after the upgrades)
            [ "$up" = 1 ] || { grep -q "connections upgraded" "$base.txt" && c0=$(ticks_of "$SPID") && up=1; }
            [ -z "$c1" ] && grep -q "measurement done" "$base.txt" && c1=$(ticks_of "$SPID")
        fi
        i=$((i + 1)); sleep 0.5
    done
    kill "$lpid" 2>/dev/null; wait "$lpid"; local rc=$?
    [ -z "$c1" ] && c1=$(ticks_of "$SPID")
    local secs; secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')
    local alive=1; kill -0 "$SPID" 2>/dev/null || alive=0
    stop_server
    local fan=""
    [ "$prof" = tick ] && fan=$(grep -ho '"ns_per_send_median":[0-9.]*' "$base.log" | tail -1 | cut -d: -f2)
    local j; j=$(grep -h '^WSJSON' "$base.txt" | tail -1 | sed 's/^WSJSON //')
    [ -n "$j" ] || j='{}'
    echo "{\"server\":\"$s\",\"profile\":\"$prof\",\"clients\":$n,\"rc\":$rc,\"seconds\":$secs,\"server_alive\":$alive,\"own_fds\":$own,\"peak_fds\":$peak_fd,\"cpu_s\":$(awk -v a="$c0" -v b="$c1" -v t="$TCK" 'BEGIN{printf "%.2f", (b - a) / t}'),\"peak_rss_kib\":$peak_rss,\"peak_threads\":$peak_thr,\"fanout_ns\":\"$fan\",\"client_cpu_s\":$(awk -v a="$cl" -v t="$TCK" 'BEGIN{printf "%.2f", a / t}'),\"psi\":\"$(head -1 /proc/pressure/cpu 2>/dev/null | awk '{print $3}')\",\"load\":$j}" >>"$ROWS"
    say "$s $prof $n: $(grep -h '^wsload' "$base.txt" | head -2 | tr '\n' ' ')"
}

# ---- the runs ------------------------------------------------------------------------------
for s in "${SV[@]}"; do
    [ -n "${SKIP[$s]:-}" ] && continue
    measure "$s" ts "$N"
done
if [ -n "$TICKS" ]; then
    IFS=, read -r -a TK <<<"$TICKS"
    for t in "${TK[@]}"; do
        [ "$t" = max ] && t=$N
        [ "$t" -gt "$N" ] && t=$N
        for s in tachy-c tick-floor; do measure "$s" tick "$t"; done
    done
fi
LOAD1="$(cut -d' ' -f1-3 /proc/loadavg)"
PSI1="$(head -1 /proc/pressure/cpu 2>/dev/null)"

# ---- table -----------------------------------------------------------------------------------
TACHY_REV="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
python3 - "$ROWS" "$OUT/table.md" "$NOTES" <<PY
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
notes = [l.rstrip() for l in open(sys.argv[3]) if l.strip()]
def us(v):
    if v is None or v == "" or v < 0: return "–"
    v = float(v)
    return f"{v:.0f} µs" if v < 1000 else (f"{v/1000:.1f} ms" if v < 1e6 else f"{v/1e6:.2f} s")
o = []
o.append("#### WebSocket crowds — $STAMP UTC (bench/wscrowd.sh)\n")
o.append("tachy \`$TACHY_REV\` · command: \`bench/wscrowd.sh $ARGS\` · server on core 0, client (bench/wsload.c) on core 1 · "
         "RLIMIT_NOFILE $LIMIT (hard $HARD) · local ports $PLO-$PHI · load average at start $LOAD0, at end $LOAD1 · "
         "CPU pressure at start \`$PSI0\`, at end \`$PSI1\`\n")
o.append("**/ts**: each client reads $MESSAGES time stamps (one per 500 ms per connection); clients ramped over $RAMP_N s. "
         "Latency = |kernel receive time stamp − server stamp| (user-space p99 beside it); errors = clients that did not "
         "get all their messages (refused, lost, or still short at the deadline) + bad payloads; upgrade = connect() to the 101. "
         "**tick**: a synchronised broadcast every 500 ms to every client (10 s measured after all have upgraded); latency = "
         "kernel receive time stamp − the tick's scheduled time; \`tick-floor\` is bench/tickfloor.c (one send() per client, "
         "one thread), not a server. Server CPU = utime + stime of the whole process over the load (tick: over the 10 s "
         "measured; client CPU: wsload's, whole run); peak RSS / threads / descriptors sampled every 0.5 s (JVM threads are OS threads: virtual threads "
         "are not counted).\n")
o.append("| server | profile | clients | done | errors | p50 | p90 | p99 | p99.9 | max | user p99 | upgrade max | server CPU | client CPU | CPU µs/msg | peak RSS | peak threads | peak fds | fan-out/client |")
o.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    L = r.get("load") or {}
    msgs = L.get("messages") or 0
    if r["profile"] == "ts":
        done = L.get("done", "–"); err = L.get("errors", "–")
    else:
        done = f'{L.get("alive","–")} alive'; err = (r["clients"] - L.get("upgraded", 0)) + (r["clients"] - L.get("alive", 0)) + L.get("bad", 0) if L else "–"
    cpu = r["cpu_s"]
    fan = f'{float(r["fanout_ns"])/1000:.2f} µs' if r["fanout_ns"] else "–"
    o.append(f'| \`{r["server"]}\` | {r["profile"]} | {r["clients"]:,} | {done} | {err} | {us(L.get("p50_us"))} | {us(L.get("p90_us"))} | '
             f'{us(L.get("p99_us"))} | {us(L.get("p999_us"))} | {us(L.get("max_us"))} | {us(L.get("user_p99_us"))} | '
             f'{us(L.get("upgrade_max_us")) if r["profile"] == "ts" else "–"} | {cpu:.1f} s | {r.get("client_cpu_s", 0):.1f} s | '
             f'{(cpu * 1e6 / msgs) if msgs else 0:.1f} | {r["peak_rss_kib"]/1024:.0f} MiB | {r["peak_threads"]} | {r["peak_fds"]} | {fan} |'
             + ("" if r["server_alive"] else " (server died)"))
if notes:
    o.append("")
    for n in notes: o.append(f"- {n}")
o.append("")
o.append("Raw outputs: \`raw/\` beside this file (local, not committed): wsload outputs, server logs and commands, 0.5 s samples.")
open(sys.argv[2], "w").write("\n".join(o) + "\n")
print("\n".join(o))
PY
