--[[
  Extend the caller's lease while its action runs.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  lease in ms, from now

  Returns 1 if renewed; 0 if the caller no longer owns the record (the action must stop: its lease is lost).
]]
local key = KEYS[1]
local raw = redis.pcall('GET', key)
if type(raw) ~= 'string' then
  return 0
end
local v, state, fence, owner, rest = string.match(raw, '^(%d+)|(%a)|(%d+)|%d*|([^|]*)|(.*)$')
if state ~= 'p' or owner ~= ARGV[1] then
  return 0
end
local leaseMs = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('SET', key, v .. '|p|' .. fence .. '|' .. string.format('%.0f', now + leaseMs) .. '|' .. owner .. '|' .. rest, 'KEEPTTL')
-- The record must outlive the lease it grants, or it could expire under a live owner and lose its fencing counter.
if redis.call('PTTL', key) < leaseMs then
  redis.call('PEXPIRE', key, leaseMs)
end
return 1
