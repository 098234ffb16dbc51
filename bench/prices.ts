// The benchmarks' price table is scripts/lib/prices.ts, which the BENCHMARKS.md generator prices from as well.
export { PRICES } from '../scripts/lib/prices';
