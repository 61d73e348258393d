// `npm run fuzz [-- ROUNDS]`: the property tests (envelope and collect-form fuzzers, outside-the-workspace paths,
// reducer, CLI text) with a new fast-check seed per file and round (default 5 rounds), each at its full case count.
// `npm test` uses a fixed seed (and a quarter of the cases) so CI is repeatable; this is for finding new cases. A
// failure prints its seed; replay it with PLANGATE_FUZZ_SEED=<seed> npm run test:unit -- <file>.
import { spawnSync } from 'node:child_process';

const rounds = Number(process.argv[2] ?? 5);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error(`usage: npm run fuzz [-- ROUNDS]   (ROUNDS is a positive integer, not '${process.argv[2]}')`);
  process.exit(2);
}
const files = ['envelopeFuzz', 'collectFormFuzz', 'outsidePaths', 'workflow.test', 'cliText'];
for (let round = 1; round <= rounds; round++) {
  console.log(`fuzz round ${round} of ${rounds}`);
  const r = spawnSync(process.execPath, ['scripts/runUnitTests.mjs', ...files], {
    stdio: 'inherit',
    env: { ...process.env, PLANGATE_FUZZ_SEED: 'random' },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
