import { createHash } from 'node:crypto';

/**
 * The Lua scripts of RedisLimitStore. Each operation is one script, so Redis runs it without
 * any other command in between: check-then-write cannot race across app instances.
 *
 * Conventions, because Lua numbers are doubles:
 * - amounts arrive as decimal strings (ARGV) and are handed to INCRBY/DECRBY/HSET verbatim;
 *   computed values are written with string.format('%d', n), never tostring()/`..`, which
 *   format with %.14g ("1.2345678901235e+15") and would lose digits;
 * - tonumber() is only used for comparisons and replies, exact for integers below 2^53, which
 *   the TypeScript side enforces (Number.isSafeInteger).
 * - time is Redis TIME in ms; a reservation or lease is live while expiry > now, expired at
 *   expiry <= now (the in-process store uses the same rule).
 *
 * Per spend scope S the keys are: S (settled micros, string), S:res:exp (zset id → expiry),
 * S:res:amt (hash id → reserved micros), S:res:sum (sum of S:res:amt, so checks are O(1)).
 */

export interface LuaScript {
  lua: string;
  sha: string;
}

function script(body: string): LuaScript {
  const lua = `${PRELUDE}\n${body}`;
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

-- Keep a key alive for at least ms (never shortens a longer TTL); a missing key is left alone.
local function keep_for(key, ms)
  local ttl = redis.call('PTTL', key)
  if ttl == -1 or (ttl >= 0 and ttl < ms) then redis.call('PEXPIRE', key, ms) end
end

-- Gives back the amounts of expired reservations of the scope whose keys start at KEYS[b].
local function sweep(b)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[b + 1], '-inf', now)
  for _, id in ipairs(expired) do
    local amount = redis.call('HGET', KEYS[b + 2], id)
    if amount then
      redis.call('DECRBY', KEYS[b + 3], amount)
      redis.call('HDEL', KEYS[b + 2], id)
    end
    redis.call('ZREM', KEYS[b + 1], id)
  end
  -- The sum may outlive the hash it sums (its TTL is only ever extended): with no hash there is
  -- nothing reserved, so a leftover sum must not count.
  if redis.call('EXISTS', KEYS[b + 2]) == 0 then redis.call('DEL', KEYS[b + 3]) end
end

-- The limits version (LimitStore.bumpLimitsVersion) in key; created from the server's clock
-- when absent (never used before, or flushed), so it never repeats a version handed out before.
local function limits_version(key)
  local v = redis.call('GET', key)
  if not v then
    v = string.format('%d', now * 1000)
    redis.call('SET', key, v)
  end
  return v
end

local function committed(b)
  return tonumber(redis.call('GET', KEYS[b]) or '0') + tonumber(redis.call('GET', KEYS[b + 3]) or '0')
