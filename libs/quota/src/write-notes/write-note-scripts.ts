import { createHash } from 'node:crypto';
import type { LuaScript } from '../limit-scripts';

/**
 * The Lua scripts of RedisWriteNotes. A note is a WAL position as 16 hex digits; positions are
 * compared by their two 32-bit halves, each exact in Lua's doubles (the whole 64 bits are not).
 * Keep them in step with MemoryWriteNotes.
 */

function script(body: string): LuaScript {
  const lua = `${LATER}\n${body}`;
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

const LATER = `
-- True when position a is past position b.
local function later(a, b)
  local ah, bh = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)
  if ah ~= bh then return ah > bh end
  return tonumber(string.sub(a, 9, 16), 16) > tonumber(string.sub(b, 9, 16), 16)
end`;

/**
 * KEYS: the graph's note, its tenant's count of notes made, its tenant's overflow note.
 * ARGV: position (16 hex digits), ttlMs, maxPerTenant.
 * A graph without a live note makes one, counted for its tenant (the count lives ttlMs from the
 * first); past maxPerTenant the position goes to the overflow note instead. A note is only ever
 * raised, and a raised note lives ttlMs. Reply: 1 raised, 0 already at or past the position.
 */
export const RAISE_WRITE_NOTE = script(`
local key = KEYS[1]
if redis.call('EXISTS', key) == 0 then
  local made = redis.call('INCR', KEYS[2])
  if made == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
  if made > tonumber(ARGV[3]) then key = KEYS[3] end
end
local current = redis.call('GET', key)
if current and not later(ARGV[1], current) then return 0 end
redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
return 1`);

/** KEYS: the graph's note, its tenant's overflow note. Reply: the later of the two live positions, or nil. */
export const LOOK_UP_WRITE_NOTE = script(`
local graph, overflow = redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])
if graph and overflow then
  if later(overflow, graph) then return overflow end
  return graph
end
return graph or overflow`);
