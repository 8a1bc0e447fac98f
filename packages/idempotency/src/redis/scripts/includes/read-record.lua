--[[
  The one parser of a record, inlined into every script that reads one (`--- @include "includes/read-record"`).

  Record: one string, `<version>|<state>|<fencing token>|<lease deadline>|<owner>|<fingerprint bytes>|` followed by
  the fingerprint and then the stored result. State p pending, c completed, r released; the lease deadline is in
  ms on the Redis clock. A string rather than a hash: a result longer than 64 bytes would push a hash out of its
  compact encoding and double the memory per record.

  readRecord(raw, version) takes the reply of `redis.pcall('GET', key)` for a key that exists and returns either
  a table {state, fence, lease, owner, fingerprint, payload} (fence a number; lease a number or nil) or nil and
  the reason the record cannot be read. A script never treats an unreadable record as absent.
]]
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
  if state ~= 'p' and state ~= 'c' and state ~= 'r' then
    return nil, 'unknown record state ' .. state
  end
  length = tonumber(length)
  return {
    state = state,
    fence = tonumber(fence),
    lease = tonumber(lease),
    owner = owner,
    fingerprint = string.sub(raw, at, at + length - 1),
    payload = string.sub(raw, at + length),
  }
end
