import { workerData } from 'piscina';
import { runCpuTask } from './cpu-tasks';
import { lowerThreadPriority } from './thread-priority';

// Once per thread, as it loads: CpuPool passes LOCI_CPU_THREAD_NICE (see thread-priority.ts).
lowerThreadPriority(Number((workerData as { nice?: number } | undefined)?.nice ?? 0));

/** The entry of CpuPool's worker threads (piscina calls the default export with each task). */
export default runCpuTask;
