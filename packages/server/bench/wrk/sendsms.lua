-- GET Kannel's /cgi-bin/sendsms: each request a new text to one of 1000 recipients, as
-- post.lua sends through Switchboard. Environment: BENCH_FROM (the sending number).
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local report = require('report')

local from = os.getenv('BENCH_FROM') or '15550100'
local n = 0

function request()
  n = n + 1
  local path = string.format(
    '/cgi-bin/sendsms?username=bench&password=bench&dlr-mask=3&from=%s&to=1415556%04d&text=Your+code+is+%06d',
    from, n % 1000, n)
  return wrk.format('GET', path)
end

setup = report.setup
done = report.done
