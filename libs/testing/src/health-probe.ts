/**
 * A /healthz probe that runs beside a hostile reproduction (issue 33): every `everyMs` it asks
 * the API for /healthz and records how long the answer took, so a test can assert that no
 * request of the reproduction crashed the process (a failed probe) or held its event loop (a
 * slow one). The probe waits for each answer before the next, so a frozen loop shows as one
 * probe taking as long as the freeze.
 */
export interface HealthProbeReport {
  probes: number;
  /** Probes slower than the bound: when (ms after the first) and how long they took. */
  slow: Array<{ at: number; ms: number }>;
  /** Probes that got no 200: when, and what happened instead. */
  failed: Array<{ at: number; error: string }>;
  slowestMs: number;
}

export interface HealthProbe {
  /** Stops probing and reports what was seen. */
  stop(): Promise<HealthProbeReport>;
}

export const HEALTH_PROBE_EVERY_MS = 200;
export const HEALTH_PROBE_BOUND_MS = 1000;

export function startHealthProbe(baseUrl: string, everyMs = HEALTH_PROBE_EVERY_MS, boundMs = HEALTH_PROBE_BOUND_MS): HealthProbe {
  let probing = true;
  let wake: (() => void) | undefined;
  const report: HealthProbeReport = { probes: 0, slow: [], failed: [], slowestMs: 0 };
  const started = performance.now();
  const loop = (async () => {
    while (probing) {
      const at = performance.now();
      try {
        // The abort only keeps a dead server from hanging the test; a slow answer is recorded, not cut.
        const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(60_000) });
        // Read to the end: an unread body keeps its socket open until garbage-collected.
        await response.arrayBuffer();
        if (response.status !== 200) report.failed.push({ at: Math.round(at - started), error: `status ${response.status}` });
      } catch (error) {
        report.failed.push({ at: Math.round(at - started), error: (error as Error).message });
      }
      const ms = Math.round(performance.now() - at);
      report.probes += 1;
      report.slowestMs = Math.max(report.slowestMs, ms);
      if (ms > boundMs) report.slow.push({ at: Math.round(at - started), ms });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, everyMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      probing = false;
      wake?.();
      await loop;
      return report;
    },
  };
}
