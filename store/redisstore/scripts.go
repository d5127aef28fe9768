package redisstore

import "github.com/redis/go-redis/v9"

// The scripts, one per operation, each run with EVALSHA (EVAL once after NOSCRIPT),
// so that every operation is one round trip and atomic. Numbers in Redis's Lua are
// doubles, exact up to 2^53: range values never pass through them (HINCRBY adds in
// 64-bit integers and HGET reads the result as text), and lease numbers, epoch
// milliseconds and fences, stay far below 2^53. Numbers are written as text with %d,
// so that no conversion ever turns one into an exponent form.

// reserveScript: KEYS[1] the range hash; ARGV[1] size, ARGV[2] the value a new key
// gets (initialOffset+size), or "" when that would pass MaxInt64. It returns the new
// next value: an integer below 2^53, which a double holds exactly, else text read back
// with HGET; -1 for a sealed key, -2 when the key would pass MaxInt64.
var reserveScript = redis.NewScript(`
local v = redis.call('HMGET', KEYS[1], 'next', 'sealed')
if v[2] then return -1 end
if not v[1] then
  if ARGV[2] == '' then return -2 end
  redis.call('HSET', KEYS[1], 'next', ARGV[2])
  return ARGV[2]
end
local r = redis.pcall('HINCRBY', KEYS[1], 'next', ARGV[1])
if type(r) == 'table' and r.err then
  if string.find(r.err, 'overflow', 1, true) then return -2 end
  return r
end
if r < 9007199254740992 then return r end
return redis.call('HGET', KEYS[1], 'next')
`)

// giveBackScript: KEYS[1] the range hash; ARGV[1] the tail's start, ARGV[2] its end,
// both as decimal text. It sets next to the start only when next is the end, compared
// as text (HINCRBY and HSET keep the decimal form, which strconv writes too), so no
// value passes through a double; 1 when it did, 0 for a sealed, missing or moved key.
var giveBackScript = redis.NewScript(`
local v = redis.call('HMGET', KEYS[1], 'next', 'sealed')
if v[2] or v[1] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'next', ARGV[1])
return 1
`)

// leasePrelude starts every lease script: KEYS are meta, slots and the others of
// nsKeys in order; ARGV[1] is the test clock's offset in ms ("0" outside tests). now
// is the store clock, Redis TIME, in epoch ms.
const leasePrelude = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
local function int(x) return string.format('%d', x) end
`

// acquireScript: KEYS meta, slots, owners, held, busy; ARGV offset, owner, limit,
// tolerance ms, TTL ms, preferred slot (-1 none), incarnation. It answers
// {"ok", slot, fence, expires, floor, ceiling, now}, {"conflict", limit, tolerance},
// or {"full"}.
//
// The row of a slot in the slots hash is the truth; held and busy index it: a slot is
// in both from its acquisition until its release, or until an Acquire finds its lease
// expired. A slot the index calls free is taken only if its row is free by the store
// clock now (the clock may have stepped back since), and goes back to the index if
// not.
var acquireScript = redis.NewScript(leasePrelude + `
local owner, limit, tol, ttl, preferred, inc = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local m = redis.call('HMGET', KEYS[1], 'limit', 'tolerance')
if not m[1] then
  redis.call('HSET', KEYS[1], 'limit', ARGV[3], 'tolerance', ARGV[4])
elseif m[1] ~= ARGV[3] or m[2] ~= ARGV[4] then
  return {'conflict', tonumber(m[1]), tonumber(m[2])}
end

local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', int(now))
for _, s in ipairs(expired) do redis.call('SETBIT', KEYS[5], s, 0) end
if #expired > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', int(now)) end

local function row(s)
  local v = redis.call('HMGET', KEYS[2], s..'.owner', s..'.incarnation', s..'.last', s..'.fence', s..'.expires', s..'.floor', s..'.ceiling', s..'.nextFloor')
  return {owner = v[1] or '', incarnation = v[2] or '', last = v[3] or '', fence = tonumber(v[4] or '0'),
    expires = tonumber(v[5] or '0'), floor = tonumber(v[6] or '0'), ceiling = tonumber(v[7] or '0'), nextFloor = tonumber(v[8] or '0')}
end

