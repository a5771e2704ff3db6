# bench/lib/hello.sh - sourced by the bench scripts that run tachy-hello on their own
# (wscrowd.sh, wsrss.sh); needs ROOT (the checkout) and WORK (bench/build) set.
#
# tachy_hello_find LOG: leaves HELLO alone when it is set; otherwise sets it to the first
# built tachy-hello of build/rel, build/release (the README's builds) and bench/build/tachy,
# or builds one into bench/build/tachy (Release, output in LOG). Returns 1, HELLO empty,
# when there is none.
tachy_hello_find() {
    local log="$1" h
    if [ -z "${HELLO:-}" ]; then
        for h in "$ROOT/build/rel/examples/tachy-hello" "$ROOT/build/release/examples/tachy-hello" \
                 "$WORK/tachy/examples/tachy-hello"; do
            [ -x "$h" ] && HELLO="$h" && break
        done
    fi
    if [ -z "${HELLO:-}" ]; then
        echo "$(basename "$0"): building tachy-hello into bench/build/tachy (Release; log: $log)"
        cmake -S "$ROOT" -B "$WORK/tachy" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTACHY_BUILD_JNI=OFF \
            >"$log" 2>&1 && cmake --build "$WORK/tachy" -j2 --target tachy-hello \
            >>"$log" 2>&1 && HELLO="$WORK/tachy/examples/tachy-hello"
    fi
    [ -n "${HELLO:-}" ] && [ -x "$HELLO" ] || { HELLO=""; return 1; }
}
