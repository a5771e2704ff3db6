-- wrk: one request per connection (Connection: close); wrk reconnects after each response.
wrk.headers["Connection"] = "close"

dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/report.lua")
