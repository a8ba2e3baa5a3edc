import { boundingBox, haversineKm, LatLon } from './distance';

const inside = (box: ReturnType<typeof boundingBox>, p: LatLon) =>
  p.latitude >= box.minLat && p.latitude <= box.maxLat && box.lonRanges.some(([w, e]) => p.longitude >= w && p.longitude <= e);

describe('haversineKm', () => {
  it('gives great-circle distances', () => {
    expect(haversineKm({ latitude: 48.8567, longitude: 2.3508 }, { latitude: 51.5072, longitude: -0.1276 })).toBeCloseTo(343.9, 0);
    expect(haversineKm({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 })).toBeCloseTo(20015.1, 0);
    expect(haversineKm({ latitude: 10, longitude: 10 }, { latitude: 10, longitude: 10 })).toBe(0);
  });
});

describe('boundingBox', () => {
  // Points on the circle of the radius (and just inside it) around centers in awkward places.
  const centers: LatLon[] = [
    { latitude: 48.86, longitude: 2.33 },
    { latitude: -36.85, longitude: 179.9 }, // by the antimeridian
    { latitude: 65, longitude: -179.5 },
    { latitude: 89.5, longitude: 0 }, // by the pole
  ];
  it.each(centers)('holds every point within the radius of %j', (center) => {
    for (const radiusKm of [1, 50, 500]) {
      const box = boundingBox(center, radiusKm);
      for (let bearing = 0; bearing < 360; bearing += 5) {
        const p = destination(center, radiusKm * 0.999, bearing);
        expect(haversineKm(center, p)).toBeLessThanOrEqual(radiusKm);
        expect(inside(box, p)).toBe(true);
      }
    }
  });
  it('is two longitude ranges across the antimeridian, and every longitude at a pole', () => {
    expect(boundingBox({ latitude: 0, longitude: 179.9 }, 50).lonRanges).toHaveLength(2);
    expect(boundingBox({ latitude: 89.9, longitude: 0 }, 50).lonRanges).toEqual([[-180, 180]]);
  });
});

/** The point `km` from `from` on the initial bearing `deg` (spherical earth, as haversineKm). */
function destination(from: LatLon, km: number, deg: number): LatLon {
  const R = 6371.0088;
  const rad = Math.PI / 180;
  const d = km / R;
  const b = deg * rad;
  const lat1 = from.latitude * rad;
  const lon1 = from.longitude * rad;
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(b));
  const lon2 = lon1 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
  return { latitude: lat2 / rad, longitude: ((((lon2 / rad + 540) % 360) + 360) % 360) - 180 };
}
