export * from './context-budget';
export * from './merge';
export * from './retrieval.module';
export * from './retrieval.queries';
export * from './retrieval.repository';
export * from './retrieval.service';
export * from './retrieval.types';
export * from './gb';
