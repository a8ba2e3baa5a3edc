export * from './claim-statement';
export * from './job-errors';
export * from './job-queue';
export * from './job-runner';
export * from './fair-turn';
