-- Shared by the bench's wrk scripts: prints one JSON line (prefixed BENCH_JSON) with the
-- counts and the latency percentiles, which bench.ts parses into its table and chart.
local report = {}
local threads = {}

function report.setup(thread)
  threads[#threads + 1] = thread
end

-- Tallies answers outside 2xx/3xx by status, with the body of the first one, so a run
-- with errors says which. Only where a script asks for it (see report.track_failures):
-- a response callback makes wrk build every answer's headers and body in Lua.
function report.response(status, headers, body)
  if status < 400 then return end
  failed = failed or {}
  failed[status] = (failed[status] or 0) + 1
  if not first_failure then first_failure = string.sub(body or '', 1, 300) end
end

function report.track_failures()
  response = report.response
end

local function escape(text)
  return (string.gsub(text, '[%c"\\]', function(c) return string.format('\\u%04x', string.byte(c)) end))
end

function report.done(summary, latency, requests)
  local points = {}
  for _, p in ipairs({ 1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 95, 97.5, 99, 99.5, 99.9, 99.99, 100 }) do
    points[#points + 1] = string.format('[%s,%d]', p, latency:percentile(p))
  end
  local statuses, first = {}, ''
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get('failed') or {}) do
      statuses[#statuses + 1] = string.format('"%d":%d', status, n)
    end
    if first == '' then first = thread:get('first_failure') or '' end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"statuses":{%s},"firstFailure":"%s","latencyUs":{"mean":%f,"max":%d,"percentiles":[%s]}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout, table.concat(statuses, ','), escape(first),
    latency.mean, latency.max, table.concat(points, ',')))
end

return report
