import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { resultText, type ToolResult } from '../../src/core/base/toolResult';
import type { ResolvedServer, ResolvedStdioServer } from '../../src/mcp/config';
import { CallError, ServerConnection, type ConnectionOptions, type LogEntry } from '../../src/mcp/connection';
import { computeAugmentedPath } from '../../src/mcp/shellPath';
import { StderrTail } from '../../src/mcp/transport';
import { testBundles } from './helpers/bundles';
import { alive, FILESYSTEM_SERVER, fixtureStdio, REPO, startHttpFixture, waitFor, waitForState } from './helpers/mcpFixture';

const FAST: ConnectionOptions = { reconnect: { baseDelayMs: 20 }, pathProvider: async () => process.env.PATH ?? '' };

function open(t: TestContext, config: ResolvedServer, options: ConnectionOptions = FAST): { conn: ServerConnection; logs: LogEntry[] } {
  const conn = new ServerConnection(config, options);
  const logs: LogEntry[] = [];
  conn.onLog((e) => logs.push(e));
  t.after(() => conn.dispose());
  return { conn, logs };
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'plangate-conn-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function script(file: string, body: string): Promise<void> {
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
}

const fixtureScript = `exec "${process.execPath}" "${testBundles().fixture}" "$@"`;

describe('ServerConnection', { concurrency: 3 }, () => {
  test('stdio: starts the fixture, lists its tools, calls one, logs the call; stop ends the process', async (t) => {
    const { conn, logs } = open(t, fixtureStdio('fx', [], { GREETING: 'hello from env' }));
    const states: string[] = [];
    conn.onDidChangeState((s) => states.push(s.state));
    await conn.start();
    assert.equal(conn.state, 'running');
    assert.equal(conn.serverInfo?.name, 'plangate-fixture');
    assert.match(conn.instructions ?? '', /Plangate fixture server/);
    const names = conn.tools.map((tool) => tool.name);
    for (const n of ['echo', 'get_env', 'slow', 'hang', 'crash', 'add_tool', 'elicit_name']) assert.ok(names.includes(n), n);
    assert.equal(resultText(await conn.callTool('echo', { message: 'hi' })), 'hi');
    assert.equal(resultText(await conn.callTool('get_env', { name: 'GREETING' })), 'hello from env');
    // in-band tool errors come back as results
    const bad = await conn.callTool('get_env', { name: 'PLANGATE_UNSET_VAR' });
    assert.equal(bad.isError, true);
    assert.ok(
      logs.some((l) => /^call echo: ok in \d+ ms$/.test(l.text)),
      JSON.stringify(logs),
    );
    assert.ok(logs.some((l) => l.level === 'warn' && /^call get_env: tool error/.test(l.text)));
    const pid = conn.pid;
    assert.ok(alive(pid));
    await conn.stop();
    assert.equal(conn.state, 'stopped');
    assert.deepEqual(conn.tools, []);
    assert.equal(alive(pid), false);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(states, ['starting', 'running', 'stopped'], 'a deliberate stop does not reconnect');
    await assert.rejects(
      conn.callTool('echo', { message: 'x' }),
      (e: Error) => e instanceof CallError && e.kind === 'notRunning' && /Server 'fx' is not running/.test(e.message),
    );
  });

  test('a server that dies at start shows its exit code and stderr tail instead of "Connection closed"', async (t) => {
    const { conn } = open(t, fixtureStdio('broken', ['--fail-start', 'cannot reach database at db:5432']));
    await assert.rejects(conn.start(), (e: Error) => {
      assert.match(
        e.message,
        /^Server 'broken' exited during start-up \(exit code 1\)\.\nLast stderr lines:\ncannot reach database at db:5432$/,
      );
      return true;
    });
    assert.equal(conn.state, 'error');
    assert.match(conn.message ?? '', /cannot reach database/);
    assert.match(conn.stderrTail(), /cannot reach database at db:5432/);
  });

  test('a command that is not found says so and what to do', async (t) => {
    const { conn } = open(t, { ...fixtureStdio('ghost'), command: 'plangate-no-such-command', args: [] });
    await assert.rejects(conn.start(), /Server 'ghost' could not start: command 'plangate-no-such-command' was not found .*absolute path/);
    assert.equal(conn.state, 'error');
  });

  test('PATH: a command found only in the augmented PATH (~/.local/bin, login shell) starts', async (t) => {
    const home = await tempDir(t);
    await mkdir(path.join(home, '.local/bin'), { recursive: true });
    await script(path.join(home, '.local/bin/plangate-test-server'), fixtureScript);
    const guiPath = '/usr/bin:/bin';
    const config: ResolvedStdioServer = { ...fixtureStdio('via-path'), command: 'plangate-test-server', args: [] };

    const without = open(t, config, { pathProvider: async () => guiPath }).conn;
    await assert.rejects(without.start(), /command 'plangate-test-server' was not found/);

    const augmented = await computeAugmentedPath({ env: { PATH: guiPath }, home, shell: null });
    assert.deepEqual(augmented.split(':').slice(0, 3), ['/usr/bin', '/bin', path.join(home, '.local/bin')]);
    const { conn } = open(t, config, { pathProvider: async () => augmented });
    await conn.start();
    assert.equal(resultText(await conn.callTool('get_env', { name: 'PATH' })), augmented);

    // the login shell's PATH comes first; its start-up noise is ignored; a hanging shell is abandoned
    const shell = path.join(home, 'fake-shell');
    await script(shell, 'echo "Welcome! motd noise"\nPATH="/opt/login-only/bin:$PATH"; export PATH\nexec /bin/sh -c "$2"');
    const fromShell = await computeAugmentedPath({ env: { PATH: guiPath }, home, shell });
    assert.equal(fromShell.split(':')[0], '/opt/login-only/bin');
    assert.ok(fromShell.includes(path.join(home, '.local/bin')));
    const hanging = path.join(home, 'hanging-shell');
    await script(hanging, 'sleep 30');
    const started = Date.now();
    assert.ok((await computeAugmentedPath({ env: { PATH: guiPath }, home, shell: hanging, timeoutMs: 300 })).startsWith(guiPath));
    assert.ok(Date.now() - started < 2000);
  });

  test('HTTP: headers are sent; without them 401 is a clear "unauthorized" error; nothing listening is said plainly', async (t) => {
    const http = await startHttpFixture(['--require-header', 'Authorization=Bearer s3cret-t0ken']);
    t.after(() => http.close());
    const base = { name: 'web', source: 'mcp.json' as const, type: 'http' as const, url: http.url };
    const { conn, logs } = open(t, { ...base, headers: { Authorization: 'Bearer s3cret-t0ken' }, secrets: ['Bearer s3cret-t0ken'] });
    await conn.start();
    assert.equal(resultText(await conn.callTool('echo', { message: 'over http' })), 'over http');
    assert.ok(!JSON.stringify(logs).includes('s3cret-t0ken'));

    const anon = open(t, { ...base, headers: {}, secrets: [] }).conn;
    await assert.rejects(
      anon.start(),
      /^Error: Server 'web' answered 401 Unauthorized at http:\/\/127\.0\.0\.1:\d+\/mcp\. Check the Authorization header/,
    );
    assert.equal(anon.state, 'error');

    const port = await freePort();
    const refused = open(t, { ...base, url: `http://127.0.0.1:${port}/mcp`, headers: {}, secrets: [] }).conn;
    await assert.rejects(
      refused.start(),
      new RegExp(`Server 'web': nothing listens at http://127.0.0.1:${port}/mcp \\(connection refused\\)`),
    );
  });

  test('HTTP: a server that dies is noticed without a call (its event stream drops): reconnecting, then an error', async (t) => {
    const http = await startHttpFixture();
    t.after(() => http.close());
    const { conn, logs } = open(
      t,
      { name: 'web', source: 'mcp.json', type: 'http', url: http.url, headers: {}, secrets: [] },
      { ...FAST, reconnect: { baseDelayMs: 50, maxAttempts: 2 }, heartbeat: { everyMs: 600_000 } },
    );
    await conn.start();
    assert.equal(resultText(await conn.callTool('echo', { message: 'alive' })), 'alive');
    const states: string[] = [];
    conn.onDidChangeState((s) => states.push(`${s.state}: ${s.message ?? ''}`));
    process.kill(http.pid, 'SIGKILL');
    await waitForState(conn, 'error', 20_000);
    assert.match(
      states[0] ?? '',
      /^starting: server stopped answering \(a ping after a transport error \(.+\) failed: .+\); reconnecting in 0\.05 s \(attempt 1 of 2\)$/,
      JSON.stringify(states),
    );
    assert.match(
      conn.message ?? '',
      /^stopped reconnecting after 2 failures: Server 'web': nothing listens at http:\/\/127\.0\.0\.1:\d+\/mcp \(connection refused\)/,
    );
    assert.ok(logs.some((l) => l.level === 'error' && /stopped reconnecting/.test(l.text)));
  });

  test('HTTP: a server that hangs (alive, silent) is noticed by the heartbeat ping', async (t) => {
    const http = await startHttpFixture();
    t.after(async () => {
      process.kill(http.pid, 'SIGCONT');
      await http.close();
    });
    const { conn } = open(
      t,
      { name: 'frozen', source: 'mcp.json', type: 'http', url: http.url, headers: {}, secrets: [] },
      { ...FAST, startTimeoutMs: 3000, reconnect: { baseDelayMs: 50, maxAttempts: 1 }, heartbeat: { everyMs: 200, timeoutMs: 300 } },
    );
    await conn.start();
    const states: string[] = [];
    conn.onDidChangeState((s) => states.push(`${s.state}: ${s.message ?? ''}`));
    process.kill(http.pid, 'SIGSTOP');
    await waitForState(conn, 'error', 20_000);
    assert.match(
      states[0] ?? '',
      /^starting: server stopped answering \(a ping heartbeat failed: .*timed out.*\); reconnecting in 0\.05 s \(attempt 1 of 1\)$/i,
      JSON.stringify(states),
    );
    assert.match(conn.message ?? '', /^stopped reconnecting after 1 failure: /);
  });

  test('HTTP: a server that answers ping with an error is alive: the heartbeat leaves it running', async (t) => {
    const http = await startHttpFixture(['--no-ping']);
    t.after(() => http.close());
    const { conn, logs } = open(
      t,
      { name: 'noping', source: 'mcp.json', type: 'http', url: http.url, headers: {}, secrets: [] },
      { ...FAST, heartbeat: { everyMs: 100, timeoutMs: 2000 } },
    );
    await conn.start();
    const states: string[] = [];
    conn.onDidChangeState((s) => states.push(s.state));
    await new Promise((r) => setTimeout(r, 800)); // several heartbeats, each answered "Method not found"
    assert.deepEqual(states, [], JSON.stringify(logs.slice(-5)));
    assert.equal(conn.state, 'running');
    assert.equal(resultText(await conn.callTool('echo', { message: 'still here' })), 'still here');
  });

  test('HTTP: a legacy SSE server is reached through the fallback with a new client', async (t) => {
    const http = await startHttpFixture(['--legacy-sse']);
    t.after(() => http.close());
    const { conn, logs } = open(t, { name: 'legacy', source: 'settings-user', type: 'http', url: http.url, headers: {}, secrets: [] });
    await conn.start();
    assert.ok(
      logs.some((l) => /Streamable HTTP answered 405; trying the legacy SSE transport/.test(l.text)),
      JSON.stringify(logs),
    );
    assert.equal(resultText(await conn.callTool('echo', { message: 'via sse' })), 'via sse');
    await conn.stop();
    assert.equal(conn.state, 'stopped');
    // "type": "sse" goes there directly
    const direct = open(t, { name: 'direct', source: 'mcp.json', type: 'sse', url: http.url, headers: {}, secrets: [] });
    await direct.conn.start();
    assert.ok(!direct.logs.some((l) => /trying the legacy SSE transport/.test(l.text)));
    assert.equal(resultText(await direct.conn.callTool('echo', { message: 'sse only' })), 'sse only');
    // a wrong path: neither transport answers, and the message says where to look
    const wrong = open(t, {
      name: 'wrong',
      source: 'mcp.json',
      type: 'http',
      url: http.url.replace('/mcp', '/nope'),
      headers: {},
      secrets: [],
    }).conn;
    await assert.rejects(
      wrong.start(),
      /Server 'wrong' answered HTTP 404 at http:\/\/127\.0\.0\.1:\d+\/nope \(tried Streamable HTTP and SSE\)\. Check "url"/,
    );
  });

  test('reconnects after a crash, with the crash in the log; gives up after 5 failed tries', async (t) => {
    const dir = await tempDir(t);
    const launcher = path.join(dir, 'launch.sh');
    await script(launcher, fixtureScript);
    const { conn, logs } = open(t, { ...fixtureStdio('crashy'), command: launcher, args: [] });
    const states: string[] = [];
    conn.onDidChangeState((s) => states.push(`${s.state}${s.message ? `: ${s.message}` : ''}`));
    await conn.start();
    const firstPid = conn.pid;
    await assert.rejects(
      conn.callTool('crash', {}),
      (e: Error) => e instanceof CallError && e.kind === 'closed' && e.message === "Server 'crashy' closed the connection",
    );
    await waitFor(() => states.length >= 3 && conn.state === 'running', 'the reconnect');
    assert.notEqual(conn.pid, firstPid);
    assert.deepEqual(
      states.map((s) => s.split(':')[0]),
      ['starting', 'running', 'starting', 'running'],
    );
    assert.match(
      states[2]!,
      /^starting: server exited with code 3; last stderr: fixture: the crash tool was called; exiting with code 3; reconnecting in 0.02 s \(attempt 1 of 5\)$/,
    );
    assert.ok(logs.some((l) => l.text === '[stderr] fixture: the crash tool was called; exiting with code 3'));
    assert.equal(resultText(await conn.callTool('echo', { message: 'back' })), 'back');

    // From now on the server cannot start: five tries, then it stops and says why.
    await script(launcher, 'echo "fatal: license expired" >&2\nexit 4');
    states.length = 0;
    await conn.callTool('crash', {}).catch(() => undefined);
    await waitForState(conn, 'error');
    assert.equal(states.filter((s) => /^starting: .*reconnecting in/.test(s)).length, 5);
    assert.match(
      conn.message ?? '',
      /^stopped reconnecting after 5 failures: Server 'crashy' exited during start-up \(exit code 4\)\.\nLast stderr lines:\nfatal: license expired$/,
    );
  });

  test('tools/list_changed refreshes the tools and fires onDidChangeTools', async (t) => {
    const { conn } = open(t, fixtureStdio('dyn'));
    await conn.start();
    const changed = new Promise<readonly string[]>((resolve) => conn.onDidChangeTools((tools) => resolve(tools.map((x) => x.name))));
    await conn.callTool('add_tool', { name: 'brand_new' });
    assert.ok((await changed).includes('brand_new'));
    assert.ok(conn.tools.some((x) => x.name === 'brand_new'));
    assert.equal(resultText(await conn.callTool('brand_new', { message: 'yo' })), 'brand_new: yo');
  });

  test('timeout, progress resetting the timeout, and cancel', async (t) => {
    const { conn, logs } = open(t, fixtureStdio('timing'));
    await conn.start();
    await assert.rejects(
      conn.callTool('hang', {}, { timeoutMs: 300 }),
      (e: Error) => e instanceof CallError && e.kind === 'timeout' && e.message === 'Timed out after 0.3 s',
    );
    assert.ok(logs.some((l) => l.level === 'error' && /^call hang: Timed out after 0.3 s after \d+ ms$/.test(l.text)));

    const progress: string[] = [];
    const slow = await conn.callTool(
      'slow',
      { ms: 1200, steps: 8 },
      { timeoutMs: 500, onProgress: (p) => progress.push(`${p.progress}/${p.total}`) },
    );
    assert.equal(resultText(slow), 'Finished 8 steps in 1200 ms');
    // the SDK may drop the last notification when the result overtakes it
    assert.deepEqual(progress.slice(0, 7), ['1/8', '2/8', '3/8', '4/8', '5/8', '6/8', '7/8']);

    const controller = new AbortController();
    setTimeout(() => controller.abort('user pressed Cancel'), 150);
    await assert.rejects(
      conn.callTool('hang', {}, { signal: controller.signal }),
      (e: Error) => e instanceof CallError && e.kind === 'cancelled' && e.message === 'Cancelled',
    );
    await assert.rejects(conn.callTool('echo', { message: 'x' }, { signal: AbortSignal.abort() }), /^CallError: Cancelled$/);
    assert.equal(resultText(await conn.callTool('echo', { message: 'still alive' })), 'still alive');

    // A caller's signal that outlives many calls (a run's, the agent's) keeps none of them: each call listens to it
    // only while it runs, and an abort after the calls ended cancels nothing and sends nothing.
    const run = new AbortController();
    for (let i = 0; i < 5; i++)
      assert.equal(resultText(await conn.callTool('echo', { message: `n${i}` }, { signal: run.signal })), `n${i}`);
    assert.equal(getEventListeners(run.signal, 'abort').length, 0);
    const pending = conn.callTool('hang', {}, { signal: run.signal });
    assert.equal(getEventListeners(run.signal, 'abort').length, 1, "a running call listens to the caller's signal");
    run.abort('stop');
    await assert.rejects(pending, (e: Error) => e instanceof CallError && e.kind === 'cancelled');
  });

  test('elicitation: the hook answers (accept); without a hook the request is declined', async (t) => {
    const { conn } = open(t, fixtureStdio('ask'));
    await conn.start();
    assert.equal(resultText(await conn.callTool('elicit_name', {})), 'action: decline\ncontent: null');
    const asked: string[] = [];
    conn.onElicit = async (server, params) => {
      asked.push(`${server}: ${params.message}`);
      return { action: 'accept', content: { name: 'Ada Lovelace', age: 36 } };
    };
    assert.equal(resultText(await conn.callTool('elicit_name', {})), 'action: accept\ncontent: {"name":"Ada Lovelace","age":36}');
    assert.deepEqual(asked, ['ask: Who is asking?']);
    conn.onElicit = async () => ({ action: 'cancel' });
    assert.equal(resultText(await conn.callTool('elicit_name', {})), 'action: cancel\ncontent: null');
  });

  test('URL-mode elicitation reaches the hook only where the client declares it (the extension does, the CLI does not)', async (t) => {
    const asked: unknown[] = [];
    const handler = async (_server: string, params: unknown) => {
      asked.push(params);
      return { action: 'decline' as const };
    };
    const withUrl = open(t, fixtureStdio('url'), { ...FAST, urlElicitation: true }).conn;
    withUrl.onElicit = handler;
    await withUrl.start();
    assert.equal(resultText(await withUrl.callTool('elicit_url', { url: 'https://example.com/sign-in' })), 'action: decline');
    assert.equal(asked.length, 1);
    assert.deepEqual(
      { ...(asked[0] as object), elicitationId: undefined, _meta: undefined },
      {
        mode: 'url',
        message: 'Sign in to the example service to continue.',
        url: 'https://example.com/sign-in',
        elicitationId: undefined,
        _meta: undefined,
      },
    );

    // A client that does not declare it never gets the request: the server's own SDK refuses to send it.
    const formOnly = open(t, fixtureStdio('form-only')).conn;
    formOnly.onElicit = handler;
    await formOnly.start();
    const refused = await formOnly.callTool('elicit_url', {});
    assert.equal(refused.isError, true);
    assert.match(resultText(refused), /does not support url elicitation/i);
    assert.equal(asked.length, 1, 'the hook was not asked');
  });

  test("elicitation: a call's timeout stands still while the user answers, and the caller hears of the wait", async (t) => {
    const { conn, logs } = open(t, fixtureStdio('slow-user'));
    await conn.start();
    conn.onElicit = async () => {
      await new Promise((r) => setTimeout(r, 900));
      return { action: 'accept', content: { name: 'Grace Hopper' } };
    };
    const waits: boolean[] = [];
    const result = await conn.callTool('elicit_name', {}, { timeoutMs: 300, onWaitingForUser: (w) => waits.push(w) });
    assert.equal(resultText(result), 'action: accept\ncontent: {"name":"Grace Hopper"}');
    assert.deepEqual(waits, [true, false]);
    assert.ok(
      logs.some((l) => /waiting for the user to answer an elicitation request/.test(l.text)),
      JSON.stringify(logs),
    );
    // Without a form open the same timeout still applies.
    await assert.rejects(conn.callTool('hang', {}, { timeoutMs: 300 }), (e: Error) => e instanceof CallError && e.kind === 'timeout');
  });

  test('paginated tools/list; a result that breaks its outputSchema is still returned, raw', async (t) => {
    const { conn } = open(t, { ...fixtureStdio('odd'), args: ['--import', 'tsx', path.join(REPO, 'test/unit/helpers/mcpOddServer.ts')] });
    await conn.start();
    assert.deepEqual(
      conn.tools.map((x) => x.name),
      ['weather', 'no_structured', 'bad_schema', 'page2_tool'],
    );
    const weather: ToolResult = await conn.callTool('weather', {});
    assert.deepEqual(weather.structuredContent, { temperature: 'hot', extra: true });
    assert.equal(resultText(weather), 'It is hot.');
    assert.equal(resultText(await conn.callTool('no_structured', {})), 'plain text only');
    assert.deepEqual((await conn.callTool('bad_schema', {})).structuredContent, { x: 1 });
  });

  test('server-filesystem keeps its directories (no roots declared) and answers', async (t) => {
    const dir = await tempDir(t);
    await writeFile(path.join(dir, 'note.txt'), 'hello file');
    const { conn } = open(t, { ...fixtureStdio('fs'), args: [FILESYSTEM_SERVER, dir] });
    await conn.start();
    const listed = resultText(await conn.callTool('list_allowed_directories', {}));
    assert.ok(listed.includes(dir), listed);
    const read = await conn.callTool('read_text_file', { path: path.join(dir, 'note.txt') });
    assert.equal(resultText(read), 'hello file');
  });
});

test('the stderr tail keeps the last 40 lines and at most 8 KB', () => {
  const seen: string[] = [];
  const tail = new StderrTail((line) => seen.push(line));
  tail.push('partial');
  assert.deepEqual(seen, []);
  tail.push(' line\r\n');
  for (let i = 0; i < 100; i++) tail.push(`line ${i}\n`);
  assert.equal(seen.length, 101);
  assert.equal(seen[0], 'partial line');
  const lines = tail.text().split('\n');
  assert.equal(lines.length, 40);
  assert.equal(lines.at(-1), 'line 99');
  const mark = tail.mark();
  tail.push(`${'x'.repeat(5000)}\n${'y'.repeat(5000)}\nlast`);
  tail.flush();
  assert.ok(tail.text().length <= 8192 + 2);
  assert.equal(tail.text(mark).split('\n').at(-1), 'last');
  assert.equal(tail.text(mark).split('\n').length, 2, 'the 5000-character x line no longer fits');
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
