--[[
  Claim an idempotency key, or report what is already there. One round trip decides.

  KEYS[1]  record key (the only key touched, so the script is Redis Cluster safe)
  ARGV[1]  owner token of this attempt
  ARGV[2]  request fingerprint
  ARGV[3]  lease in ms
  ARGV[4]  retention in ms for a record that is never completed (keeps the fencing counter alive)
  ARGV[5]  record format version this code reads and writes
  ARGV[6]  owner token of an earlier claim of this client whose caller was told "unavailable", or ''; its
           reservation is not a real one and is taken over at once

  Returns
    {1, fencingToken}              acquired: the caller owns the key (again, if this very claim already ran)
    {2, payload, fencingToken}     completed with the same fingerprint: replay
    {3, retryAfterMs}              another owner holds a live lease
    {4, storedFingerprint, state}  the record has another fingerprint (state: 'pending' | 'completed')
    {5, reason}                    unreadable record: never treated as a miss
    {6, fencingToken}              completed with the same fingerprint, but its result could not be stored

  Fencing token of a grant: the stored token + 1 while the record exists; for a new record, the Redis time in µs.
  A record lives at least max(ttl, lease) >= 1 s after its last grant, and no key gets more than one grant per µs
  (each is a script run), so the first token after an expiry is larger than every token before it, unless the
  Redis clock stepped back by more than that retention.
]]
--- @include "includes/read-record"
--- @include "includes/redis-clock"

local key = KEYS[1]
local owner, fingerprint, leaseMs, retainMs, version, abandoned =
  ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6]

-- The clock is read only where a lease or a new record needs it: a replay does not pay for TIME.
local nextFence
local raw = redis.pcall('GET', key)
if raw then
  local state, fence, lease, recordOwner, at, fpEnd = readRecord(raw, version)
  if not state then
    return {5, fence}
  end
  if state == 'p' and recordOwner == owner then
    -- ioredis resent this very claim after a reconnect: answer as the first run did.
    return {1, tonumber(fence)}
  end
  if state == 'c' or state == 'e' then
    local storedFingerprint = string.sub(raw, at, fpEnd)
    if storedFingerprint ~= fingerprint then
      return {4, storedFingerprint, 'completed'}
    end
    if state == 'e' then
      return {6, tonumber(fence)}
    end
    return {2, string.sub(raw, fpEnd + 1), tonumber(fence)}
  end
  if state == 'p' and not (abandoned ~= '' and recordOwner == abandoned) then
    if lease == '' then
      return {5, 'a pending record has no lease'}
    end
    local nowMs = redisNowMs()
    if tonumber(lease) > nowMs then
      local storedFingerprint = string.sub(raw, at, fpEnd)
      if storedFingerprint ~= fingerprint then
        return {4, storedFingerprint, 'pending'}
      end
      return {3, tonumber(lease) - nowMs}
    end
    -- The owner's lease ran out without renewal (crashed or stalled): take over. Its later writes fail the
    -- owner check, and the higher fencing token lets downstream systems reject it too.
  end
  nextFence = tonumber(fence) + 1
  if nextFence > MAX_FENCE then
    return {5, 'fencing token out of range'}
  end
end

local nowUs = redisNowUs()
nextFence = nextFence or nowUs
redis.call('SET', key,
  writeRecord(version, 'p', digits(nextFence), digits(math.floor(nowUs / 1000) + leaseMs), owner, fingerprint, ''),
  'PX', retainMs)
return {1, nextFence}
