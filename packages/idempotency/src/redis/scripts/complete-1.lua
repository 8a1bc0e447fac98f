--[[
  Turn the caller's reservation into the stored result, atomically, with the exact TTL; wake waiters.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  encoded result ('' when ARGV[6] is 'e')
  ARGV[3]  TTL of the result in ms (exact: PX, never rounded)
  ARGV[4]  channel waiters listen on (sharded: the record key, so the same slot)
  ARGV[5]  record format version
  ARGV[6]  state to write: 'c' with the result, 'e' when the result could not be encoded

  Returns 1 if stored, or if this owner already stored it (a resent complete); 0 if the caller no longer owns the
  record (a newer owner's record is left untouched).
]]
--- @include "includes/read-record"

local key = KEYS[1]
local owner, state, version = ARGV[1], ARGV[6], ARGV[5]
local raw, recordState, fence, at, fpEnd = readOwnedRecord(key, owner, version)
if not raw then
  return 0
end
if recordState == state then
  return 1
end
if recordState ~= 'p' then
  return 0
end
redis.call('SET', key, writeRecord(version, state, fence, '', owner, string.sub(raw, at, fpEnd), ARGV[2]), 'PX', ARGV[3])
redis.call('SPUBLISH', ARGV[4], 'c')
return 1
