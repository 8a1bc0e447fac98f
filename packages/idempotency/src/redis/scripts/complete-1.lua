--[[
  Turn the caller's reservation into the stored result, atomically, with the exact TTL; wake waiters.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  encoded result
  ARGV[3]  TTL of the result in ms (exact: PX, never rounded)
  ARGV[4]  channel waiters listen on

  Returns 1 if stored; 0 if the caller no longer owns the record (a newer owner's record is left untouched).
]]
local key = KEYS[1]
local raw = redis.pcall('GET', key)
if type(raw) ~= 'string' then
  return 0
end
local v, state, fence, owner, length, at = string.match(raw, '^(%d+)|(%a)|(%d+)|%d*|([^|]*)|(%d+)|()')
if state ~= 'p' or owner ~= ARGV[1] then
  return 0
end
local fingerprint = string.sub(raw, at, at + tonumber(length) - 1)
redis.call('SET', key, v .. '|c|' .. fence .. '|||' .. length .. '|' .. fingerprint .. ARGV[2], 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], 'c')
return 1
