-- wrk: POST /echo with a 64 KiB body on every request.
wrk.method = "POST"
wrk.path = "/echo"
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.body = string.rep("0123456789abcdef", 4096)

dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/report.lua")
