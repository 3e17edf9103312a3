/**
 * A small closed-loop load generator: `concurrency` callers, each sending its next request
 * as soon as the previous one answered, for `durationMs` or `total` requests.
 */
import { readFileSync } from 'node:fs';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  latencies: number[];
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function load(options: { concurrency: number; durationMs?: number; total?: number }, request: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const started = performance.now();
  // Whichever bound comes first: the count, or the duration (requests in flight then finish).
  const more = () => (options.total === undefined || issued < options.total) && (options.durationMs === undefined || performance.now() - started < options.durationMs);
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (more()) {
        const i = issued++;
        const t0 = performance.now();
        const ok = await request(i).catch(() => false);
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), latencies };
}

export const ms = (n: number) => `${n.toFixed(1)} ms`;

/** Combines rounds of the same measurement into one result. */
export function merge(rounds: LoadResult[]): LoadResult {
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
  const errors = rounds.reduce((sum, r) => sum + r.errors, 0);
  return { requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), latencies };
}

/** CPU seconds a process has used so far (Linux /proc; null elsewhere). */
function cpuSecondsOf(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return null;
  }
}

/**
 * Waits until the processes are quiet (under 10% of a core each over a second), at most
 * `maxMs`: work a stage left behind (e.g. workflows started by the load before) would
 * otherwise be measured with the next stage. Returns how long it waited.
 */
export async function untilQuiet(pids: number[], maxMs = 120_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < maxMs) {
    const before = pids.map(cpuSecondsOf);
    await new Promise((r) => setTimeout(r, 1000));
    const busy = pids.some((pid, i) => {
      const now = cpuSecondsOf(pid);
      return now !== null && before[i] !== null && now - before[i]! > 0.1;
    });
    if (!busy) break;
  }
  return Date.now() - started;
}
