--[[
  Claim an idempotency key, or report what is already there. One round trip decides.

  KEYS[1]  record key (the only key touched, so the script is Redis Cluster safe)
  ARGV[1]  owner token of this attempt
  ARGV[2]  request fingerprint
  ARGV[3]  lease in ms
  ARGV[4]  retention in ms for a record that is never completed (keeps the fencing counter alive)
  ARGV[5]  record format version this code reads and writes

  Record: one string, `<version>|<state>|<fencing token>|<lease deadline>|<owner>|<fingerprint bytes>|` followed by
  the fingerprint and then the stored result. State p pending, c completed, r released; the fencing token grows
  with every grant; the lease deadline is in ms on the Redis clock. A string rather than a hash: a result longer
  than 64 bytes would push a hash out of its compact encoding and double the memory per record.

  Returns
    {1, fencingToken}              acquired: the caller owns the key
    {2, payload, fencingToken}     completed with the same fingerprint: replay
    {3, retryAfterMs}              another owner holds a live lease
    {4, storedFingerprint, state}  the record has another fingerprint (state: 'pending' | 'completed')
    {5, reason}                    unreadable record: never treated as a miss
]]
local key = KEYS[1]
local owner, fingerprint, leaseMs, retainMs, version = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]

local raw = redis.pcall('GET', key)
if type(raw) == 'table' and raw.err then
  return {5, 'the key holds another type: ' .. raw.err}
end

-- Milliseconds on the Redis clock: the one clock every process shares. Only read where a lease is involved.
local function now()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local nextFence = 1
if raw then
  local v, state, fence, lease, _, length, at = string.match(raw, '^(%d+)|(%a)|(%d+)|(%d*)|([^|]*)|(%d+)|()')
  if not v then
    return {5, 'unreadable record header'}
  end
  if v ~= version then
    return {5, 'unknown record format version ' .. v}
  end
  local storedFingerprint = string.sub(raw, at, at + tonumber(length) - 1)
  if state == 'c' then
    if storedFingerprint ~= fingerprint then
      return {4, storedFingerprint, 'completed'}
    end
    return {2, string.sub(raw, at + tonumber(length)), tonumber(fence)}
  elseif state == 'p' then
    lease = tonumber(lease)
    if not lease then
      return {5, 'a pending record has no lease'}
    end
    local nowMs = now()
    if lease > nowMs then
      if storedFingerprint ~= fingerprint then
        return {4, storedFingerprint, 'pending'}
      end
      return {3, lease - nowMs}
    end
    -- The owner's lease ran out without renewal (crashed or stalled): take over. Its later writes fail the
    -- owner check, and the higher fencing token lets downstream systems reject it too.
  elseif state ~= 'r' then
    return {5, 'unknown record state ' .. state}
  end
  nextFence = tonumber(fence) + 1
end

redis.call('SET', key,
  version .. '|p|' .. nextFence .. '|' .. string.format('%.0f', now() + leaseMs) .. '|' .. owner .. '|' .. #fingerprint .. '|' .. fingerprint,
  'PX', retainMs)
return {1, nextFence}
