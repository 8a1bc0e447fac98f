--[[
  Give up the caller's reservation after its action failed, so a retry can run it; wake one waiter to take over.
  The record stays (state r, its remaining TTL) with its fencing counter, so the next owner's token is higher.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  channel waiters listen on (sharded: the record key, so the same slot)
  ARGV[3]  record format version

  Returns 1 if released, or if this owner already released it (a resent release); 0 if the caller no longer owns
  the record (a newer owner's record is left untouched).
]]
--- @include "includes/read-record"

local key = KEYS[1]
local owner, version = ARGV[1], ARGV[3]
local raw, state, fence = readOwnedRecord(key, owner, version)
if not raw then
  return 0
end
if state == 'r' then
  return 1
end
if state ~= 'p' then
  return 0
end
redis.call('SET', key, writeRecord(version, 'r', fence, '', owner, '', ''), 'KEEPTTL')
redis.call('SPUBLISH', ARGV[2], 'r')
return 1
