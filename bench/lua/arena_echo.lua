-- wrk: POST /echo with a 100 KB body on every request (HttpArena's 8gbit shape).
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.body = string.rep("0123456789", 10240)

dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/report.lua")
