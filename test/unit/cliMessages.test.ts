// What the CLI says where a new user got stuck: --help names every command, a --policy file that is not there, a URL
// whose port fetch refuses, and a step line that shows only the first line of a longer result.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';
import { runCli, workspace } from './helpers/cliHarness';

const ws = workspace();
after(() => ws.remove());

const require = createRequire(import.meta.url);

/** A server with one plan tool whose single step, `report`, answers three lines of text. */
function multiLineServer(): string {
  const file = join(ws.dir, 'multiline.cjs');
  writeFileSync(
    file,
    `const { Server } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/index.js'))});
     const { StdioServerTransport } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/server/stdio.js'))});
     const { CallToolRequestSchema, ListToolsRequestSchema } = require(${JSON.stringify(require.resolve('@modelcontextprotocol/sdk/types.js'))});
     const server = new Server({ name: 'multiline', version: '1' }, { capabilities: { tools: {} } });
     const tool = (name) => ({ name, inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } });
     server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [tool('plan_report'), tool('report'), tool('report_one')] }));
     const plan = { kind: 'orchestrated_plan', version: '1', status: 'ok', instruction: 'Report twice.',
       next_actions: [{ tool: 'report', args: {} }, { tool: 'report_one', args: {} }] };
     server.setRequestHandler(CallToolRequestSchema, (req) => ({ content: [{ type: 'text', text:
       req.params.name === 'plan_report' ? JSON.stringify(plan)
       : req.params.name === 'report' ? '\\nBuilt 3 packages\\n  a: ok\\n  b: ok\\n' : 'All green' }] }));
     server.connect(new StdioServerTransport());
     process.stdin.on('end', () => process.exit(0));`,
  );
  return quoteCommandLine([process.execPath, file]);
}

describe('the CLI in words', { concurrency: 4 }, () => {
  it('--help lists every command: validate, run, tools, revert, servers, policy check and policy explain', async () => {
    const help = await runCli(['--help']);
    assert.equal(help.code, 0);
    for (const usage of [
      'plangate validate ',
      'plangate run ',
      'plangate tools ',
      'plangate revert ',
      'plangate servers ',
      'plangate policy check ',
      'plangate policy explain ',
    ])
      assert.ok(help.stdout.includes(`\n  ${usage}`), `--help shows "${usage}…":\n${help.stdout}`);
    const unknown = await runCli(['frobnicate']);
    assert.match(unknown.stderr, /the commands are validate, run, tools, revert, servers and policy/);
  });

  it('run --help documents --sampling: declined by default, ask on the terminal', async () => {
    const help = await runCli(['run', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /\[--sampling decline\|ask\]/);
    assert.match(
      help.stdout,
      /--sampling MODE {4}what a server's sampling request .* "decline"\n\s+\(default: refused, with a line on stderr\) or "ask"/,
    );
  });

  it('--policy with a file that is not there says so and what the file should hold, not a raw ENOENT (exit 2)', async () => {
    const missing = join(ws.dir, 'no-such-rules.json');
    const r = await runCli(['run', '--server', 'node server.js', '--tool', 't', '--policy', missing]);
    assert.equal(r.code, 2);
    assert.ok(
      r.stderr.startsWith(
        `plangate run: --policy: there is no file ${missing}. Give the JSON file that holds your rules, {"rules": [{"id", "decision", "reason", …}]}`,
      ),
      r.stderr,
    );
    assert.match(r.stderr, /check it with plangate policy check FILE/);
    assert.doesNotMatch(r.stderr, /ENOENT/);
    const folder = await runCli(['run', '--server', 'node server.js', '--tool', 't', '--policy', ws.dir]);
    assert.equal(folder.code, 2);
    assert.match(folder.stderr, /--policy: .* is a folder, not a file\./);
  });

  it('--url on a port fetch refuses (127.0.0.1:1) names the host:port, why, and what to do (exit 2)', async () => {
    const r = await runCli(['run', '--url', 'http://127.0.0.1:1/mcp', '--tool', 't', '--yes']);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      `plangate run: Server '127.0.0.1:1': cannot connect to 127.0.0.1:1: its port is one that fetch refuses to use (a "bad port" of the Fetch standard, such as 1, 21, 22, 25 or 6000). Run the server on another port and fix --url.\n`,
    );
  });

  it("a step's line shows the first line of its result and marks that more lines were cut", async () => {
    const r = await runCli(['run', '--server', multiLineServer(), '--tool', 'plan_report', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    const steps = r.stdout.split('\n').filter((l) => /^\s+\[\d\/2\]/.test(l));
    assert.deepEqual(steps, ['  [1/2] report … ok: Built 3 packages … (+2 lines)', '  [2/2] report_one … ok: All green']);
  });
});
