#!/usr/bin/env bash
# scripts/demo.sh [PORT] [DIR] - builds tachy (the C core, the JNI bridge and the provider
# jar) and starts the JDK's own file server, jwebserver, on tachy: the stock
# `java -m jdk.httpserver` with nothing but tachy's jar on the class path. It serves DIR
# (default: this repository) on http://127.0.0.1:PORT/ (default 8000) and says it runs on
# tachy. jwebserver needs Java 18+; with only Java 17 the demo starts the Java twin of
# tachy-hello on tachy instead. Ctrl-C stops it.
#
#   TACHY_DEMO=c scripts/demo.sh    starts the C demo server tachy-hello instead
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
PORT=${1:-8000}
DIR=$(cd "${2:-.}" && pwd)

if [ "${TACHY_DEMO:-java}" = c ]; then
    tachy_deps c
    cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACHY_BUILD_JNI=OFF >/dev/null
    cmake --build build/release -j 2 --target tachy-hello
    echo "tachy-hello (the C demo): try  curl http://127.0.0.1:$PORT/"
    exec build/release/examples/tachy-hello -p "$PORT" -b 127.0.0.1
fi

tachy_deps java
JAVA17=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JAVA17/bin/java" ] && export JAVA_HOME=${JAVA_HOME:-$JAVA17}
# The host's library only (-Dtachy.cross.skip): the demo runs here, and the cross builds for
# the other platforms (scripts/cross.sh, minutes of Zig) add nothing to it.
mvn -B -q -ntp -pl java,examples/java -am package -DskipTests -Dtachy.cross.skip=true
JAR=$(ls java/target/tachy-httpserver-*.jar | grep -v -e sources -e javadoc | head -1)
# The provider jar itself, not its -sources or -javadoc companion (which would leave the
# JDK's own server answering, silently).
grep -aq 'dev/tachy/httpserver/TachyServerProvider.class' "$JAR" ||
    { echo "demo.sh: $JAR is not the tachy provider jar" >&2; exit 1; }

# Any Java 18+ on the machine runs the real jwebserver.
JAVA18=""
for j in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -x "$j/bin/java" ] || continue
    v=$("$j/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/.*java.specification.version = //p')
    if [ -n "$v" ] && [ "${v%%.*}" -ge 18 ] 2>/dev/null; then JAVA18=$j/bin/java; break; fi
done
if [ -n "$JAVA18" ]; then
    echo "jwebserver ($JAVA18) on tachy: try  curl http://127.0.0.1:$PORT/"
    exec "$JAVA18" --enable-native-access=ALL-UNNAMED -Dtachy.verbose=true -cp "$JAR" \
        -m jdk.httpserver -b 127.0.0.1 -p "$PORT" -d "$DIR"
fi
echo "no Java 18+ for jwebserver: starting the Java Hello demo on tachy (JDK 17)"
echo "try  curl http://127.0.0.1:$PORT/"
exec "${JAVA_HOME:-/usr}/bin/java" -Dtachy.verbose=true \
    -cp "$JAR:$(ls examples/java/target/*.jar | head -1)" dev.tachy.examples.Hello -p "$PORT" -b 127.0.0.1
