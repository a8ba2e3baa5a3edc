import { ValidationError } from '@loci/common';
import { Settings } from '@loci/config';

/**
 * The nearby search a valid gb query body asks for (geo_nearby: true, or a geo_radius_km,
 * which overrides the server's LOCI_GEO_RADIUS_KM), or undefined. A server with geo off
 * answers a request for it 400 with the contract's message.
 */
export function nearbySearchOf(
  body: { geo_nearby?: boolean; geo_radius_km?: number },
  geo: Settings['geo'],
): { radiusKm: number } | undefined {
  if (body.geo_nearby !== true && body.geo_radius_km === undefined) return undefined;
  if (!geo.enabled) throw new ValidationError('geo is not enabled on this server');
  return { radiusKm: body.geo_radius_km ?? geo.radiusKm };
}
