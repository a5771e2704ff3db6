-- wrk: shared done() hook, prints one machine-readable line with exact figures
-- (latency in microseconds, from wrk's own histogram). Included by every profile script.
function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "BENCHJSON {\"requests\":%d,\"duration_us\":%d,\"bytes\":%d," ..
      "\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,\"mean_us\":%.1f," ..
      "\"connect\":%d,\"read\":%d,\"write\":%d,\"timeout\":%d,\"status\":%d}\n",
      summary.requests, summary.duration, summary.bytes,
      latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency.max, latency.mean,
      e.connect, e.read, e.write, e.timeout, e.status))
end
