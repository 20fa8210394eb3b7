-- Sends the requests of a file written by `node bench/run.mjs --serve`, as they are (wrk 4).
--
--   wrk -t1 -c10 -d10s -s bench/outside/replay.lua <server url> -- <file.req> [<token file>]
--
-- The file: its mode, then raw HTTP/1.1 requests, each followed by a NUL byte. `cycle` (reads): the
-- requests are repeated in order for as long as wrk runs. `once` (writes: each carries its own
-- Idempotency-Key and the next punch or shift of its employee): each is sent once; a thread that
-- has sent its share stops. With several threads (-t), thread k sends requests k, k+n, k+2n...
-- A token file replaces the placeholder of the API's bearer token (tokens live 15 minutes; the
-- serving harness rewrites the token files every 10).

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
  for _, t in ipairs(threads) do t:set("thread_count", #threads) end
end

local requests, count, index, step, cycle = {}, 0, 1, 1, true

function init(args)
  local file = assert(io.open(args[1], "rb"), "cannot open " .. tostring(args[1]))
  local data = file:read("*a")
  file:close()
  if args[2] then
    local tokenFile = assert(io.open(args[2], "rb"), "cannot open " .. args[2])
    local token = tokenFile:read("*l")
    tokenFile:close()
    data = data:gsub("@@BEARER_TOKEN@@", token)
  end
  local first = data:find("\0", 1, true)
  cycle = data:sub(1, first - 1) == "cycle"
  local position = first + 1
  while true do
    local stop = data:find("\0", position, true)
    if not stop then break end
    count = count + 1
    requests[count] = data:sub(position, stop - 1)
    position = stop + 1
  end
  index = thread_number or 1
  step = thread_count or 1
end

-- wrk calls request() once on the first thread before the run, to check the request it returns, and
-- never sends that one: it gets a request that changes nothing, so that no real one is skipped.
local verified = false

function request()
  if not verified and (thread_number or 1) == 1 then
    verified = true
    return wrk.format("GET", "/healthz")
  end
  if index > count then
    if cycle then
      index = ((index - 1) % count) + 1
    else
      -- Nothing left to send once: stop, and send a request that changes nothing meanwhile.
      wrk.thread:stop()
      return wrk.format("GET", "/healthz")
    end
  end
  local r = requests[index]
  index = index + step
  return r
end
