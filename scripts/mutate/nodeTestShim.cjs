// For `npm run mutate` only: lets StrykerJS's mocha runner run the unit test files written for node's test runner, in
// one long-lived process per worker. Started anew for every mutant (the tap runner), each test file cost seconds of
// start-up on this shared machine and a run took hours; in one process a mutant costs milliseconds. The files import
// `describe`, `test`, `it` and the hooks from 'node:test'; this preload answers that import with mocha's globals of
// the same names. A test that takes node's TestContext (`t`) gets the part of it these files use: `t.after`.
// Loaded with `--require` before tsx compiles the test files (to CommonJS, so their `require('node:test')` lands here).
'use strict';
const Module = process.getBuiltinModule('node:module'); // not require(): the lint forbids it, and this is the same module

/** mocha's `it` for a node:test `test(name, [options], fn)`. */
function wrapTest(name, options, fn) {
  const body = typeof options === 'function' ? options : fn;
  const opts = typeof options === 'object' && options !== null ? options : {};
  if (opts.skip || opts.todo) return globalThis.it.skip(name, () => undefined);
  return globalThis.it(name, async function () {
    const cleanups = [];
    const t = {
      name,
      after: (f) => cleanups.push(f),
      diagnostic: () => undefined,
      skip: () => this.skip(),
    };
    try {
      await body(t);
    } finally {
      for (const f of cleanups.reverse()) await f();
    }
  });
}

function wrapDescribe(name, options, fn) {
  const body = typeof options === 'function' ? options : fn;
  return globalThis.describe(name, function () {
    body();
  });
}

const hook = (mochaName) => (fn) => globalThis[mochaName](async () => fn());
const shim = {
  test: wrapTest,
  it: wrapTest,
  describe: wrapDescribe,
  suite: wrapDescribe,
  before: hook('before'),
  after: hook('after'),
  beforeEach: hook('beforeEach'),
  afterEach: hook('afterEach'),
};
// node:test's `test` carries the hooks too (`test.after(…)` inside a describe).
for (const name of ['before', 'after', 'beforeEach', 'afterEach']) wrapTest[name] = shim[name];
shim.default = shim.test;

const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'node:test') return shim;
  return load.call(this, request, parent, isMain);
};
