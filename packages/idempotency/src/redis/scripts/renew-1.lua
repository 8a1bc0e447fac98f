--[[
  Extend the caller's lease while its action runs. Running it twice (a resend) extends the same lease again.

  KEYS[1]  record key
  ARGV[1]  owner token
  ARGV[2]  lease in ms, from now
  ARGV[3]  record format version

  Returns 1 if renewed; 0 if the caller no longer owns the record (the action must stop: its lease is lost).
]]
--- @include "includes/read-record"
--- @include "includes/redis-clock"

local key = KEYS[1]
local owner, leaseMs, version = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local raw, state, fence, at, fpEnd = readOwnedRecord(key, owner, version)
if not raw or state ~= 'p' then
  return 0
end
-- A pending record carries no result: everything after its fingerprint is written back as it was.
redis.call('SET', key,
  writeRecord(version, 'p', fence, digits(redisNowMs() + leaseMs), owner, string.sub(raw, at, fpEnd),
    string.sub(raw, fpEnd + 1)), 'KEEPTTL')
-- The record must outlive the lease it grants, or it could expire under a live owner and lose its fencing counter.
if redis.call('PTTL', key) < leaseMs then
  redis.call('PEXPIRE', key, leaseMs)
end
return 1
