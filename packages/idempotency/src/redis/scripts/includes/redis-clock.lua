--[[
  Milliseconds on the Redis clock: the one clock every process shares. Only read where a lease is involved.
]]
local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
