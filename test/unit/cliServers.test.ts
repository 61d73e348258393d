// `plangate servers`, run for real in a workspace folder with a .vscode/mcp.json.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { quoteCommandLine } from '../../src/cli/splitCommandLine';
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
    "nocmd": { "type": "stdio", "args": ["--port", "3000"] },
    "home": { "command": "\${userHome}\${/}bin\${/}srv", "args": ["--token", "\${env:SECRET_TOKEN}", "\${input:key}"] },
  },
}`;

describe('plangate servers', { concurrency: 3 }, () => {
  it('lists the servers of .vscode/mcp.json (name, type, command line or URL) and its problems with file:line:column', async () => {
    const dir = join(ws.dir, 'project');
    mkdirSync(join(dir, '.vscode'), { recursive: true });
    writeFileSync(join(dir, '.vscode', 'mcp.json'), MCP_JSON);
    const r = await runCli(['servers'], { cwd: dir, env: { SECRET_TOKEN: 'do-not-print-me' } });
    assert.equal(r.code, 1, 'the file has a problem');
    assert.equal(
      r.stdout,
      [
        `fixture       stdio  node 'fixture server.js' --root ${quoteCommandLine([dir])}`,
        'remote        http   http://127.0.0.1:3000/mcp',
        'evil\\x1b[31m  stdio  x',
        `home          stdio  ${quoteCommandLine([join(homedir(), 'bin', 'srv'), '--token', '${env:SECRET_TOKEN}', '${input:key}'])}`,
        '',
      ].join('\n'),
    );
    assert.doesNotMatch(r.stdout, /secret-token|do-not-print-me/, 'headers and environment values are not shown');
    assert.equal(
      r.stderr,
      [
        '.vscode/mcp.json:6:45: servers.broken.command: must not be empty',
        '.vscode/mcp.json:8:14: servers.nocmd.command: a "stdio" server needs "command" (the program to start)',
        '',
      ].join('\n'),
    );

    const j = report<{ servers: { name: string; type: string }[]; problems: { line: number; path: string }[] }>(
      await runCli(['servers', '--json'], { cwd: dir }),
    );
    assert.deepEqual(
      j.servers.map((s) => [s.name, s.type]),
      [
        ['fixture', 'stdio'],
        ['remote', 'http'],
        ['evil\u001b[31m', 'stdio'],
        ['home', 'stdio'],
      ],
    );
    assert.deepEqual(
      j.problems.map((p) => [p.line, p.path]),
      [
        [6, 'servers.broken.command'],
        [8, 'servers.nocmd.command'],
      ],
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
