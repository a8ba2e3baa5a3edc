import { createHash } from 'node:crypto';
import type { LuaScript } from '../limit-scripts';

/**
 * The Lua script of RedisRateLimiter: `takeFromBuckets` of request-rate.ts, timed by Redis TIME
 * in microseconds (below 2^53, so exact in Lua's doubles); keep the two in step.
 *
 * KEYS: the n bucket keys (one tenant's: the same Cluster slot). ARGV: per bucket perMinute, burst.
 * Reply: {1, remaining_1, fullInMs_1, ...} or {0, bucketIndex (1-based), retryAfterMs}.
 */
export const TAKE_TOKENS = script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = #KEYS
local new_tats = {}
local reply = {1}
local refused_index, refused_wait = 0, 0
for i = 1, n do
  local interval = math.ceil(60000000 / tonumber(ARGV[2 * i - 1]))
  local capacity = interval * tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tat < now then tat = now end
  local new_tat = tat + interval
  local wait = new_tat - capacity - now
  if wait > 0 then
    if wait > refused_wait then refused_index, refused_wait = i, wait end
  else
    new_tats[i] = new_tat
    reply[#reply + 1] = math.floor((capacity - (new_tat - now)) / interval)
    reply[#reply + 1] = math.ceil((new_tat - now) / 1000)
  end
end
if refused_index > 0 then return {0, refused_index, math.ceil(refused_wait / 1000)} end
for i = 1, n do
  -- Expires when the bucket would be full again: a full bucket and no key are the same.
  redis.call('SET', KEYS[i], string.format('%d', new_tats[i]), 'PX', math.ceil((new_tats[i] - now) / 1000) + 1)
end
return reply`);

function script(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}
