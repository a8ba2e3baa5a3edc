import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { createUser, startTestApp, TestApp, TestUser } from '@loci/testing';
import { consoleDir } from '../../apps/api/src/console-assets';

/**
 * The Loci Console in headless Chromium (issue 17, items 3 and 4), as a person uses it: an
 * operator creates a tenant and sets its limits; its admin signs in (by keyboard), uploads a
 * document and watches it reach processed, asks a question and opens a source, browses the
 * entity and a fact's history, creates an API key and sees the usage; then every screen renders
 * at phone width without horizontal overflow, and the browser logged no error throughout.
 *
 * Debian's chromium (`/usr/bin/chromium`, installed by .ci/run) driven by playwright-core; one
 * app, one browser. LOCI_CONSOLE_SCREENSHOTS=<dir> also writes the main screens there
 * (`npm run console:screenshots` writes docs/console/).
 */

const CHROMIUM = process.env.LOCI_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = process.env.LOCI_CONSOLE_SCREENSHOTS;
const DOCUMENT = 'Alice Johnson works at Acme Corporation since 2019. In March 2023, Alice Johnson joined Globex Industries in Berlin.';

describe('Loci Console in a browser (e2e)', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;
  let operator: TestUser;
  const problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (CI's .ci/run does)`);
    // The console is part of `npm run build`; a test run from a fresh checkout builds it first.
    if (!consoleDir()) execFileSync('npm', ['run', 'build:console', '--silent'], { stdio: 'inherit' });
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    operator = await createUser(t.app, null, 'operator');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page: ${e.message}`));
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const shot = async (name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  // Inputs by their label (a password field's visibility toggle carries the label too).
  // (A required field's label ends in " *".)
  const input = (label: string) =>
    page.locator('input, textarea').and(page.getByLabel(new RegExp(`^${label.replace(/[()]/g, (c) => `\\${c}`)}( \\*)?$`)));
  const go = (label: string) => page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: label }).click();
  const tenantName = `Acme ${Date.now()}`;
  const admin = { email: `ann-${Date.now()}@acme.test`, password: 'ann-password-1234' };

  it('signs the operator in, creates a tenant with its admin, and sets its limits', async () => {
    await page.goto(`${base}/console`);
    await shot('sign-in');
    await input('Email').fill(operator.email);
    await input('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // What the API said, on the page (401 is the browser's resource error too: not counted).
    await page.getByTestId('error').waitFor();
    problems.length = 0;
    await input('Password').fill(operator.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tenants and limits' }).waitFor();

    await input('Tenant name').fill(tenantName);
    await input('Admin email').fill(admin.email);
    await input('Admin password').fill(admin.password);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('status').filter({ hasText: `Created ${tenantName}` }).waitFor();

    await page.getByRole('button', { name: `Edit limits of ${tenantName}` }).click();
    await input('Daily cost cap (USD)').fill('5');
    await input('Questions a day').fill('500');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const row = page.getByTestId('tenant-row').filter({ hasText: tenantName });
    await row.getByTestId('tenant-today').filter({ hasText: '/ $5.00' }).waitFor();
    expect(await row.getByTestId('tenant-quota').textContent()).toBe('500');
    await shot('operator');
    await page.getByRole('button', { name: 'Sign out' }).click();
  }, 60_000);

  it('signs the tenant admin in by keyboard, uploads a document and watches it reach processed', async () => {
    await input('Email').focus();
    await page.keyboard.type(admin.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(admin.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Ask a question' }).waitFor();

    await go('Upload');
    await page.locator('input[type=file]').setInputFiles({ name: 'people.md', mimeType: 'text/markdown', buffer: Buffer.from(DOCUMENT) });
    const status = page.getByTestId('upload-status');
    await status.filter({ hasText: 'processed' }).waitFor({ timeout: 60_000 });
    await shot('upload');
    await go('Documents');
    await page.getByTestId('document-row').filter({ hasText: 'people.md' }).filter({ hasText: 'processed' }).waitFor();
    await shot('documents');
  }, 90_000);

  it('asks a question and opens the passage of a cited source', async () => {
    await go('Ask');
    await input('Question').fill('Where does Alice Johnson work?');
    await page.getByRole('form', { name: 'Ask' }).getByRole('button', { name: 'Ask' }).click();
    await page.getByTestId('answer').waitFor();
    const source = page.getByTestId('source').first();
    expect(await source.textContent()).toContain('people.md');
    await shot('ask');
    await source.click();
    expect(await page.getByTestId('passage').textContent()).toContain('Alice Johnson');
    await page.keyboard.press('Escape');
    await page.getByTestId('passage').waitFor({ state: 'detached' });
  }, 60_000);

  it("browses the entity's facts and a fact's history", async () => {
    await go('Entities and facts');
    await input('Entity name').fill('alice');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('entity-result').filter({ hasText: 'Alice Johnson' }).first().click();
    const facts = page.getByTestId('fact-row');
    await facts.first().waitFor();
    const globex = facts.filter({ hasText: 'Globex Industries' });
    expect(await globex.textContent()).toContain('live');
    expect(await facts.filter({ hasText: 'Acme Corporation' }).textContent()).toContain('superseded');
    await globex.getByRole('button', { name: 'History' }).click();
    const history = page.getByTestId('history');
    await history.waitFor();
    expect(await history.textContent()).toMatch(/Acme Corporation[\s\S]*Globex Industries/);
    await shot('graph');
  }, 30_000);

  it("opens a user's gb memory, remembers a text into a dataset and asks it", async () => {
    await go('Memories (gb)');
    await input('User id').fill('user-42');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    const datasets = page.getByTestId('datasets');
    expect(await datasets.textContent()).toContain('No dataset yet');
    await input('Text to remember').fill('Bob Stone works at Initech in Paris.');
    await page.getByRole('button', { name: 'Remember', exact: true }).click();
    expect(await page.getByTestId('remembered').textContent()).toContain('Remembered in main');
    const row = datasets.getByTestId('dataset-row').filter({ hasText: 'main' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/main\s*1/);
    await input('Question to the memory').fill('Where does Bob Stone work?');
    await page.getByRole('button', { name: 'Ask memory' }).click();
    const answer = page.getByTestId('memory-answer');
    await answer.waitFor();
    expect(await answer.textContent()).toContain('Initech');
    await shot('memories');
  }, 60_000);

  it('shows usage against the caps and creates an API key shown once', async () => {
    await go('Users, keys and usage');
    const usage = page.getByTestId('usage');
    await usage.getByTestId('usage-table').waitFor();
    expect(await usage.textContent()).toContain('of $5.00');
    await input('Key name').fill('backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.getByTestId('new-key').textContent()).toMatch(/lk_|[A-Za-z0-9_-]{20,}/);
    await shot('admin');
  }, 30_000);

  it('renders every screen at phone width without horizontal overflow', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const label of ['Ask', 'Upload', 'Documents', 'Entities and facts', 'Memories (gb)', 'Users, keys and usage']) {
      await page.getByRole('button', { name: 'Menu' }).click();
      await go(label);
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      const overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
      expect([label, overflow]).toEqual([label, 0]);
    }
    await shot('phone');
  }, 30_000);

  it("serves the console from the API's origin under its security headers; a missing asset is a 404", async () => {
    const res = await t.http.get('/console/').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['cache-control']).toBe('no-cache');
    const asset = /\/console\/assets\/[^"]+\.js/.exec(res.text)![0];
    expect((await t.http.get(asset).expect(200)).headers['cache-control']).toContain('immutable');
    await t.http.get('/console/assets/missing.js').expect(404);
    await t.http.get('/console/some/screen').expect(200);
  });

  it('logged no error in the browser', () => {
    expect(problems).toEqual([]);
  });
});
