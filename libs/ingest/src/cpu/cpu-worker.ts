import { runCpuTask } from './cpu-tasks';

/** The entry of CpuPool's worker threads (piscina calls the default export with each task). */
export default runCpuTask;
