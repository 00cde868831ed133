-- Shared by the bench's wrk scripts: prints one JSON line (prefixed BENCH_JSON) with the
-- counts and the latency percentiles, which bench.ts parses into its table and chart.
local report = {}

function report.done(summary, latency, requests)
  local points = {}
  for _, p in ipairs({ 1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 95, 97.5, 99, 99.5, 99.9, 99.99, 100 }) do
    points[#points + 1] = string.format('[%s,%d]', p, latency:percentile(p))
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"latencyUs":{"mean":%f,"max":%d,"percentiles":[%s]}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency.max, table.concat(points, ',')))
end

return report
