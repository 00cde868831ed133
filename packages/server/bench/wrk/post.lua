-- POST /v1/messages, one-to-one: each request a new message to one of 1000 recipients.
-- They are +1415556XXXX: never a sandbox number (+1NPA55501XX), which the sending number
-- may be (a send to itself is a 422).
-- Environment: BENCH_KEY (API key, empty for the reference), BENCH_FROM (the sending number).
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local report = require('report')

wrk.method = 'POST'
wrk.headers['Content-Type'] = 'application/json'
local key = os.getenv('BENCH_KEY') or ''
if key ~= '' then
  wrk.headers['Authorization'] = 'Bearer ' .. key
  -- Switchboard's answers only: the reference's wrk does no more work than it must.
  report.track_failures()
end
local from = os.getenv('BENCH_FROM') or '+15005550100'
local n = 0

function request()
  n = n + 1
  local body = string.format('{"from":"%s","to":"+1415556%04d","body":"Your code is %06d"}', from, n % 1000, n)
  return wrk.format(nil, '/v1/messages', nil, body)
end

setup = report.setup
done = report.done
