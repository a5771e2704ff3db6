# bench/lib/servers.sh - sourced by bench/run.sh and bench/paced.sh: installs what is missing
# (apt_install, need_cmd) and gets the servers both measure ready: the JDK 25 and
# bench/servers/BenchServer.java, robaho/httpserver and Jetty's jetty-http-spi from Maven
# Central, the tachy provider jar built from this tree, and tachy-hello.
#
# Needs set before it is sourced: BENCH ROOT INSTALL (1 = may apt-get / mvn) JAR (a given
# provider jar, or empty) BUILD (a given tachy build dir, or empty); bench_start sets WORK, OUT
# (OUT/raw receives the logs), SKIP and say. Defines PYPID, bench_traps, apt_install and need_cmd; servers_setup leaves: JAVA_HOME25, JAVA_ARGS, TACHY_ARGS, BUILD, JAR
# and SKIP (--skip-note NAME=why for the servers that cannot run), for bench/lib/bench.py's
# options (bench/lib/paced.py takes the same).

# ---- stopping what we start -----------------------------------------------------------------
# PYPID: the Python driver (bench/lib/*.py) while it runs, which stops every server it
# started when it gets SIGTERM. bench_traps makes any exit of the script stop it.
PYPID=
bench_cleanup() {
  if [ -n "$PYPID" ] && kill -0 "$PYPID" 2>/dev/null; then
    kill -TERM "$PYPID" 2>/dev/null || true
    wait "$PYPID" 2>/dev/null || true
  fi
}
bench_traps() {
  trap bench_cleanup EXIT
  trap 'bench_cleanup; exit 130' INT TERM HUP
}

# bench_start NAME PREFIX: what every bench script sets up first - say (log lines "NAME: ..."),
# WORK (bench/build), STAMP, OUT (bench/results/runs/PREFIX<stamp>, with raw/: git ignores
# runs/, the scripts copy what is kept to bench/results/*latest*), an empty SKIP, and the
# traps. Needs BENCH.
BENCH_NAME=bench
say() { printf '%s %s: %s\n' "$(date -u +%H:%M:%S)" "$BENCH_NAME" "$*"; }
bench_start() {
  BENCH_NAME=$1
  WORK="$BENCH/build"
  mkdir -p "$WORK"
  STAMP="$(date -u +%Y%m%d-%H%M%S)"
  OUT="$BENCH/results/runs/$2$STAMP"
  mkdir -p "$OUT/raw"
  SKIP=()
  bench_traps
}