end`;

/**
 * KEYS: record, settled-marker, then 4 per scope (S, exp, amt, sum), then (guarded) the n seeded
 *       markers, then (a version to check) the limits version key.
 * ARGV: id, amount, leaseMs, n, keysJson, then per scope: cap ('' = unlimited), ttlMs; then
 *       guarded ('1' or ''), window from, window to, limits version ('' = not checked).
 * Reply: {1, committed_1..n} or {0, scopeIndex, committed, cap}; guarded also {2} (a scope is
 *        not seeded), {3, now} (the server time is outside the window) or {4, version} (the
 *        caps were read under another limits version); nothing taken then.
 */
export const RESERVE = script(`
local id, amount, lease, n = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local function base(i) return 3 + (i - 1) * 4 end
local expected = ARGV[9 + 2 * n]
if expected and expected ~= '' then
  local v = limits_version(KEYS[#KEYS])
  if v ~= expected then return {4, v} end
end
if ARGV[6 + 2 * n] == '1' then
  if now < tonumber(ARGV[7 + 2 * n]) or now >= tonumber(ARGV[8 + 2 * n]) then return {3, string.format('%d', now)} end
  for i = 1, n do
    if redis.call('EXISTS', KEYS[2 + 4 * n + i]) == 0 then return {2} end
  end
end
for i = 1, n do sweep(base(i)) end

local function all_committed()
  local out = {1}
  for i = 1, n do out[i + 1] = committed(base(i)) end
  return out
end

-- Idempotent: a live or an already settled reservation is not added again.
local rec_exp = redis.call('HGET', KEYS[1], 'exp')
if (rec_exp and tonumber(rec_exp) > now) or redis.call('EXISTS', KEYS[2]) == 1 then
  return all_committed()
end
redis.call('DEL', KEYS[1]) -- an expired record; its amounts were swept above

for i = 1, n do
  local cap = ARGV[5 + (i - 1) * 2 + 1]
  if cap ~= '' then
    local c = committed(base(i))
    if c + tonumber(amount) > tonumber(cap) then return {0, i - 1, c, tonumber(cap)} end
  end
end

local exp = string.format('%d', now + lease)
for i = 1, n do
  local b = base(i)
  local ttl = math.max(tonumber(ARGV[5 + (i - 1) * 2 + 2]), lease)
  redis.call('ZADD', KEYS[b + 1], exp, id)
  redis.call('HSET', KEYS[b + 2], id, amount)
  redis.call('INCRBY', KEYS[b + 3], amount)
  for k = 1, 3 do keep_for(KEYS[b + k], ttl) end
end
redis.call('HSET', KEYS[1], 'exp', exp, 'amount', amount, 'keys', ARGV[5])
redis.call('PEXPIRE', KEYS[1], lease) -- garbage collection only; liveness is the exp field
return all_committed()
`);

/**
 * KEYS: record, settled-marker, then 4 per scope, then (guarded) the n seeded markers.
 * ARGV: id, actual, n, markerTtlMs, then per scope ttlMs, then guarded ('1' or '').
 * Reply: 1 settled now, 0 already settled, 2 (guarded) a scope is not seeded: nothing done.
 */
export const SETTLE = script(`
local id, actual, n = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if ARGV[5 + n] == '1' then
  for i = 1, n do
    if redis.call('EXISTS', KEYS[2 + 4 * n + i]) == 0 then return 2 end
  end
end
for i = 1, n do
  local b = 3 + (i - 1) * 4
  -- Live or expired-but-not-yet-swept: the reservation's amount leaves; if it was swept it is
  -- already gone. Either way the actual cost is added exactly once.
  local amount = redis.call('HGET', KEYS[b + 2], id)
  if amount then
    redis.call('DECRBY', KEYS[b + 3], amount)
    redis.call('HDEL', KEYS[b + 2], id)
    redis.call('ZREM', KEYS[b + 1], id)
  end
  redis.call('INCRBY', KEYS[b], actual)
  if redis.call('PTTL', KEYS[b]) == -1 then redis.call('PEXPIRE', KEYS[b], ARGV[4 + i]) end
end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[4])
return 1
`);

/**
 * KEYS: record, then 3 per scope of the record (exp, amt, sum). ARGV: id, leaseMs, keysJson as read.
 * Reply: 1 renewed, 0 gone, -1 the record changed since keysJson was read (caller retries).
 */
export const RENEW_RESERVATION = script(`
local id, lease = ARGV[1], tonumber(ARGV[2])
local rec_exp = redis.call('HGET', KEYS[1], 'exp')
if not rec_exp or tonumber(rec_exp) <= now then return 0 end
if redis.call('HGET', KEYS[1], 'keys') ~= ARGV[3] then return -1 end
local exp = string.format('%d', now + lease)
for b = 2, #KEYS, 3 do
  if redis.call('ZSCORE', KEYS[b], id) then redis.call('ZADD', KEYS[b], 'XX', exp, id) end
  for k = 0, 2 do keep_for(KEYS[b + k], lease) end
end
redis.call('HSET', KEYS[1], 'exp', exp)
redis.call('PEXPIRE', KEYS[1], lease)
return 1
`);

/** KEYS: S, its seeded marker. ARGV: settled micros, ttlMs. Sets S only if absent; marks it seeded. */
export const SEED_COMMITTED = script(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX')
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
return 1
`);

/** KEYS: S, exp, amt, sum. Reply: committed micros after sweeping. */
export const COMMITTED = script(`
sweep(1)
return committed(1)
`);

/** KEYS: slot zset. ARGV: leaseId, limit, leaseMs. Reply: {ok, active}. */
export const ACQUIRE_SLOT = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local exp = string.format('%d', now + tonumber(ARGV[3]))
local held = redis.call('ZSCORE', KEYS[1], ARGV[1])
if held or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], exp, ARGV[1])
  keep_for(KEYS[1], tonumber(ARGV[3]))
  return {1, redis.call('ZCARD', KEYS[1])}
end
return {0, redis.call('ZCARD', KEYS[1])}
`);

/** KEYS: slot zset. ARGV: leaseId, leaseMs. Reply: 1 renewed, 0 gone. */
export const RENEW_SLOT = script(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', string.format('%d', now + tonumber(ARGV[2])), ARGV[1])
keep_for(KEYS[1], tonumber(ARGV[2]))
return 1
`);

