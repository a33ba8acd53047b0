export * from './readiness-check';
export * from './operational-metrics.query';
