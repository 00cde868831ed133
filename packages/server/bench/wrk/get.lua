-- GET /v1/messages/{id} over a random sample of stored ids (one per line in BENCH_IDS).
package.path = debug.getinfo(1, 'S').source:match('^@(.*/)') .. '?.lua;' .. package.path
local report = require('report')

wrk.headers['Authorization'] = 'Bearer ' .. (os.getenv('BENCH_KEY') or '')
local ids = {}
for line in io.lines(os.getenv('BENCH_IDS')) do ids[#ids + 1] = line end
local n = 0

function setup(thread)
  thread:set('seed', math.random(1, 1000000))
  report.setup(thread)
end
report.track_failures()

function init()
  math.randomseed(seed or 1)
end

function request()
  n = n + 1
  return wrk.format('GET', '/v1/messages/' .. ids[math.random(1, #ids)])
end

done = report.done