/** KEYS: slot zset. ARGV: leaseId. Reply: 1 if the lease was live, else 0; only this member is removed. */
export const RELEASE_SLOT = script(`
local exp = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not exp then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
if tonumber(exp) > now then return 1 end
return 0
`);

/** KEYS: quota counter. ARGV: limit, ttlMs. Reply: {ok, count}. */
export const CONSUME_QUOTA = script(`
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return {0, count} end
count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, count}
`);

/** KEYS: quota counter. Reply: the count after giving one back (never below 0). */
export const REFUND_QUOTA = script(`
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count <= 0 then return 0 end
return redis.call('DECR', KEYS[1])
`);

/**
 * A request's whole admission in one script (AdmissionRequest): window, seeded marks, slot,
 * caps, quota; nothing is taken unless all pass. A quota seed (the day's count on record) is
 * set if the counter is absent (NX) and marked seeded here, before the quota is checked and
 * counted: concurrent seeders cannot add to each other, and no count lands in an unseeded counter.
 * KEYS: slot zset, quota counter, quota seeded marker, then 5 per scope (S, exp, amt, sum,
 *       seeded marker), then the limits version key.
 * ARGV: leaseId, slot limit ('' = none), slot leaseMs, quota limit ('' = none), quota ttlMs,
 *       window from, window to, n, then per scope: cap ('' = unlimited); then the limits version
 *       the caller read its limits under ('' = not checked); then the quota seed ('' = none).
 * Reply: {'ok', active|-1, count|-1} | {'limits', version} | {'window', now}
 *        | {'unseeded', {i...}, quota unseeded 1|0} | {'slot', active}
 *        | {'caps', {i, committed, i, committed...}} | {'quota', count} (scope indexes from 0).
 */
export const ADMIT = script(`
local expected = ARGV[9 + tonumber(ARGV[8])]
if expected ~= '' then
  local v = limits_version(KEYS[#KEYS])
  if v ~= expected then return {'limits', v} end
end
if now < tonumber(ARGV[6]) or now >= tonumber(ARGV[7]) then return {'window', string.format('%d', now)} end
local n = tonumber(ARGV[8])
local unseeded = {}
for i = 1, n do
  if redis.call('EXISTS', KEYS[4 + (i - 1) * 5 + 4]) == 0 then table.insert(unseeded, i - 1) end
end
local quota_unseeded = 0
if ARGV[4] ~= '' and redis.call('EXISTS', KEYS[3]) == 0 then
  local seed = ARGV[10 + n]
  if seed and seed ~= '' then
    redis.call('SET', KEYS[2], seed, 'PX', ARGV[5], 'NX')
    redis.call('SET', KEYS[3], '1', 'PX', ARGV[5])
  else
    quota_unseeded = 1
  end
end
if #unseeded > 0 or quota_unseeded == 1 then return {'unseeded', unseeded, quota_unseeded} end
local slotted = ARGV[2] ~= ''
if slotted then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  local active = redis.call('ZCARD', KEYS[1])
  if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and active >= tonumber(ARGV[2]) then return {'slot', active} end
end
local full = {}
for i = 1, n do
  local cap = ARGV[8 + i]
  if cap ~= '' then
    local b = 4 + (i - 1) * 5
    sweep(b)
    local c = committed(b)
    if c >= tonumber(cap) then
      table.insert(full, i - 1)
      table.insert(full, string.format('%d', c))
    end
  end
end
if #full > 0 then return {'caps', full} end
local count = -1
if ARGV[4] ~= '' then
  count = tonumber(redis.call('GET', KEYS[2]) or '0')
  if count >= tonumber(ARGV[4]) then return {'quota', count} end
  count = redis.call('INCR', KEYS[2])
  if redis.call('PTTL', KEYS[2]) == -1 then redis.call('PEXPIRE', KEYS[2], ARGV[5]) end
end
local active = -1
if slotted then
  redis.call('ZADD', KEYS[1], string.format('%d', now + tonumber(ARGV[3])), ARGV[1])
  keep_for(KEYS[1], tonumber(ARGV[3]))
  active = redis.call('ZCARD', KEYS[1])
end
return {'ok', active, count}
`);

/** KEYS: the limits version key. Reply: the new version (see limits_version for an absent one). */
export const BUMP_LIMITS_VERSION = script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return limits_version(KEYS[1]) end
return string.format('%d', redis.call('INCR', KEYS[1]))
`);
