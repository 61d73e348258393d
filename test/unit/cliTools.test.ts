// `plangate tools` (a server's tools, a line each) and `--server NAME` (a server of ./.vscode/mcp.json by its name),
// run for real against the fixture server and a hostile one.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';
import { readCallLog } from '../../fixture/callLog';
import { bundles, fixtureServer, report, runCli, workspace } from './helpers/cliHarness';
import { FILESYSTEM_SERVER } from './helpers/mcpFixture';

const ws = workspace();
after(() => ws.remove());

const SDK_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/server/index.js');
const SDK_STDIO = createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/server/stdio.js');
const SDK_TYPES = createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/types.js');

/** A server whose tool names, titles and descriptions try to take over the terminal or run on. */
function hostileServer(): string {
  const file = join(ws.dir, 'hostile.cjs');
  writeFileSync(
    file,
    `const { Server } = require(${JSON.stringify(SDK_SERVER)});
     const { StdioServerTransport } = require(${JSON.stringify(SDK_STDIO)});
     const { ListToolsRequestSchema } = require(${JSON.stringify(SDK_TYPES)});
     const server = new Server({ name: 'hostile', version: '1' }, { capabilities: { tools: {} } });
     server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [
       { name: 'wipe\\u001b[2J', title: 'Safe \\u202eetirw', description: 'first line\\u0007\\nsecond line', inputSchema: { type: 'object' },
         annotations: { readOnlyHint: true } },
       { name: 'long', description: ${JSON.stringify('x'.repeat(500))}, inputSchema: { type: 'object' },
         annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true } },
     ] }));
     server.connect(new StdioServerTransport());
     process.stdin.on('end', () => process.exit(0));`,
  );
  return quoteCommandLine([process.execPath, file]);
}

describe('plangate tools', { concurrency: 3 }, () => {
  it("lists a server's tools: name, hints, title and the first line of the description (exit 0); nothing is called", async () => {
    const w = workspace();
    try {
      const r = await runCli(['tools', '--server', await fixtureServer(w, ['--demo'])]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split('\n');
      assert.equal(lines[0], "Server 'fixture.js' lists 15 tools:");
      assert.ok(
        lines.some((l) => /^ {2}succeed +read-only +Step: succeeds with its message\.$/.test(l)),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => /^ {2}create_screen +writes, idempotent +Step: create a screen module/.test(l)),
        r.stdout,
      );
      assert.ok(
        lines.some((l) => /^ {2}create_model +no hints +Create a record\./.test(l)),
        r.stdout,
      );
      assert.deepEqual(w.callLog(), [], 'no tool was called');
    } finally {
      w.remove();
    }
  });

  it('--json: {server, tools: [{name, title?, hints, description?}]}', async () => {
    const w = workspace();
    try {
      const j = report<{ server: string; tools: { name: string; hints: { effect: string }; description?: string }[] }>(
        await runCli(['tools', '--json', '--server', await fixtureServer(w, ['--demo'])]),
      );
      assert.equal(j.server, 'fixture.js');
      const screen = j.tools.find((t) => t.name === 'create_screen');
      assert.deepEqual(screen?.hints, { effect: 'write', openWorld: false, idempotent: true });
      assert.match(screen?.description ?? '', /^Step: create a screen module/);
    } finally {
      w.remove();
    }
  });

  it("shows a hostile server's text escaped, cut to one line, and marks what was cut", async () => {
    const r = await runCli(['tools', '--server', hostileServer()]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdoutBytes.includes(0x1b) && !r.stdoutBytes.includes(0x07), 'no raw escape or bell');
    assert.doesNotMatch(r.stdout, /\u202e/);
    const lines = r.stdout.split('\n');
    assert.match(lines[1]!, /^ {2}wipe\\x1b\[2J +read-only +Safe \\u202eetirw — first line\\x07 … \(\+1 line\)$/);
    assert.match(lines[2]!, /^ {2}long +destructive, open world +x{100}… \(\+400 characters\)$/);
    assert.doesNotMatch(r.stdout, /second line/);
  });

  it('exits 2 with the reason when the server cannot start', async () => {
    const r = await runCli(['tools', '--server', 'plangate-no-such-command-xyz --flag']);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^plangate tools: Server 'plangate-no-such-command-xyz' could not start: command 'plangate-no-such-command-xyz' was not found/,
    );
  });
});

