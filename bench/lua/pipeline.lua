-- wrk: send DEPTH GET / requests back to back in one write (HTTP/1.1 pipelining).
-- wrk counts every response; its latency figures are per batch of DEPTH.
local depth = tonumber(os.getenv("PIPELINE_DEPTH") or "16")
local path = os.getenv("PIPELINE_PATH") or "/"
init = function(args)
   local r = {}
   for i = 1, depth do
      r[i] = wrk.format("GET", path)
   end
   req = table.concat(r)
end
request = function()
   return req
end

dofile((os.getenv("BENCH_LUA_DIR") or "bench/lua") .. "/report.lua")
