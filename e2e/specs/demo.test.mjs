// The README's first command, `npm run demo`, checked the way its --smoke flag checks it: the script starts
// code-server with the packaged extension and the demo workspace, then a headless Chromium waits until Plangate's
// status bar item is there and the workspace's "demo" MCP server runs in the Servers view. Run here as a user would
// run it (npm, the repository root), so that `npm test` proves the demo on every machine it runs on; only its state
// folder (PLANGATE_DEMO_HOME) is this run's instead of the repository's .demo/, which stays the user's own.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, runDir } from '../lib/env.mjs';

test(
  'npm run demo -- --smoke: the demo starts, Plangate activates, the demo server runs, and its plan is called, approved and run',
  { timeout: 420_000 }, // the walk-through's plan adds a minute on a loaded machine
  async () => {
    const home = path.join(runDir(), 'demo');
    fs.rmSync(home, { recursive: true, force: true });
    const log = path.join(runDir(), 'demo-smoke.log');
    const out = fs.openSync(log, 'w');
    const child = spawn('npm', ['run', 'demo', '--', '--smoke'], {
      cwd: ROOT,
      env: { ...process.env, PLANGATE_DEMO_HOME: home, PLANGATE_DEMO_SMOKE_WALKTHROUGH: '1' },
      stdio: ['ignore', out, out],
    });
    const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
    fs.closeSync(out);
    const text = fs.readFileSync(log, 'utf8');
    assert.equal(code, 0, `npm run demo -- --smoke exited ${code}:\n${text.split('\n').slice(-30).join('\n')}`);
    assert.match(text, /\[demo\] smoke OK/, 'the smoke check says OK');
    assert.match(text, /Servers view: "demo running/, 'the demo server runs');
    assert.match(
      text,
      /\[demo\] walk-through: plan_scaffold approved and run, \d+ steps ok/,
      "the README's walk-through: Call, then Approve and run",
    );
    const shots = fs.readdirSync(path.join(home, 'smoke', 'shots'));
    assert.ok(
      shots.some((f) => f.endsWith('demo-servers.png')),
      `a screenshot of the Servers view: ${shots.join(', ')}`,
    );
    console.log(`[e2e demo] ${text.match(/\[demo\] smoke OK.*/)?.[0]}`);
  },
);
