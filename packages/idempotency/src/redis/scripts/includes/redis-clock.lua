--[[
  The Redis clock (`TIME`): the one clock every process shares. Microseconds since the epoch stay below 2^53
  until the year 2255, so they are exact in a Lua number.
]]
local function redisNowUs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

local function redisNowMs()
  return math.floor(redisNowUs() / 1000)
end
