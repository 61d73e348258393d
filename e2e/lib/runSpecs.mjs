// Runs the end-to-end spec files in the order given, N at a time, with the spec reporter — what `node --test` does,
// except that `node --test` sorts its files by name, which started the longest spec files last and left two lanes
// idle at the end. e2e/run.sh passes them longest first.
//   node e2e/lib/runSpecs.mjs [--concurrency N] [--test-name-pattern RE] FILE…
// Exits 1 when a test (or a file's hooks) failed.
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const args = process.argv.slice(2);
let concurrency = 3;
/** @type {string | undefined} */
let namePattern;
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--concurrency') concurrency = Number(args[++i]);
  else if (args[i] === '--test-name-pattern') namePattern = args[++i];
  else files.push(args[i]);
}
if (files.length === 0 || !(concurrency >= 1)) {
  console.error('usage: node e2e/lib/runSpecs.mjs [--concurrency N] [--test-name-pattern RE] FILE…');
  process.exit(2);
}
const stream = run({ files, concurrency, ...(namePattern ? { testNamePatterns: namePattern } : {}) });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(new spec()).pipe(process.stdout);
