// An "in-host suite" (src/ui/testHook.ts) that only opens Node's inspector in the extension host, on 127.0.0.1 and the
// port in PLANGATE_E2E_INSPECT_PORT, so a spec can ask the host for a garbage collection and its heap size (see
// heapAfterGcMB in longPlan.test.mjs). It runs only where the harness sets the test hook's variables.
exports.run = async () => {
  const started = Date.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS file the test hook loads with require
  require('node:inspector').open(Number(process.env.PLANGATE_E2E_INSPECT_PORT), '127.0.0.1');
  return { passed: 1, failed: 0, tests: [{ name: 'the inspector is open', ok: true, ms: Date.now() - started }] };
};
