export { CpuPool } from './cpu-pool';
