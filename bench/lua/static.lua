-- wrk: GET the 1 MiB static file.
wrk.path = os.getenv("STATIC_PATH") or "/static/1m.bin"
dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/report.lua")
