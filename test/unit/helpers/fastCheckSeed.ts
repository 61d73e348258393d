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