describe('--server NAME: a server of ./.vscode/mcp.json', { concurrency: 3 }, () => {
  async function project(servers: Record<string, unknown>, inputs: unknown[] = []): Promise<string> {
    const dir = join(ws.dir, `project-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(dir, '.vscode'), { recursive: true });
    writeFileSync(join(dir, '.vscode', 'mcp.json'), JSON.stringify({ servers, inputs }, null, 2));
    return dir;
  }
  const fixtureEntry = async (extra: string[] = []) => ({
    type: 'stdio',
    command: process.execPath,
    args: [
      (await bundles()).fixture,
      '--demo',
      '--root',
      '${workspaceFolder}/out',
      '--call-log',
      '${workspaceFolder}/calls.jsonl',
      ...extra,
    ],
  });

  it('starts it as VS Code would (${workspaceFolder} is this folder) for run and tools, and calls it by its name', async () => {
    const dir = await project({ demo: await fixtureEntry() });
    const tools = await runCli(['tools', '--server', 'demo'], { cwd: dir });
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(tools.stdout, /^Server 'demo' lists 15 tools:/);
    const run = await runCli(['run', '--server', 'demo', '--tool', 'plan_scaffold', '--args', '{"components":["Box"]}', '--yes'], {
      cwd: dir,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /'plan_scaffold' on server 'demo' returned a plan/);
    assert.ok(existsSync(join(dir, 'out', 'src', 'modules', 'payroll', 'Box.tsx')), 'the step wrote under ${workspaceFolder}/out');
    assert.deepEqual(
      readCallLog(join(dir, 'calls.jsonl')).map((c) => c.tool),
      ['plan_scaffold', 'create_screen', 'create_component'],
    );
  });

  it('a word that names no server of mcp.json is still a command line', async () => {
    const dir = await project({ demo: await fixtureEntry() });
    const r = await runCli(['tools', '--server', 'plangate-no-such-command-xyz'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /command 'plangate-no-such-command-xyz' was not found/);
  });

  it('refuses, naming the fix, a server that needs an ${input:…} or whose entry is broken (exit 2, nothing started)', async () => {
    const dir = await project(
      {
        secret: { ...(await fixtureEntry(['--name', '${input:token}'])) },
        broken: { type: 'stdio', args: ['x'] },
      },
      [{ id: 'token', type: 'promptString', description: 'API token', password: true }],
    );
    const needsInput = await runCli(['tools', '--server', 'secret'], { cwd: dir });
    assert.equal(needsInput.code, 2);
    assert.match(
      needsInput.stderr,
      /server 'secret' of \.vscode\/mcp\.json asks for \$\{input:token\}, which the CLI does not ask for\. Start it from VS Code, or give its command line with --server/,
    );
    const broken = await runCli(['run', '--server', 'broken', '--tool', 'x'], { cwd: dir });
    assert.equal(broken.code, 2);
    assert.match(
      broken.stderr,
      /server 'broken' of \.vscode\/mcp\.json cannot start: \.vscode\/mcp\.json:\d+:\d+: servers\.broken\.command: a "stdio" server needs "command"/,
    );
  });
});

/** A server that lists `needs_sampling` only to a client that declares sampling, and asks for one while listing. */
function samplingServer(): string {
  const file = join(ws.dir, 'sampling.cjs');
  writeFileSync(
    file,
    `const { Server } = require(${JSON.stringify(SDK_SERVER)});
     const { StdioServerTransport } = require(${JSON.stringify(SDK_STDIO)});
     const { ListToolsRequestSchema } = require(${JSON.stringify(SDK_TYPES)});
     const server = new Server({ name: 'sampler', version: '1' }, { capabilities: { tools: {} } });
     const tool = (name) => ({ name, inputSchema: { type: 'object' } });
     server.setRequestHandler(ListToolsRequestSchema, async () => {
       if (!server.getClientCapabilities()?.sampling) return { tools: [tool('plain')] };
       let heard;
       try {
         await server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
         heard = 'answered';
       } catch (e) {
         heard = 'refused_' + String(e.code).replace('-', 'minus');
       }
       return { tools: [tool('plain'), tool('needs_sampling'), tool(heard)] };
     });
     server.connect(new StdioServerTransport());
     process.stdin.on('end', () => process.exit(0));`,
  );
  return quoteCommandLine([process.execPath, file]);
}

describe('plangate tools and run share one connection', () => {
  it('tools declares sampling as run does, so it lists the tools run would see; a sampling request while listing is declined', async () => {
    const r = await runCli(['tools', '--json', '--server', samplingServer()]);
    assert.equal(r.code, 0, r.stderr);
    const names = report<{ tools: { name: string }[] }>(r).tools.map((t) => t.name);
    assert.deepEqual(names, ['plain', 'needs_sampling', 'refused_minus1'], 'the server saw sampling declared, and its request refused');
    assert.match(
      r.stderr,
      /^plangate tools: server 'sampling\.cjs' asked for a sampling request while its tools were listed; declined \(plangate tools calls no tool\)\.$/m,
    );
  });

  it('tools offers --root folders as roots, as run does: server-filesystem started without directories is given the folder', async () => {
    const ws = workspace();
    after(() => ws.remove());
    const w = ws.root;
    const server = quoteCommandLine([process.execPath, FILESYSTEM_SERVER]);
    const withRoot = await runCli(['tools', '--verbose', '--server', server, '--root', w]);
    assert.equal(withRoot.code, 0, withRoot.stderr);
    assert.match(withRoot.stdout, /read_text_file/);
    assert.ok(withRoot.stderr.includes(`roots/list: answered ${pathToFileURL(w).href}`), withRoot.stderr);
    assert.match(withRoot.stderr, /Updated allowed directories from MCP roots: 1 valid/);
    const without = await runCli(['tools', '--verbose', '--server', server]);
    assert.equal(without.code, 0, without.stderr);
    assert.ok(!without.stderr.includes('roots/list'), 'no roots are offered without --root');
  });
});
