export { CpuPool } from './cpu-pool';
export { CpuTaskLimitError, type CpuTaskLimit } from './cpu-task-errors';
