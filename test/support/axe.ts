import { source as AXE_SOURCE } from 'axe-core';
import type { Page } from 'playwright-core';

/** The impacts a page may not have (issue 39.5): axe-core's minor and moderate ones are reported by nobody. */
const FAILING_IMPACTS = ['serious', 'critical'];

/**
 * A node axe may flag for one rule, and why the rule cannot apply to it. Matched in the page by
 * `selector` (Element.matches), so a node is excused for that rule only, never a rule for the page.
 */
export interface Excused {
  rule: string;
  selector: string;
  why: string;
}

export interface Violation {
  rule: string;
  impact: string;
  help: string;
  /** Each node flagged: its CSS path, and what axe found there (a contrast's colours and ratio). */
  nodes: { target: string; summary: string }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now (every rule axe-core runs
 * by default: WCAG 2.0-2.2 A and AA, and its best practices). axe is injected through the
 * DevTools protocol's evaluate, which the console's Content-Security-Policy does not govern; it
 * stays in the page until the next navigation.
 */
export async function seriousViolations(page: Page, excused: readonly Excused[] = []): Promise<Violation[]> {
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  await settled(page);
  // Runs in the page (serialized by playwright): the tests' tsconfig has no DOM types, hence `any`.
  return page.evaluate(
    async ({ impacts, excused }) => {
      const { axe, document } = globalThis as any;
      const results = await axe.run(document, { resultTypes: ['violations'], elementRef: true });
      return (results.violations as any[])
        .filter((v) => impacts.includes(v.impact))
        .map((v) => ({ v, nodes: (v.nodes as any[]).filter((n) => !excused.some((e) => e.rule === v.id && n.element?.matches(e.selector))) }))
        .filter(({ nodes }) => nodes.length > 0)
        .map(({ v, nodes }) => ({
          rule: v.id as string,
          impact: v.impact as string,
          help: v.help as string,
          nodes: nodes.map((n) => ({ target: (n.target as string[]).join(' '), summary: (n.failureSummary as string) ?? '' })),
        }));
    },
    { impacts: FAILING_IMPACTS, excused },
  );
}

/**
 * Waits (up to 2 s) until no transition or finite animation runs, twice 50 ms apart: a dialog
 * fading in is measured at its final colours, not half over the page behind it. Endless ones
 * (a spinner, a striped progress bar) are the page at rest.
 */
async function settled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const { document } = globalThis as any;
    for (let quiet = 0, round = 0; quiet < 2 && round < 40; round++) {
      const running = (document.getAnimations() as any[]).filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().iterations !== Infinity);
      quiet = running.length === 0 ? quiet + 1 : 0;
      await Promise.race([Promise.all(running.map((a) => a.finished.catch(() => undefined))), new Promise((resolve) => setTimeout(resolve, 1_000))]);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
}

/** One line a violation, what a person fixing it needs: the rule, where, and what it asks. */
export function describeViolations(where: string, violations: readonly Violation[]): string {
  if (violations.length === 0) return `${where}: no serious or critical accessibility violation`;
  return [
    `${where}: ${violations.length} serious or critical accessibility violation(s) (axe-core):`,
    ...violations.map((v) =>
      [
        `  ${v.rule} (${v.impact}): ${v.help}`,
        ...v.nodes.slice(0, 5).map((n) => `    at ${n.target}\n      ${n.summary.replace(/\n\s*/g, ' ')}`),
        ...(v.nodes.length > 5 ? [`    and ${v.nodes.length - 5} more`] : []),
      ].join('\n'),
    ),
  ].join('\n');
}

/** Fails, listing each violation (rule id, where, what it asks), when axe finds a serious or critical one on the page. */
export async function expectAccessible(page: Page, where: string, excused: readonly Excused[] = []): Promise<void> {
  const violations = await seriousViolations(page, excused);
  if (violations.length > 0) throw new Error(describeViolations(where, violations));
}

/**
 * The checks of one browser test file: each screen is checked where the test reaches it, and the
 * file's last test fails with every violation found (so one run lists them all, screen by screen).
 */
export class AxeAudit {
  /** Where a check ran, in order (a test can assert it reached each screen it means to). */
  readonly checked: string[] = [];
  readonly failures: string[] = [];

  async check(page: Page, where: string, excused: readonly Excused[] = []): Promise<void> {
    this.checked.push(where);
    const violations = await seriousViolations(page, excused);
    if (violations.length > 0) this.failures.push(describeViolations(where, violations));
  }

  /** Throws the list of violations found, screen by screen. */
  expectClean(): void {
    if (this.failures.length > 0) throw new Error(`${this.failures.join('\n\n')}\n\n(checked: ${this.checked.join(', ')})`);
  }
}