-- free returns the row of slot s if the slot is free by the index and by its row.
local function free(s)
  if redis.call('GETBIT', KEYS[5], s) == 1 then return nil end
  local r = row(s)
  if r.owner ~= '' and r.expires > now then
    redis.call('SETBIT', KEYS[5], s, 1)
    redis.call('ZADD', KEYS[4], int(r.expires), s)
    return nil
  end
  return r
end

-- take leases slot s, whose row is r, as storekit.SlotRow.Take does.
local function take(s, r)
  local floor = r.nextFloor
  if r.owner ~= '' then floor = math.max(floor, r.ceiling + 1) end
  local fence, expires = r.fence + 1, now + ttl
  local ceiling = expires + tol
  if r.last ~= '' and r.last ~= owner and redis.call('HGET', KEYS[3], r.last) == int(s) then
    redis.call('HDEL', KEYS[3], r.last)
  end
  redis.call('HSET', KEYS[2], s..'.owner', owner, s..'.incarnation', inc, s..'.last', owner, s..'.fence', int(fence),
    s..'.expires', int(expires), s..'.floor', int(floor), s..'.ceiling', int(ceiling), s..'.nextFloor', int(floor))
  redis.call('HSET', KEYS[3], owner, int(s))
  redis.call('SETBIT', KEYS[5], s, 1)
  redis.call('ZADD', KEYS[4], int(expires), s)
  return {'ok', s, fence, expires, floor, ceiling, now}
end

local earlier = redis.call('HGET', KEYS[3], owner)
if earlier then
  local s = tonumber(earlier)
  local r = row(s)
  if r.incarnation == inc then -- the client sent this call again after losing its answer
    return {'ok', s, r.fence, r.expires, r.floor, r.ceiling, now}
  end
  r = free(s)
  if r then return take(s, r) end
end
if preferred >= 0 then
  local r = free(preferred)
  if r then return take(preferred, r) end
end
while true do
  local s = redis.call('BITPOS', KEYS[5], 0)
  if s >= limit then return {'full'} end
  local r = free(s)
  if r then return take(s, r) end
end
`)

// renewScript: KEYS meta, slots, held, busy; ARGV offset, slot, owner, incarnation,
// fence, TTL ms. It answers {"ok", slot, fence, expires, floor, ceiling, now} or
// {"lost"}, as storekit.SlotRow.Renew.
var renewScript = redis.NewScript(leasePrelude + `
local tol = redis.call('HGET', KEYS[1], 'tolerance')
if not tol then return {'lost'} end
local s = ARGV[2]
local v = redis.call('HMGET', KEYS[2], s..'.owner', s..'.incarnation', s..'.fence', s..'.floor', s..'.ceiling')
if v[1] ~= ARGV[3] or v[2] ~= ARGV[4] or v[3] ~= ARGV[5] then return {'lost'} end
local expires = now + tonumber(ARGV[6])
local ceiling = math.max(tonumber(v[5]), expires + tonumber(tol))
redis.call('HSET', KEYS[2], s..'.expires', int(expires), s..'.ceiling', int(ceiling))
redis.call('ZADD', KEYS[3], int(expires), s)
redis.call('SETBIT', KEYS[4], s, 1)
return {'ok', tonumber(s), tonumber(v[3]), expires, tonumber(v[4]), ceiling, now}
`)

// releaseScript: KEYS meta, slots, held, busy; ARGV offset, slot, owner,
// incarnation, fence, lastUsedMs. It answers {"ok"}, {"lost"}, or {"ceiling",
// ceiling} when lastUsedMs lies above the ceiling, as storekit.SlotRow.Release.
var releaseScript = redis.NewScript(leasePrelude + `
local s = ARGV[2]
local v = redis.call('HMGET', KEYS[2], s..'.owner', s..'.incarnation', s..'.fence', s..'.floor', s..'.ceiling')
if v[1] ~= ARGV[3] or v[2] ~= ARGV[4] or v[3] ~= ARGV[5] then return {'lost'} end
local last, ceiling = tonumber(ARGV[6]), tonumber(v[5])
if last > ceiling then return {'ceiling', ceiling} end
redis.call('HSET', KEYS[2], s..'.owner', '', s..'.incarnation', '', s..'.nextFloor', int(math.max(tonumber(v[4]), last + 1)))
redis.call('ZREM', KEYS[3], s)
redis.call('SETBIT', KEYS[4], s, 0)
return {'ok'}
`)