# ---- installing ---------------------------------------------------------------------------------
APT_UPDATED=0
apt_install() {
  [ "$INSTALL" = 1 ] || return 1
  [ "$(id -u)" = 0 ] || { say "not root: cannot apt-get install $*"; return 1; }
  if [ "$APT_UPDATED" = 0 ]; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
    APT_UPDATED=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >/dev/null
}
need_cmd() {  # need_cmd CMD DEBIAN_PACKAGE
  command -v "$1" >/dev/null 2>&1 || command -v "/usr/sbin/$1" >/dev/null 2>&1 || apt_install "$2" || true
  command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]
}
# servers_setup: the JDK and the Java servers' jars, then tachy-hello (sets the variables above)
servers_setup() {
  # ---- Java -----------------------------------------------------------------------------------
  JAVA_HOME25="${JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
  JAVA_ARGS=()
  if [ -x "$JAVA_HOME25/bin/javac" ]; then
    mkdir -p "$WORK/classes"
    "$JAVA_HOME25/bin/javac" --release 21 -d "$WORK/classes" "$BENCH/servers/BenchServer.java"
    JAVA_ARGS+=(--java-home "$JAVA_HOME25" --java-classes "$WORK/classes" --java-opts "${BENCH_JAVA_OPTS:--Xms256m -Xmx1g -Dsun.net.httpserver.maxIdleConnections=100000}")
    # robaho/httpserver from Maven Central (fetched at bench time, never committed)
    RV="${ROBAHO_VERSION:-1.0.29}"
    RJ="$HOME/.m2/repository/io/github/robaho/httpserver/$RV/httpserver-$RV.jar"
    if [ ! -f "$RJ" ] && [ "$INSTALL" = 1 ]; then
      command -v mvn >/dev/null || apt_install maven || true
      if command -v mvn >/dev/null; then
        say "mvn dependency:get io.github.robaho:httpserver:$RV"
        (cd "$WORK" && timeout 300 mvn -q -B dependency:get -Dartifact="io.github.robaho:httpserver:$RV" \
           >"$OUT/raw/mvn-robaho.log" 2>&1) || say "robaho $RV could not be fetched (raw/mvn-robaho.log)"
      fi
    fi
    if [ -f "$RJ" ]; then
      mkdir -p "$WORK/robaho"; cp "$RJ" "$WORK/robaho/"
      JAVA_ARGS+=(--robaho-jar "$WORK/robaho/httpserver-$RV.jar" --robaho-version "$RV")
    else
      SKIP+=(--skip-note "robaho-vt=io.github.robaho:httpserver:$RV not obtainable from Maven Central here")
    fi
    # Jetty's HttpServerProvider (org.eclipse.jetty:jetty-http-spi) with its dependencies, from
    # Maven Central into ~/.m2 and bench/build/jetty/lib (a one-dependency pom, copy-dependencies)
    JV="${JETTY_VERSION:-12.1.14}"
    JL="$WORK/jetty/lib"
    if [ ! -f "$JL/jetty-http-spi-$JV.jar" ] && [ "$INSTALL" = 1 ] && command -v mvn >/dev/null; then
      rm -rf "$WORK/jetty"; mkdir -p "$WORK/jetty"
      cat >"$WORK/jetty/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>bench</groupId><artifactId>jetty-peer</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies><dependency><groupId>org.eclipse.jetty</groupId><artifactId>jetty-http-spi</artifactId><version>$JV</version></dependency></dependencies>
</project>
POM
      say "mvn dependency:copy-dependencies org.eclipse.jetty:jetty-http-spi:$JV"
      (cd "$WORK/jetty" && timeout 300 mvn -q -B dependency:copy-dependencies -DoutputDirectory=lib \
         >"$OUT/raw/mvn-jetty.log" 2>&1) || say "jetty-http-spi $JV could not be fetched (raw/mvn-jetty.log)"
    fi
    if [ -f "$JL/jetty-http-spi-$JV.jar" ]; then
      JAVA_ARGS+=(--jetty-cp "$(ls "$JL"/*.jar | tr '\n' ':' | sed 's/:$//')" --jetty-version "$JV")
    else
      SKIP+=(--skip-note "jetty-none=org.eclipse.jetty:jetty-http-spi:$JV not obtainable here"
             --skip-note "jetty-vt=org.eclipse.jetty:jetty-http-spi:$JV not obtainable here")
    fi
    # the tachy provider jar: built from this tree into bench/build/jarsrc (java/ copied, the
    # native code compiled from the tree), so that it matches the tachy-hello measured;
    # --jar PATH uses a given jar; if the build fails, java/target's jar is used, with a note
    JAR_NOTE=
    if [ -z "$JAR" ] && [ -f "$ROOT/java/pom.xml" ] && [ -f "$ROOT/pom.xml" ] && command -v mvn >/dev/null; then
      JS="$WORK/jarsrc"
      rm -rf "$JS"; mkdir -p "$JS/java"
      cp "$ROOT/pom.xml" "$JS/"; cp -r "$ROOT/java/pom.xml" "$ROOT/java/src" "$JS/java/"
      say "building the tachy provider jar into ${JS#$ROOT/} (log: raw/build-jar.log)"
      if timeout 600 mvn -B -q -f "$JS/java/pom.xml" -DskipTests -Dtachy.root="$ROOT" \
           -Dtachy.native.build.dir="$WORK/jni" package >"$OUT/raw/build-jar.log" 2>&1; then
        JAR="$(ls "$JS"/java/target/tachy-httpserver-*.jar 2>/dev/null | grep -v -e sources -e javadoc -e tests | head -1 || true)"
      else
        say "provider jar build failed (raw/build-jar.log): trying java/target"
        JAR_NOTE="the jar build from this tree failed (raw/build-jar.log): measured java/target's jar"
      fi
    fi
    if [ -z "$JAR" ]; then
      JAR="$(ls "$ROOT"/java/target/tachy-httpserver-*.jar 2>/dev/null | grep -v -e sources -e javadoc -e tests | head -1 || true)"
    fi
    if [ -n "$JAR" ] && [ -f "$JAR" ]; then
      # a snapshot, so that a rebuild of java/target during the run does not pull the jar away
      mkdir -p "$WORK/jar"; rm -f "$WORK"/jar/*.jar
      cp -p "$JAR" "$WORK/jar/"
      JAVA_ARGS+=(--tachy-jar "$WORK/jar/$(basename "$JAR")" --tachy-jar-origin "${JAR#$ROOT/}")
      [ -n "$JAR_NOTE" ] && JAVA_ARGS+=(--tachy-jar-note "$JAR_NOTE")
    else
      SKIP+=(--skip-note "tachy-java-none=tachy provider jar not found (java/target/tachy-httpserver-*.jar)")
      SKIP+=(--skip-note "tachy-java-vt=tachy provider jar not found (java/target/tachy-httpserver-*.jar)")
    fi
  else
    say "no JDK 25 at $JAVA_HOME25: Java servers skipped"
    SKIP+=(--skip-note "jdk-vt=no JDK 25" --skip-note "jdk-none=no JDK 25")
  fi

  # ---- tachy C ---------------------------------------------------------------------------------
  TACHY_ARGS=()
  TACHY_NOTE=
  if [ -z "$BUILD" ] && [ -f "$ROOT/examples/hello.c" ]; then
    BUILD="$WORK/tachy"
    say "building tachy into $BUILD (log: raw/build-tachy.log)"
    if ! { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTACHY_BUILD_TESTS=OFF \
             -DTACHY_BUILD_JNI=OFF -DTACHY_WERROR=OFF \
           && cmake --build "$BUILD" -j2 --target tachy-hello \
           && { [ ! -f "$ROOT/examples/fileserver.c" ] || cmake --build "$BUILD" -j2 --target tachy-fileserver || true; }
         } >"$OUT/raw/build-tachy.log" 2>&1; then
      say "tachy build failed (raw/build-tachy.log)"
      if [ -x "$BUILD/examples/tachy-hello" ]; then
        TACHY_NOTE="the build of this tree failed (raw/build-tachy.log): measured the previous build of $(date -u -r "$BUILD/examples/tachy-hello" '+%H:%M UTC')"
      fi
    fi
  fi
  if [ -n "$BUILD" ] && [ -x "$BUILD/examples/tachy-hello" ]; then
    TACHY_ARGS+=(--tachy-hello "$BUILD/examples/tachy-hello")
    [ -n "$TACHY_NOTE" ] && TACHY_ARGS+=(--tachy-note "$TACHY_NOTE")
    if [ -x "$BUILD/examples/tachy-fileserver" ]; then
      TACHY_ARGS+=(--tachy-fileserver "$BUILD/examples/tachy-fileserver")
      [ -n "${TACHY_FILESERVER_ARGS:-}" ] && TACHY_ARGS+=(--tachy-fileserver-args "$TACHY_FILESERVER_ARGS")
    else
      SKIP+=(--skip-note "tachy-c-fs=tachy-fileserver not built: no 1 MiB static figure for tachy C")
    fi
  else
    SKIP+=(--skip-note "tachy-c=tachy-hello not available (examples/hello.c missing or build failed)")
  fi
  return 0 # (the last test above is false when no option is set: not a failure under set -e)
}
