#!/usr/bin/env bash
# scripts/jdk-tests.sh OPENJDK_TEST_DIR [TEST...] - runs the com/sun/net/httpserver jtreg
# tests of an OpenJDK source checkout twice, in othervm mode: once with tachy as the
# provider (its jar appended to the test class path, -Dcom.sun.net.httpserver.
# HttpServerProvider=dev.tachy.httpserver.TachyServerProvider, and
# --enable-native-access=ALL-UNNAMED where the JDK knows the option), once with the JDK's
# built-in provider. Prints both jtreg summaries, then every test whose result differs.
#
#   OPENJDK_TEST_DIR  the checkout's test/jdk (the folder with TEST.ROOT), or the checkout
#                     itself (test/jdk is then used)
#   TEST...           tests or folders relative to it (default: com/sun/net/httpserver)
#
# Environment: JAVA_HOME (default: the java on PATH) is the JDK under test; TACHY_JAR the
# provider jar (default: java/target/tachy-httpserver-*.jar, built with Maven when
# missing); JTREG (default: jtreg, Debian's jtreg7, installed when missing and root);
# JTREG_OPTS extra jtreg options (e.g. -timeoutFactor:4); OUT the work folder
# (default: build/jdk-tests).
#
# Tests whose @requires the running JDK does not meet (e.g. a newer jdk.version.major) are
# not run: jtreg skips them and they are listed with the reason. Tests that fail to compile
# on both providers (usually API newer than the running JDK) are listed apart, not as
# differences. This repository ships no JDK test: point it at your own checkout.
#
# Exit status: 0 when both runs agree on every test, 1 when some result differs, 2 when the
# runner itself could not run.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

die() { echo "jdk-tests.sh: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: scripts/jdk-tests.sh OPENJDK_TEST_DIR [TEST...]"
TD=$(cd "$1" 2>/dev/null && pwd) || die "no such folder: $1"
shift
[ -f "$TD/TEST.ROOT" ] || { [ -f "$TD/test/jdk/TEST.ROOT" ] && TD=$TD/test/jdk; }
[ -f "$TD/TEST.ROOT" ] || die "$TD has no TEST.ROOT (give the checkout's test/jdk)"
TESTS=("$@")
[ ${#TESTS[@]} -gt 0 ] || TESTS=(com/sun/net/httpserver)

if [ -z "${JAVA_HOME:-}" ]; then
    JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")") ||
        die "no JDK: set JAVA_HOME"
fi
export JAVA_HOME
[ -x "$JAVA_HOME/bin/javac" ] || die "$JAVA_HOME is not a JDK (no bin/javac)"
FEATURE=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java.specification.version = //p')

JTREG=${JTREG:-jtreg}
if ! command -v "$JTREG" >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || die "jtreg not found (Debian: apt-get install jtreg7)"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends jtreg7 >/dev/null; } ||
        die "could not install jtreg7"
fi

JAR=${TACHY_JAR:-}
if [ -z "$JAR" ]; then
    JAR=$(ls java/target/tachy-httpserver-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1)
    if [ -z "$JAR" ]; then
        echo "jdk-tests.sh: building the provider jar (mvn -pl java package)" >&2
        mvn -B -q -ntp -pl java -am package -DskipTests >&2 || die "mvn package failed"
        JAR=$(ls java/target/tachy-httpserver-*.jar | grep -v -e sources -e javadoc | head -1)
    fi
fi
[ -f "$JAR" ] || die "no provider jar: $JAR"
JAR=$(readlink -f "$JAR")

OUT=${OUT:-$ROOT/build/jdk-tests}
rm -rf "$OUT/tachy" "$OUT/builtin"
mkdir -p "$OUT"

TACHY_OPTS=(-cpa:"$JAR" -javaoption:-Dcom.sun.net.httpserver.HttpServerProvider=dev.tachy.httpserver.TachyServerProvider)
if "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -version >/dev/null 2>&1; then
    TACHY_OPTS+=(-javaoption:--enable-native-access=ALL-UNNAMED)
fi

# run NAME [jtreg options...]: one jtreg run over TESTS into $OUT/NAME
run() {
    local name=$1
    shift
    echo "== $name provider: jtreg -othervm on JDK $FEATURE ($JAVA_HOME)"
    # jtreg's own JVM is the JDK under test too (-jdk:), so it needs no default-java.
    (cd "$TD" && "$JTREG" -jdk:"$JAVA_HOME" -othervm -v:fail,error -w "$OUT/$name/work" \
        -r "$OUT/$name/report" ${JTREG_OPTS:-} "$@" "${TESTS[@]}") >"$OUT/$name.log" 2>&1
    local rc=$?
    grep -E '^(Test results|Error|Report written)' "$OUT/$name.log" | sed 's/^/  /'
    # jtreg: 0 all passed, 1 failures, 2 errors, 3 nothing run (no test selected); worse
    # than that is the runner's own failure
    if [ $rc -gt 3 ] || [ ! -f "$OUT/$name/report/text/summary.txt" ]; then
        tail -20 "$OUT/$name.log" >&2
        die "jtreg failed (exit $rc) for the $name provider, log: $OUT/$name.log"
    fi
}
run tachy "${TACHY_OPTS[@]}"
run builtin

# results: "path  Passed. ..." per test in summary.txt, filtered tests in notRun.txt
status() { # FILE -> "test<TAB>status" lines
    sed -E 's/^([^ ]+) +(Passed|Failed|Error|Not run)\.(.*)$/\1\t\2\t\3/' "$1" | grep -P '\t' | sort
}
status "$OUT/tachy/report/text/summary.txt" >"$OUT/tachy.status"
status "$OUT/builtin/report/text/summary.txt" >"$OUT/builtin.status"

echo
echo "== skipped (the running JDK $FEATURE does not meet the test's @requires)"
skipped=0
for f in "$OUT/builtin/report/text/notRun.txt"; do
    [ -s "$f" ] || continue
    while IFS= read -r line; do
        t=${line%% *}
        req=$(grep -h '@requires' "$TD/$t" 2>/dev/null | sed 's/^[ *]*@requires *//' | paste -sd ';' -)
        echo "  $t: ${req:-requirements not met} (${line#* Not run. })"
        skipped=$((skipped + 1))
    done <"$f"
done
[ $skipped -eq 0 ] && echo "  none"

echo
echo "== not compiled with either provider (API newer than JDK $FEATURE?)"
join -t $'\t' "$OUT/tachy.status" "$OUT/builtin.status" |
    awk -F'\t' '$2=="Error" && $4=="Error" && $3 ~ /compilation failed/ && $5 ~ /compilation failed/ {print "  " $1; n++} END {if (!n) print "  none"}'

echo
echo "== results that differ (tachy | built-in)"
join -t $'\t' -a1 -a2 -e missing -o 0,1.2,2.2,1.3,2.3 "$OUT/tachy.status" "$OUT/builtin.status" |
    awk -F'\t' '$2 != $3 {printf "  %s: %s | %s\n    tachy:    %s\n    built-in: %s\n", $1, $2, $3, $4, $5}' \
    >"$OUT/differ.txt"
ndiff=$(grep -c '^  [^ ]' "$OUT/differ.txt")
if [ "$ndiff" -eq 0 ]; then echo "  none"; else cat "$OUT/differ.txt"; fi

echo
for name in tachy builtin; do
    printf '%-8s %s\n' "$name:" "$(grep -E '^Test results' "$OUT/$name.log" | tail -1)"
done
echo "$ndiff differ, $skipped skipped (reports: $OUT/tachy/report, $OUT/builtin/report)"
[ "$ndiff" -eq 0 ]
