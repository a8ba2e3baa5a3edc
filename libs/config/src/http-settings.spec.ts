import { parseSettings, SettingsError } from './settings.schema';

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error.problems;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

/** The HTTP hygiene and login throttle settings (issue 15): defaults, parsing, and refusals that name the variable. */
describe('HTTP and login throttle settings', () => {
  it('defaults to no CORS, no trusted proxy, no HSTS, docs on, and 10 failed logins per email per 15 minutes', () => {
    const settings = parseSettings({});
    expect(settings.LOCI_CORS_ORIGINS).toEqual([]);
    expect(settings.LOCI_TRUST_PROXY).toBe(false);
    expect(settings.LOCI_HSTS_MAX_AGE_SECONDS).toBe(0);
    expect(settings.LOCI_API_DOCS).toBe(true);
    expect([settings.LOCI_LOGIN_MAX_FAILURES_PER_EMAIL, settings.LOCI_LOGIN_WINDOW_SECONDS]).toEqual([10, 900]);
  });

  it('reads an origin list and the forms of trust proxy', () => {
    expect(parseSettings({ LOCI_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).LOCI_CORS_ORIGINS).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(parseSettings({ LOCI_TRUST_PROXY: 'true' }).LOCI_TRUST_PROXY).toBe(true);
    expect(parseSettings({ LOCI_TRUST_PROXY: '2' }).LOCI_TRUST_PROXY).toBe(2);
    expect(parseSettings({ LOCI_TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::1' }).LOCI_TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8', 'fd00::1']);
  });

  it('reads the public URL (MCP OAuth issuer): https anywhere, http on a loopback host, a trailing slash dropped', () => {
    expect(parseSettings({}).LOCI_PUBLIC_URL).toBeUndefined();
    expect(parseSettings({ LOCI_PUBLIC_URL: 'https://loci.example.com/' }).LOCI_PUBLIC_URL).toBe('https://loci.example.com');
    expect(parseSettings({ LOCI_PUBLIC_URL: 'http://localhost:3000' }).LOCI_PUBLIC_URL).toBe('http://localhost:3000');
  });

  it.each([
    ['LOCI_CORS_ORIGINS', '*'],
    ['LOCI_CORS_ORIGINS', 'https://app.example.com/'],
    ['LOCI_CORS_ORIGINS', 'https://app.example.com/path'],
    ['LOCI_CORS_ORIGINS', 'app.example.com'],
    ['LOCI_CORS_ORIGINS', 'ftp://files.example.com'],
    ['LOCI_TRUST_PROXY', 'everyone'],
    ['LOCI_TRUST_PROXY', '10.0.0.0/99'],
    ['LOCI_LOGIN_MAX_FAILURES_PER_EMAIL', '0'],
    ['LOCI_LOGIN_WINDOW_SECONDS', '0'],
    ['LOCI_HSTS_MAX_AGE_SECONDS', '-1'],
    ['LOCI_HTTP_REQUEST_TIMEOUT_MS', '10'],
    ['LOCI_API_DOCS', 'maybe'],
    ['LOCI_PUBLIC_URL', 'loci.example.com'],
    ['LOCI_PUBLIC_URL', 'http://loci.example.com'],
    ['LOCI_PUBLIC_URL', 'https://loci.example.com/api'],
    ['LOCI_PUBLIC_URL', 'https://loci.example.com?x=1'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });
});
