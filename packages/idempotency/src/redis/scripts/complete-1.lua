--[[
  Turn the caller's reservation into the stored result, atomically, with the exact TTL; wake waiters.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  encoded result
  ARGV[3]  TTL of the result in ms (exact: PX, never rounded)
  ARGV[4]  channel waiters listen on
  ARGV[5]  record format version

  Returns 1 if stored; 0 if the caller no longer owns the record (a newer owner's record is left untouched).
]]
--- @include "includes/read-record"

local key = KEYS[1]
local raw = redis.pcall('GET', key)
if not raw then
  return 0
end
local record = readRecord(raw, ARGV[5])
if not record or record.state ~= 'p' or record.owner ~= ARGV[1] then
  return 0
end
redis.call('SET', key,
  ARGV[5] .. '|c|' .. string.format('%.0f', record.fence) .. '|||' .. #record.fingerprint .. '|' .. record.fingerprint .. ARGV[2],
  'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], 'c')
return 1
