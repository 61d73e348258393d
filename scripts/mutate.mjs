// `npm run mutate [-- GROUP...]`: mutation testing (StrykerJS) of the code that decides — the door, the policy,
// approval hashing and resolution, the envelope parser, the ledger's replay (groups: scripts/mutate/modules.mjs). Each
// group is one Stryker run (stryker.config.mjs) against its own unit test files, incremental: a second run re-tests only
// the mutants whose code or tests changed. Prints each module's score at the end. Not in CI (minutes, on two cores).
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { MODULES } from './mutate/modules.mjs';

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = asked.filter((a) => !MODULES[a]);
if (unknown.length > 0) {
  console.error(`unknown group ${unknown.map((u) => `'${u}'`).join(', ')}: choose from ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}
const groups = asked.length > 0 ? asked : Object.keys(MODULES);
const started = Date.now();
let failed = false;
for (const name of groups) {
  console.log(`\n== mutate: ${name} (${MODULES[name].mutate.join(', ')})`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', 'stryker.config.mjs'], {
    stdio: 'inherit',
    env: { ...process.env, PLANGATE_MUTATE: name },
  });
  console.log(`== ${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (r.status !== 0) failed = true;
}

/** Stryker's own score: killed and timed-out mutants over all valid ones (survivors and uncovered count against). */
function score(mutants) {
  const count = (...s) => mutants.filter((m) => s.includes(m.status)).length;
  const detected = count('Killed', 'Timeout');
  const undetected = count('Survived', 'NoCoverage');
  return {
    detected,
    undetected,
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
    ignored: count('Ignored'),
    total: detected + undetected,
  };
}

const rows = [];
for (const name of groups) {
  const file = `reports/mutation/${name}.json`;
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  for (const [path, { mutants }] of Object.entries(report.files)) rows.push({ group: name, path, ...score(mutants) });
}
const pct = (r) => (r.total === 0 ? 'n/a' : `${((100 * r.detected) / r.total).toFixed(1)}%`);
console.log('\nMutation score per module (killed + timed out / all valid mutants):');
console.log(['module'.padEnd(36), 'score'.padStart(7), 'killed', 'survived', 'no cover', 'ignored'].join('  '));
for (const r of rows)
  console.log(
    [
      r.path.padEnd(36),
      pct(r).padStart(7),
      String(r.detected).padStart(6),
      String(r.survived).padStart(8),
      String(r.noCoverage).padStart(8),
      String(r.ignored).padStart(7),
    ].join('  '),
  );
console.log(
  `(${((Date.now() - started) / 1000).toFixed(0)} s in all; survivors: reports/mutation/<group>.json, or open Stryker's clear-text list above)`,
);
process.exit(failed ? 1 : 0);
