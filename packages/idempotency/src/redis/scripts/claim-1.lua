--[[
  Claim an idempotency key, or report what is already there. One round trip decides.

  KEYS[1]  record key (the only key touched, so the script is Redis Cluster safe)
  ARGV[1]  owner token of this attempt
  ARGV[2]  request fingerprint
  ARGV[3]  lease in ms
  ARGV[4]  retention in ms for a record that is never completed (keeps the fencing counter alive)
  ARGV[5]  record format version this code reads and writes

  Returns
    {1, fencingToken}              acquired: the caller owns the key
    {2, payload, fencingToken}     completed with the same fingerprint: replay
    {3, retryAfterMs}              another owner holds a live lease
    {4, storedFingerprint, state}  the record has another fingerprint (state: 'pending' | 'completed')
    {5, reason}                    unreadable record: never treated as a miss
]]
--- @include "includes/read-record"
--- @include "includes/redis-clock"

local key = KEYS[1]
local owner, fingerprint, leaseMs, retainMs, version = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]

local nextFence = 1
local raw = redis.pcall('GET', key)
if raw then
  local record, reason = readRecord(raw, version)
  if not record then
    return {5, reason}
  end
  if record.state == 'c' then
    if record.fingerprint ~= fingerprint then
      return {4, record.fingerprint, 'completed'}
    end
    return {2, record.payload, record.fence}
  elseif record.state == 'p' then
    if not record.lease then
      return {5, 'a pending record has no lease'}
    end
    local now = nowMs()
    if record.lease > now then
      if record.fingerprint ~= fingerprint then
        return {4, record.fingerprint, 'pending'}
      end
      return {3, record.lease - now}
    end
    -- The owner's lease ran out without renewal (crashed or stalled): take over. Its later writes fail the
    -- owner check, and the higher fencing token lets downstream systems reject it too.
  end
  nextFence = record.fence + 1
end

redis.call('SET', key,
  version .. '|p|' .. string.format('%.0f', nextFence) .. '|' .. string.format('%.0f', nowMs() + leaseMs) .. '|' .. owner .. '|' .. #fingerprint .. '|' .. fingerprint,
  'PX', retainMs)
return {1, nextFence}
