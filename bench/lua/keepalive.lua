-- wrk: plain keep-alive GET (wrk's default request); only adds the report hook.
dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/report.lua")
