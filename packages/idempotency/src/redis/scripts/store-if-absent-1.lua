--[[
  Store the result of an unprotected run (run-mode duplicate, fail-open) only if no record exists at all, so an
  unprotected run never overwrites an owner's reservation or result.

  KEYS[1]  record key
  ARGV[1]  fingerprint
  ARGV[2]  encoded result
  ARGV[3]  TTL in ms
  ARGV[4]  record format version
  ARGV[5]  channel waiters listen on (sharded: the record key, so the same slot)

  Returns 1 if stored; 0 if a record exists.
]]
--- @include "includes/read-record"

-- Fencing token 0 and no owner: no owner was ever granted this record.
local record = writeRecord(ARGV[4], 'c', '0', '', '', ARGV[1], ARGV[2])
if not redis.call('SET', KEYS[1], record, 'PX', ARGV[3], 'NX') then
  return 0
end
redis.call('SPUBLISH', ARGV[5], 'c')
return 1
