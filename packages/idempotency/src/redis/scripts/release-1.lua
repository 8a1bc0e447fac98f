--[[
  Give up the caller's reservation after its action failed, so a retry can run it; wake one waiter to take over.
  The record stays (state r, its remaining TTL) with its fencing counter, so the next owner's token is higher.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  channel waiters listen on

  Returns 1 if released; 0 if the caller no longer owns the record (a newer owner's record is left untouched).
]]
local key = KEYS[1]
local raw = redis.pcall('GET', key)
if type(raw) ~= 'string' then
  return 0
end
local v, state, fence, owner = string.match(raw, '^(%d+)|(%a)|(%d+)|%d*|([^|]*)|')
if state ~= 'p' or owner ~= ARGV[1] then
  return 0
end
redis.call('SET', key, v .. '|r|' .. fence .. '|||0|', 'KEEPTTL')
redis.call('PUBLISH', ARGV[2], 'r')
return 1
