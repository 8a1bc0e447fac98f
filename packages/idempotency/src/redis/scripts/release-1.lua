--[[
  Give up the caller's reservation after its action failed, so a retry can run it; wake one waiter to take over.
  The record stays (state r, its remaining TTL) with its fencing counter, so the next owner's token is higher.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  channel waiters listen on
  ARGV[3]  record format version

  Returns 1 if released; 0 if the caller no longer owns the record (a newer owner's record is left untouched).
]]
--- @include "includes/read-record"

local key = KEYS[1]
local raw = redis.pcall('GET', key)
if not raw then
  return 0
end
local record = readRecord(raw, ARGV[3])
if not record or record.state ~= 'p' or record.owner ~= ARGV[1] then
  return 0
end
redis.call('SET', key, ARGV[3] .. '|r|' .. string.format('%.0f', record.fence) .. '|||0|', 'KEEPTTL')
redis.call('PUBLISH', ARGV[2], 'r')
return 1
