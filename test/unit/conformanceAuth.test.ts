// The official MCP conformance suite (@modelcontextprotocol/conformance) against Plangate's client: each client auth
// scenario starts its own authorization server and MCP server on loopback and runs the real `plangate run` CLI bundle
// against them (helpers/conformance/client.mjs), then judges what the client did (discovery, registration, PKCE, scopes,
// step-up, retry limits, token endpoint auth). Offline: everything listens on localhost.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundles } from './helpers/cliHarness';
import { REPO_ROOT } from './helpers/fixture';

const require = createRequire(__filename);
const SUITE = join(require.resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js');
const HELPERS = join(REPO_ROOT, 'test', 'unit', 'helpers', 'conformance');

/**
 * The suite's client auth scenarios by its own suite names: `auth` (the 2025-11-25 spec: metadata discovery, CIMD,
 * scopes, step-up, retry limit, token endpoint auth, pre-registration), `backcompat` (2025-03-26) and `draft` (resource
 * mismatch, offline access). Each suite runs its scenarios in parallel, in one runner process.
 */
const SUITES: Record<string, string[]> = {
  auth: [
    'auth/metadata-default',
    'auth/metadata-var1',
    'auth/metadata-var2',
    'auth/metadata-var3',
    'auth/basic-cimd',
    'auth/scope-from-www-authenticate',
    'auth/scope-from-scopes-supported',
    'auth/scope-omitted-when-undefined',
    'auth/scope-step-up',
    'auth/scope-retry-limit',
    'auth/token-endpoint-auth-basic',
    'auth/token-endpoint-auth-post',
    'auth/token-endpoint-auth-none',
    'auth/pre-registration',
  ],
  backcompat: ['auth/2025-03-26-oauth-metadata-backcompat', 'auth/2025-03-26-oauth-endpoint-fallback'],
  draft: ['auth/resource-mismatch', 'auth/offline-access-scope', 'auth/offline-access-not-supported'],
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description?: string;
  errorMessage?: string;
}

const dir = mkdtempSync(join(tmpdir(), 'plangate-conformance-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The suite splits its --command at spaces: a script in a temp folder (no spaces) starts the client. */
function clientCommand(): string {
  const script = join(dir, 'client.sh');
  writeFileSync(script, `#!/bin/sh\nexec "${process.execPath}" "${join(HELPERS, 'client.mjs')}" "$@"\n`);
  chmodSync(script, 0o755);
  return script;
}

/** Runs one of the suite's suites; resolves with the runner's output (each scenario's results are under `out`). */
async function runSuite(suite: string, out: string, command: string, cli: string): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', join(HELPERS, 'node20.mjs'), SUITE, 'client', '--command', command, '--suite', suite, '-o', out, '--timeout', '120000'],
    { env: { ...process.env, PLANGATE_CONFORMANCE_CLI: cli, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  await new Promise((resolve) => child.once('close', resolve));
  clearTimeout(killer);
  return output;
}

/** The checks one scenario recorded, and the client's stderr. */
function scenarioResult(out: string, scenario: string, output: string): { checks: Check[]; log: string } {
  const runs = join(out, ...scenario.split('/').slice(0, -1));
  let run: string | undefined;
  try {
    run = readdirSync(runs).find((d) => d.startsWith(`${scenario.split('/').at(-1)}-`));
  } catch {
    /* reported below */
  }
  assert.ok(run, `the suite recorded no result for ${scenario}:\n${output.slice(-3000)}`);
  const checks = JSON.parse(readFileSync(join(runs, run, 'checks.json'), 'utf8')) as Check[];
  const stderr = readFileSync(join(runs, run, 'stderr.txt'), 'utf8');
  return { checks, log: `--- client stderr ---\n${stderr.slice(-3000)}` };
}

for (const [suite, scenarios] of Object.entries(SUITES)) {
  describe(`the MCP conformance suite "${suite}": client auth scenarios against plangate run`, () => {
    const out = join(dir, suite);
    let output = '';
    before(async () => {
      const { cli } = await bundles();
      output = await runSuite(suite, out, clientCommand(), cli);
    });
    test('the suite ran exactly these scenarios (a new one in the suite is added here, judged)', () => {
      const ran = [...output.matchAll(/^[✓✗] (\S+):/gmu)].map((m) => m[1]).sort();
      assert.deepEqual(ran, [...scenarios].sort(), output.slice(-3000));
    });
    for (const scenario of scenarios) {
      test(scenario, () => {
        const { checks, log } = scenarioResult(out, scenario, output);
        const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
        assert.ok(
          checks.some((c) => c.status === 'SUCCESS'),
          `${scenario}: no check succeeded\n${log}`,
        );
        assert.deepEqual(
          bad.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description ?? ''}`),
          [],
          `${scenario}\n${log}`,
        );
      });
    }
  });
}
