// The CLI's text handling: `--server` command lines split like a shell would, and server text made safe for a terminal.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { quoteCommandLine, splitCommandLine } from '../../src/cli/splitCommandLine';
import { safeJson, safeText } from '../../src/cli/safeText';
import { serverName } from '../../src/cli/runCommand';

const words = (line: string) => {
  const r = splitCommandLine(line);
  assert.ok(r.ok, `expected ${JSON.stringify(line)} to split, got ${r.ok ? '' : r.message}`);
  return r.words;
};

describe('splitCommandLine', () => {
  it('splits on whitespace and honours quotes and backslashes like a POSIX shell', () => {
    assert.deepEqual(words('node  server.js --root /tmp'), ['node', 'server.js', '--root', '/tmp']);
    assert.deepEqual(words(`node "my server.js" 'a b' c\\ d`), ['node', 'my server.js', 'a b', 'c d']);
    assert.deepEqual(words(`x --name="a b" 'it'\\''s'`), ['x', '--name=a b', "it's"]);
    assert.deepEqual(words(`x "say \\"hi\\" \\\\ \\$HOME" '\\n'`), ['x', 'say "hi" \\ $HOME', '\\n']);
    assert.deepEqual(words(`x "" ''`), ['x', '', '']);
  });

  it('keeps shell syntax as plain text: no variables, globs, pipes or redirections', () => {
    assert.deepEqual(words('echo $HOME *.ts | tee > out; rm -rf /'), ['echo', '$HOME', '*.ts', '|', 'tee', '>', 'out;', 'rm', '-rf', '/']);
  });

  it('reports unterminated quotes and a trailing backslash', () => {
    assert.deepEqual(splitCommandLine(`node 'server.js`), { ok: false, message: 'unterminated single quote at character 6' });
    assert.equal(splitCommandLine('node "x').ok, false);
    assert.equal(splitCommandLine('node x\\').ok, false);
  });

  it('gives back any list of words that quoteCommandLine quoted', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme-ascii' }), { minLength: 1, maxLength: 6 }), (list) => {
        const r = splitCommandLine(quoteCommandLine(list));
        assert.ok(r.ok);
        assert.deepEqual(r.words, list);
      }),
      { numRuns: 300 },
    );
  });
});

describe('safeText', () => {
  it('shows control, escape, bidi and line-separator characters as visible escapes', () => {
    assert.equal(
      safeText('\u001b[31mred\u001b[0m \u0007 \u0000 \r\n \u202eevil\u202c \u2028 \u009b x\ty'),
      '\\x1b[31mred\\x1b[0m \\x07 \\x00 \\r\\n \\u202eevil\\u202c \\u2028 \\x9b x\ty',
    );
    assert.equal(safeText('a\nb\rc', { keepNewlines: true }), 'a\nb\\rc');
  });

  it('cuts long text and says how much was left out', () => {
    assert.equal(safeText('A'.repeat(20_000), { max: 10 }), 'AAAAAAAAAA… (+19,990 characters)');
  });

  it('never throws, whatever it is given', () => {
    fc.assert(fc.property(fc.anything(), (v) => typeof safeText(v) === 'string'));
  });

  it('JSON for stdout parses to the same value and carries no raw bidi or C1 characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, s) => {
        const input = { value, s: `${s}\u202e\u0085\u2028\u007f` };
        const text = safeJson(input);
        assert.doesNotMatch(text, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029]/);
        assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(input)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('serverName', () => {
  const name = (line: string, extra: { name?: string } = {}) => serverName({ command: words(line), ...extra });
  it('names a server by the script or package its launcher runs, not by the launcher', () => {
    assert.equal(name('node dist/fixtureServer.js --root /tmp/try'), 'fixtureServer.js');
    assert.equal(name('/usr/local/bin/node --enable-source-maps ./server.mjs'), 'server.mjs');
    assert.equal(name('npx -y @modelcontextprotocol/server-filesystem /projects'), '@modelcontextprotocol/server-filesystem');
    assert.equal(name('uvx mcp-server-git --repository .'), 'mcp-server-git');
    assert.equal(name('python3 -m my_server --port 1'), 'my_server');
    assert.equal(name('deno run -A server.ts'), 'server.ts');
    assert.equal(name('java -jar build/server.jar'), 'server.jar');
  });
  it('names any other program by its file name, a URL by its host, and --name wins', () => {
    assert.equal(name('/opt/tools/my-mcp-server --stdio'), 'my-mcp-server');
    assert.equal(name('node'), 'node');
    assert.equal(serverName({ url: 'http://127.0.0.1:3000/mcp' }), '127.0.0.1:3000');
    assert.equal(name('node dist/fixtureServer.js', { name: 'demo' }), 'demo');
    assert.equal(name('node dist/fixtureServer.js', { name: '  ' }), 'fixtureServer.js');
  });
});
