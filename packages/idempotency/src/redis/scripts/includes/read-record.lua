--[[
  The one parser of a record, inlined into every script that reads one (`--- @include "includes/read-record"`).

  Record: one string, `<version>|<state>|<fencing token>|<lease deadline>|<owner>|<fingerprint bytes>|` followed by
  the fingerprint and then the stored result. States: p pending, c completed (the result follows), e completed
  without a stored result (the action's value could not be encoded), r released. The owner stays in c, e and r, so
  a script that ioredis resends after a reconnect can tell "already done by me" from "done by someone else". The
  lease deadline is in ms on the Redis clock. A string rather than a hash: a result longer than 64 bytes would
  push a hash out of its compact encoding and double the memory per record.

  readRecord(raw, version) takes the reply of `redis.pcall('GET', key)` for a key that exists and returns either
  a table {state, fence, lease, owner, fingerprint, payload} (fence a number; lease a number or nil) or nil and
  the reason the record cannot be read. A script never treats an unreadable record as absent.
]]
-- Fencing tokens stay integers a client reads exactly (JavaScript's Number.MAX_SAFE_INTEGER): a larger one would
-- lose digits in a Lua number and be written back as `1e+20`.
local MAX_FENCE = 9007199254740991

local function readRecord(raw, version)
  if type(raw) == 'table' and raw.err then
    return nil, 'the key holds another type: ' .. raw.err
  end
  local v, state, fence, lease, owner, length, at = string.match(raw, '^(%d+)|(%a)|(%d+)|(%d*)|([^|]*)|(%d+)|()')
  if not v then
    return nil, 'unreadable record header'
  end
  if v ~= version then
    return nil, 'unknown record format version ' .. v
  end
  if state ~= 'p' and state ~= 'c' and state ~= 'e' and state ~= 'r' then
    return nil, 'unknown record state ' .. state
  end
  if #fence > 16 or tonumber(fence) > MAX_FENCE then
    return nil, 'fencing token out of range'
  end
  length = tonumber(length)
  if at + length - 1 > #raw then
    return nil, 'the fingerprint runs past the end of the record'
  end
  return {
    state = state,
    fence = tonumber(fence),
    lease = tonumber(lease),
    owner = owner,
    fingerprint = string.sub(raw, at, at + length - 1),
    payload = string.sub(raw, at + length),
  }
end

-- The record at `key` while `owner` still holds it; nil when it is gone, unreadable, or a newer owner's (the
-- complete, release and renew scripts then leave it untouched and return 0).
local function readOwnedRecord(key, owner, version)
  local raw = redis.pcall('GET', key)
  if not raw then
    return nil
  end
  local record = readRecord(raw, version)
  if not record or record.owner ~= owner then
    return nil
  end
  return record
end

-- Serialises a record; numbers as integers (Lua's tostring would print large ones as 1.8e+15).
local function writeRecord(version, state, fence, lease, owner, fingerprint, payload)
  return version .. '|' .. state .. '|' .. string.format('%.0f', fence) .. '|' ..
    (lease and string.format('%.0f', lease) or '') .. '|' .. owner .. '|' .. #fingerprint .. '|' .. fingerprint .. payload
end
