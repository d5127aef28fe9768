package redisstore

import "github.com/redis/go-redis/v9"

// The admin scripts compare range values and floors as decimal text (longer is
// larger, then byte order), so that values up to math.MaxInt64 never pass through
// Lua's doubles; they answer every number as text.
const decimalPrelude = `
local function above(a, b)
  if #a ~= #b then return #a > #b end
  return a > b
end
`

// raiseScript: KEYS[1] the range hash; ARGV[1] the next value asked for, as text.
// It answers {"created", next}, or {"kept" or "raised", before, after, sealed "1"
// or ""}: the key's next value is never lowered and its seal is kept.
var raiseScript = redis.NewScript(decimalPrelude + `
local v = redis.call('HMGET', KEYS[1], 'next', 'sealed')
if not v[1] and not v[2] then
  redis.call('HSET', KEYS[1], 'next', ARGV[1])
  return {'created', ARGV[1]}
end
local before, sealed = v[1] or '0', ''
if v[2] then sealed = '1' end
if above(ARGV[1], before) then
  redis.call('HSET', KEYS[1], 'next', ARGV[1])
  return {'raised', before, ARGV[1], sealed}
end
return {'kept', before, before, sealed}
`)

// readSlotsScript: KEYS meta, slots; ARGV[1] the test clock's offset. It answers
// {limit, tolerance ms, now, {field, value, …}} with every field of the slots hash,
// read at one instant of the store clock, or {} when the namespace does not exist.
var readSlotsScript = redis.NewScript(leasePrelude + `
local m = redis.call('HMGET', KEYS[1], 'limit', 'tolerance')
if not m[1] then return {} end
return {m[1], m[2], int(now), redis.call('HGETALL', KEYS[2])}
`)

// raiseFloorScript: KEYS meta, slots; ARGV limit ("0": the namespace must exist),
// tolerance ms, slot, floor ms as text. It creates the namespace when asked to,
// and raises the slot's nextFloor when the slot has no owner, as the acquire script
// reads it (storekit.SlotRow.NextFloor). It answers {"ok", owner, incarnation, last,
// fence, expires, floor, ceiling, nextFloor}, {"missing"}, {"conflict", limit,
// tolerance}, {"outside", limit} or {"held", owner}.
var raiseFloorScript = redis.NewScript(decimalPrelude + `
local m = redis.call('HMGET', KEYS[1], 'limit', 'tolerance')
if not m[1] then
  if ARGV[1] == '0' then return {'missing'} end
  redis.call('HSET', KEYS[1], 'limit', ARGV[1], 'tolerance', ARGV[2])
  m = {ARGV[1], ARGV[2]}
elseif ARGV[1] ~= '0' and (m[1] ~= ARGV[1] or m[2] ~= ARGV[2]) then
  return {'conflict', m[1], m[2]}
end
local s = ARGV[3]
if tonumber(s) >= tonumber(m[1]) then return {'outside', m[1]} end
local f = {'owner', 'incarnation', 'last', 'fence', 'expires', 'floor', 'ceiling', 'nextFloor'}
local names = {}
for i, n in ipairs(f) do names[i] = s..'.'..n end
local v = redis.call('HMGET', KEYS[2], unpack(names))
if v[1] and v[1] ~= '' then return {'held', v[1]} end
if above(ARGV[4], v[8] or '0') then
  redis.call('HSET', KEYS[2], names[8], ARGV[4])
  v[8] = ARGV[4]
end
local out = {'ok'}
for i = 1, 8 do out[i + 1] = v[i] or '' end
return out
`)
