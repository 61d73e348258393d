// `plangate servers`, run for real in a workspace folder with a .vscode/mcp.json.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { report, runCli, workspace } from './helpers/cliHarness';

const ws = workspace();
after(() => ws.remove());

const MCP_JSON = `{
  // VS Code's format: comments and trailing commas are fine
  "servers": {
    "fixture": { "type": "stdio", "command": "node", "args": ["fixture server.js", "--root", "\${workspaceFolder}"] },
    "remote": { "url": "http://127.0.0.1:3000/mcp", "headers": { "Authorization": "Bearer secret-token" } },
    "broken": { "type": "stdio", "command": "" },
    "evil\\u001b[31m": { "command": "x" },
  },
}`;

describe('plangate servers', { concurrency: 3 }, () => {
  it('lists the servers of .vscode/mcp.json (name, type, command line or URL) and its problems with file:line', async () => {
    const dir = join(ws.dir, 'project');
    mkdirSync(join(dir, '.vscode'), { recursive: true });
    writeFileSync(join(dir, '.vscode', 'mcp.json'), MCP_JSON);
    const r = await runCli(['servers'], { cwd: dir });
    assert.equal(r.code, 1, 'the file has a problem');
    assert.equal(
      r.stdout,
      [
        "fixture       stdio  node 'fixture server.js' --root '${workspaceFolder}'",
        'remote        http   http://127.0.0.1:3000/mcp',
        'evil\\x1b[31m  stdio  x',
        '',
      ].join('\n'),
    );
    assert.doesNotMatch(r.stdout, /secret-token/, 'headers are not shown');
    assert.equal(r.stderr, '.vscode/mcp.json:6:45: servers.broken.command: must not be empty\n');

    const j = report<{ servers: { name: string; type: string }[]; problems: { line: number; path: string }[] }>(
      await runCli(['servers', '--json'], { cwd: dir }),
    );
    assert.deepEqual(
      j.servers.map((s) => [s.name, s.type]),
      [
        ['fixture', 'stdio'],
        ['remote', 'http'],
        ['evil\u001b[31m', 'stdio'],
      ],
    );
    assert.deepEqual(
      j.problems.map((p) => [p.line, p.path]),
      [[6, 'servers.broken.command']],
    );
  });

  it('exits 0 for a file without problems, and 2 when there is no .vscode/mcp.json', async () => {
    const dir = join(ws.dir, 'clean');
    mkdirSync(join(dir, '.vscode'), { recursive: true });
    writeFileSync(join(dir, '.vscode', 'mcp.json'), '{"servers": {"only": {"command": "node"}}}');
    const ok = await runCli(['servers'], { cwd: dir });
    assert.equal(ok.code, 0);
    assert.equal(ok.stdout, 'only  stdio  node\n');

    const none = await runCli(['servers'], { cwd: ws.root });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /there is no \.vscode\/mcp\.json in /);
  });

  it('reports a syntax error with its line and column', async () => {
    const dir = join(ws.dir, 'syntax');
    mkdirSync(join(dir, '.vscode'), { recursive: true });
    writeFileSync(join(dir, '.vscode', 'mcp.json'), '{\n  "servers": {\n    "a": { "command": "node" \n    "b": {}\n  }\n}');
    const r = await runCli(['servers'], { cwd: dir });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^\.vscode\/mcp\.json:4:5: syntax error: expected a comma/m);
  });
});
