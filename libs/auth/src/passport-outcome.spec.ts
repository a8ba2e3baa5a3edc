import { StoreUnavailableError, UnauthenticatedError } from '@loci/common';
import { principalOrRefusal } from './passport-outcome';

describe('principalOrRefusal', () => {
  it('returns the principal a strategy accepted', () => {
    const principal = { kind: 'api_key' };
    expect(principalOrRefusal(null, principal, 'refused')).toBe(principal);
  });

  it('answers a refused credential (no principal, no error) with a 401 carrying the message', () => {
    expect(() => principalOrRefusal(null, false, 'Invalid API key.')).toThrow(new UnauthenticatedError('Invalid API key.'));
  });

  it('passes a store fault on unchanged, not as a 401', () => {
    const fault = new StoreUnavailableError('down');
    expect(() => principalOrRefusal(fault, false, 'refused')).toThrow(fault);
  });

  it('passes any other error the check threw on unchanged (a 500, not a 401)', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'tenantId')");
    let thrown: unknown;
    try {
      principalOrRefusal(bug, false, 'refused');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(bug);
  });
});
