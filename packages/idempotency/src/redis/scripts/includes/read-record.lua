--[[
  The one parser of a record, inlined into every script that reads one (`--- @include "includes/read-record"`).

  Record: one string, `<version>|<state>|<fencing token>|<lease deadline>|<owner>|<fingerprint bytes>|` followed by
  the fingerprint and then the stored result. States: p pending, c completed (the result follows), e completed
  without a stored result (the action's value could not be encoded), r released. The owner stays in c, e and r, so
  a script that ioredis resends after a reconnect can tell "already done by me" from "done by someone else". The
  lease deadline is in ms on the Redis clock. A string rather than a hash: a result longer than 64 bytes would
  push a hash out of its compact encoding and double the memory per record.

  readRecord(raw, version) takes the reply of `redis.pcall('GET', key)` for a key that exists and returns either
  state, fence, lease, owner, at, fpEnd (fence and lease as the record's digit strings, lease '' when there is
  none; the fingerprint is raw[at..fpEnd], the result raw[fpEnd + 1..]) or nil and the reason the record cannot
  be read. A script never treats an unreadable record as absent. Values rather than a table, and substrings only
  where a script needs them: each table and string a script makes costs Redis time on every call.
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
  local fpEnd = at + tonumber(length) - 1
  if fpEnd > #raw then
    return nil, 'the fingerprint runs past the end of the record'
  end
  return state, fence, lease, owner, at, fpEnd
end

-- The record at `key` while `owner` still holds it: raw, state, fence, at, fpEnd (as readRecord); nil when it is
-- gone, unreadable, or a newer owner's (the complete, release and renew scripts then leave it untouched and
-- return 0).
local function readOwnedRecord(key, owner, version)
  local raw = redis.pcall('GET', key)
  if not raw then
    return nil
  end
  local state, fence, _, recordOwner, at, fpEnd = readRecord(raw, version)
  if not state or recordOwner ~= owner then
    return nil
  end
  return raw, state, fence, at, fpEnd
end

-- Serialises a record. fence and lease are digit strings ('' for no lease): a script writes back the token it
-- read as it was, and formats a new one with digits().
local function writeRecord(version, state, fence, lease, owner, fingerprint, payload)
  return version .. '|' .. state .. '|' .. fence .. '|' .. lease .. '|' .. owner .. '|' .. #fingerprint .. '|' ..
    fingerprint .. payload
end

-- An integer as digits (Lua's tostring would print large ones as 1.8e+15).
local function digits(n)
  return string.format('%.0f', n)
end
