export { seededRandom } from './prng';
export { tCdf, tQuantile, incompleteBeta } from './t-distribution';
export { bootstrapInterval, quantileSorted, type BootstrapOptions, type Interval } from './bootstrap';
export { meanInterval, type MeanInterval } from './mean-interval';
