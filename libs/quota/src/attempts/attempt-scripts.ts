import { createHash } from 'node:crypto';
import type { LuaScript } from '../limit-scripts';

/**
 * The Lua scripts of RedisAttemptCounter: one key each (a hash with the count `n` and the time
 * of the last counted attempt `last`), timed by Redis TIME. TAKE mirrors `lockedForMs` of
 * attempt-counter.ts; keep the two in step.
 */

function script(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * KEYS: the attempts hash. ARGV: maxFailures, windowMs, backoffAfter, backoffBaseMs.
 * Reply: {1, count} (counted) or {0, retryAfterMs} (refused, nothing counted).
 */
export const TAKE_ATTEMPT = script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local max, window, after, base = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local left = redis.call('PTTL', KEYS[1])
if left < 0 then left = window end
if n > 0 then
  local locked = 0
  if n >= max then
    locked = left
  elseif n >= after then
    local last = tonumber(redis.call('HGET', KEYS[1], 'last') or '0')
    locked = math.max(0, math.min(last + base * 2 ^ math.min(n - after, 30) - now, left))
  end
  if locked > 0 then return {0, string.format('%d', math.ceil(locked))} end
end
n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 'last', string.format('%d', now))
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], window) end
return {1, n}`);

/** KEYS: the attempts hash. Uncounts one attempt, never below zero; keeps the window. */
export const GIVE_BACK_ATTEMPT = script(`
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if n > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
return 0`);

/** KEYS: the attempts hash. */
export const CLEAR_ATTEMPTS = script(`
redis.call('DEL', KEYS[1])
return 0`);
