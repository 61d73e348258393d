// Mutation testing of the code that decides (issue 29): `npm run mutate` (scripts/mutate.mjs) runs StrykerJS once per
// module group (scripts/mutate/modules.mjs), each against the unit test files written to catch that module's mistakes.
// Not in CI: it takes minutes. The unit tests are written for node's test runner; here they run under StrykerJS's mocha
// runner, one long-lived process per worker, through scripts/mutate/nodeTestShim.cjs (node:test's describe/test answered
// by mocha's) — started anew per mutant, as the tap runner does, a group took hours on this shared machine. Per-test
// coverage: each mutant runs only the tests that reach it. The group is chosen by PLANGATE_MUTATE (scripts/mutate.mjs
// sets it); reports and the incremental file live under reports/mutation/ (gitignored).
import { existsSync } from 'node:fs';
import { MODULES } from './scripts/mutate/modules.mjs';

const name = process.env.PLANGATE_MUTATE ?? 'door';
const group = MODULES[name];
if (!group) throw new Error(`unknown mutation group '${name}': one of ${Object.keys(MODULES).join(', ')}`);
// PLANGATE_MUTATE_SKIP=text leaves out the group's test files whose path contains it (what a file adds to the score:
// `PLANGATE_MUTATE_SKIP=Mutants` scores the feature tests alone). Files that do not exist yet are left out too.
const skip = process.env.PLANGATE_MUTATE_SKIP;
const tests = group.tests.filter((f) => existsSync(f) && !(skip && f.includes(skip)));

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'mocha',
  plugins: ['@stryker-mutator/mocha-runner'],
  mutate: group.mutate,
  // mocha's own options (its 2 s test timeout is too short for the files that start servers in memory on this machine).
  mochaOptions: { spec: tests, config: 'scripts/mutate/mocharc.json' },
  testRunnerNodeArgs: [
    '--require',
    './scripts/mutate/nodeTestShim.cjs',
    '--import',
    'tsx',
    '--import',
    './test/unit/helpers/fastCheckSeed.ts',
  ],
  coverageAnalysis: 'perTest',
  // A mutant of a module-level constant (a key list, a limit, a regular expression made once) needs the modules loaded
  // afresh: a new worker running every test of the group, over a minute each here. They are left out and counted as
  // ignored (the score table says how many); PLANGATE_MUTATE_STATIC=1 runs them too.
  ignoreStatic: process.env.PLANGATE_MUTATE_STATIC !== '1',
  // The machine is shared: two test processes at a time at most (PLANGATE_MUTATE_CONCURRENCY=1 for one).
  concurrency: Number(process.env.PLANGATE_MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 10000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ['json', 'clear-text', 'progress-append-only'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  // What the sandbox copy leaves out: builds, end-to-end runs and their browsers, benches, reports.
  ignorePatterns: ['dist', '.e2e', '.demo', '.bench', 'e2e', 'bench', 'coverage', 'media', '*.vsix', 'reports'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
