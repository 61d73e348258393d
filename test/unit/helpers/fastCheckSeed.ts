// Loaded before every unit test file (scripts/runUnitTests.mjs): fast-check's property tests draw from a fixed
// seed, so `npm test` (and CI) checks the same cases every time and a failure reproduces as it is. Exploring new
// cases is `npm run fuzz` (PLANGATE_FUZZ_SEED=random, a new seed per round, printed); PLANGATE_FUZZ_SEED=<n>
// replays one.
import fc from 'fast-check';

const FIXED_SEED = 20261130;
const wanted = process.env.PLANGATE_FUZZ_SEED;
const seed = wanted === 'random' ? (Math.random() * 2 ** 31) | 0 : wanted ? Number(wanted) : FIXED_SEED;
if (!Number.isInteger(seed)) throw new Error(`PLANGATE_FUZZ_SEED must be an integer or "random", not '${wanted}'`);
if (wanted)
  process.stderr.write(`fast-check seed ${seed} for ${process.argv[1]?.split(/[\\/]/).pop()} (replay with PLANGATE_FUZZ_SEED=${seed})\n`);
fc.configureGlobal({ seed });

/**
 * How many cases a property test checks: `n` when exploring (`npm run fuzz`, new seeds), a quarter of it (at least
 * 200) with the fixed seed — the same cases every run, so checking thousands of them again in every `npm test` buys
 * nothing new; the fixed quarter keeps the regressions found so far in reach, and `npm run fuzz` the search.
 */
export function runs(n: number): number {
  return wanted ? n : Math.max(200, Math.round(n / 4));
}
