import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';

/**
 * Keys of the login attempt counters. Each is used alone by its scripts, so its hash tag is the
 * whole identity and any Redis Cluster slot holds it.
 */
export const attemptKeys = {
  /**
   * Per email, case-folded as the users lookup matches it (else `Alice@` and `alice@` would be
   * two counters for one account), and hashed: no email address is written into Redis.
   */
  loginEmail: (email: string) => `loci:{login:email:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32)}}`,
  loginAddress: (address: string | undefined) => `loci:{login:addr:${clientAddressGroup(address)}}`,
};

/**
 * The unit one client is counted by: an IPv4 address (an IPv4-mapped IPv6 one included), or
 * the /64 network of an IPv6 address, since one subscriber usually holds a whole /64 and could
 * otherwise take a fresh counter per address.
 */
export function clientAddressGroup(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address); // ::ffff:1.2.3.4 → 1.2.3.4
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}
