export { createCountersRepository, type CounterRow } from './counters-repository.js';
export { countsInRange } from './range-counts.js';
export { statsOf, type Stats } from './stats.js';
export { createStatsService, MAX_BUCKETS, type StatsBucket } from './stats-service.js';
export { default as statsRoutes } from './stats-routes.js';
