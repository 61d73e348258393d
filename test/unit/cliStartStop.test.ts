// `plangate run`'s start and end in time: --timeout bounds the start-up as well as each call, and a run whose call
// timed out ends promptly even when the server ignores the end of its input and its launcher (as `npx` or `sh -c`
// do) dies on SIGTERM leaving the real server behind. Bounds are loose (seconds of slack): they tell a 60-second or a
// 7-second wait from a prompt one, never a fast machine from a slow one.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';
import { bundles, runCli, workspace } from './helpers/cliHarness';

const ws = workspace();
after(() => ws.remove());

describe('plangate run: --timeout and the end of a run', { concurrency: 2 }, () => {
  it('--timeout covers start-up: a server that never answers "initialize" fails after it, saying so (exit 2)', async () => {
    const silent = quoteCommandLine([process.execPath, '-e', 'setInterval(() => {}, 1000)']);
    const r = await runCli(['run', '--server', silent, '--tool', 'anything', '--timeout', '2'], { timeoutMs: 45_000 });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /did not answer "initialize" within 2 s\. If it only starts slowly, give it longer with --timeout SECONDS\./);
    assert.ok(r.ms < 2_000 + 15_000, `exited after ${r.ms} ms; the start-up wait was 60 s before`);
  });

  it('a call that timed out ends the run promptly, also when a launcher dies on SIGTERM and leaves a deaf server behind', async () => {
    // A launcher like npx: starts the real server as its child and dies on SIGTERM without passing it on.
    const launcher = join(ws.dir, 'launcher.cjs');
    const pidFile = join(ws.dir, 'server.pid');
    writeFileSync(
      launcher,
      `const { spawn } = require('node:child_process');
       const child = spawn(process.execPath, process.argv.slice(3), { stdio: 'inherit' });
       require('node:fs').writeFileSync(process.argv[2], String(child.pid));
       child.on('exit', (code) => process.exit(code ?? 1));`,
    );
    let timedOutAt = 0;
    try {
      const r = await runCli(
        [
          'run',
          '--server',
          quoteCommandLine([process.execPath, launcher, pidFile, (await bundles()).fixture, '--root', ws.root, '--stay-after-stdin-ends']),
          '--tool',
          'hang',
          // Room for the launcher and the fixture to start on a loaded machine: --timeout bounds the start-up too.
          '--timeout',
          '6',
        ],
        {
          timeoutMs: 60_000,
          onSpawn: (child) =>
            child.stderr!.on('data', (c: Buffer) => {
              if (!timedOutAt && /Timed out after 6 s/.test(c.toString())) timedOutAt = Date.now();
            }),
        },
      );
      const ended = Date.now();
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /calling 'hang' on server '.+' failed: Timed out after 6 s; nothing ran\./);
      assert.ok(timedOutAt > 0, 'the timeout was reported');
      // Before: 2 s for the end of input, 2 s after SIGTERM for pipes the left-behind server holds, 3 s more at exit.
      assert.ok(ended - timedOutAt < 4_000, `the CLI exited ${ended - timedOutAt} ms after the call timed out`);
    } finally {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        /* not started, or already gone */
      }
    }
  });
});
