import { workerData } from 'piscina';
import { setPausePoint, type StepAsidePolicy, stepAsideForQuestions } from '../../../common/src/pause-points';
import { type CpuTaskRequest, runCpuTask } from './cpu-tasks';
import { lowerThreadPriority } from './thread-priority';

/** What CpuPool gives each thread as it starts. */
export interface CpuThreadData {
  /** LOCI_CPU_THREAD_NICE (see thread-priority.ts). */
  nice: number;
  /** The process's count of questions running (QuestionsInFlight), and how long tasks step aside for them. */
  questions: SharedArrayBuffer;
  pause: StepAsidePolicy;
}

// Once per thread, as it loads.
const data = workerData as Partial<CpuThreadData> | undefined;
lowerThreadPriority(Number(data?.nice ?? 0));
const stepAside = data?.questions && data.pause ? stepAsideForQuestions(data.questions, data.pause) : undefined;
setPausePoint(stepAside?.pause);

/** The entry of CpuPool's worker threads (piscina calls the default export with each task). */
export default function runTask(request: CpuTaskRequest): unknown {
  stepAside?.newTask();
  return runCpuTask(request);
}
