import autocannon from 'autocannon';
import { LatencySummary, summarize } from '../stats';

/** An API the load is sent to, and the key it is sent with. */
export interface HttpTarget {
  url: string;
  apiKey: string;
}

export const jsonHeaders = (target: HttpTarget) => ({ authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' });

export interface HttpLoadResult {
  duration_s: number;
  /** Successful (2xx) responses measured. */
  requests: number;
  /** Non-2xx responses and connection errors; not in the latencies. */
  errors: number;
  throughput_rps: number;
  latency_ms: LatencySummary;
}

/**
 * Closed-loop HTTP load from autocannon in this process, over loopback: `concurrency`
 * connections, each sending its next POST as soon as the previous one is answered, for
 * `durationS`. `body` is called once per request (the questions rotate).
 */
export async function loadHttp(
  target: HttpTarget,
  path: string,
  body: () => string,
  concurrency: number,
  durationS: number,
): Promise<HttpLoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        connections: concurrency,
        pipelining: 1,
        duration: durationS,
        timeout: 30,
        headers: jsonHeaders(target),
        requests: [{ method: 'POST', path, setupRequest: (request) => ({ ...request, body: body() }) }],
      },
      (error, done) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
    // Our own record of every response, so every scenario computes percentiles the same way
    // (autocannon's histogram has no p95).
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      else errors++;
    });
    instance.on('reqError', () => errors++);
  });
  const durationSeconds = result.duration > 0 ? result.duration : durationS;
  return {
    duration_s: round(durationSeconds),
    requests: latencies.length,
    errors,
    throughput_rps: round(latencies.length / durationSeconds),
    latency_ms: summarize(latencies),
  };
}

const round = (x: number) => Math.round(x * 100) / 100;
