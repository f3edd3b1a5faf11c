export { seededRandom } from './prng';
export { tCdf, tQuantile, incompleteBeta } from './t-distribution';
export { bootstrapInterval, bootstrapCountIntervals, quantileSorted, type BootstrapOptions, type Interval } from './bootstrap';
export { meanInterval, type MeanInterval } from './mean-interval';
