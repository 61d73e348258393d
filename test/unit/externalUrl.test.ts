// The one decision about URLs a server asks Plangate to open (URL elicitation, sign-in pages, links in results, an
// app's open-link): http: and https: only, in a form no opener reads differently, shown with hidden characters marked.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkExternalUrl, MAX_EXTERNAL_URL } from '../../src/core/base/externalUrl';

const refused = (raw: unknown) => {
  const r = checkExternalUrl(raw, 'page of server "acme"');
  assert.equal(r.ok, false, `expected ${JSON.stringify(raw)} to be refused`);
  return r.ok ? '' : r.reason;
};

describe('checkExternalUrl', () => {
  it('refuses every scheme but http: and https:, naming the scheme and what was asked', () => {
    for (const raw of [
      'file:///C:/Windows/System32/calc.exe',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'vscode://vscode.git/clone?url=https://evil.example/r',
      'vscode-insiders://ms-vscode.remote/x',
      'ms-msdt:/id PCWDiagnostic /skip force',
      'search-ms:query=secret&crumb=location:\\\\evil.example\\share',
      'data:text/html,<script>alert(1)</script>',
      'mailto:a@example.com',
      'ftp://example.com/x',
      'smb://evil.example/share',
      'JAVASCRIPT:alert(1)',
      ' \tjavascript:alert(1)',
    ]) {
      const reason = refused(raw);
      assert.match(
        reason,
        /^Plangate did not open the [a-z-]+: page of server "acme": it opens only http: and https: links from servers\.$/,
      );
    }
  });

  it('refuses what is not a URL, a URL with credentials before its host, and one too long', () => {
    assert.match(refused('not a url'), /is not a URL/);
    assert.match(refused(''), /is not a URL/);
    assert.match(refused(undefined), /not a URL \(no text was given\)/);
    assert.match(refused({ href: 'https://example.com' }), /not a URL/);
    assert.match(refused('https://accounts.example.com@evil.example/login'), /user name or password before its host/);
    assert.match(refused(`https://example.com/${'a'.repeat(MAX_EXTERNAL_URL)}`), /characters long, over the 16,384/);
  });

  it('opens http(s) URLs with every character outside RFC 3986 percent-encoded (|, ^, quotes, braces, spaces), the query’s & kept', () => {
    const r = checkExternalUrl('https://evil.example/a|b^c"d`e{f}g\\h<i>j k%41?q=1&r=|^"{}`\'#frag|^"');
    assert.ok(r.ok);
    assert.equal(r.url, 'https://evil.example/a%7Cb%5Ec%22d%60e%7Bf%7Dg/h%3Ci%3Ej%20k%41?q=1&r=%7C%5E%22%7B%7D%60%27#frag%7C%5E%22');
    // What stays is RFC 3986: the query's & and the escapes are the same URL, as the server meant it.
    assert.equal(new URL(r.url).searchParams.get('q'), '1');
  });

  it('drops the newlines and tabs a URL parser drops, and shows the user what the server hid', () => {
    const r = checkExternalUrl('https://good.example\n.evil.example/\u202Ereversed\u200B?x=\t1');
    assert.ok(r.ok);
    assert.equal(r.url, 'https://good.example.evil.example/%E2%80%AEreversed%E2%80%8B?x=1');
    assert.match(r.shown, /^https:\/\/good\.example\.evil\.example\/%E2%80%AEreversed%E2%80%8B\?x=1\n/);
    assert.match(
      r.shown,
      /as the server wrote it, with hidden characters marked: https:\/\/good\.example⟨U\+000A⟩\.evil\.example\/⟨U\+202E⟩reversed⟨U\+200B⟩/,
    );
    assert.doesNotMatch(r.shown, /[\u202E\u200B]/u);
  });

  it('shows an international host as the name it really is (punycode), not its look-alike', () => {
    const r = checkExternalUrl('https://аpple.example/'); // Cyrillic а
    assert.ok(r.ok);
    assert.equal(r.url, 'https://xn--pple-43d.example/');
    assert.equal(r.shown, 'https://xn--pple-43d.example/');
  });

  it('whatever it is given: never throws; what it opens is http(s), ASCII, with no space, quote, control, | or ^', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.webUrl({ withQueryParameters: true, withFragments: true }).map((u) => u + '|^"\n\u202E'),
        ),
        (raw) => {
          const r = checkExternalUrl(raw);
          if (!r.ok) return;
          assert.match(r.url, /^https?:\/\/[!#$%&'()*+,\-./0-9:;=?@A-Z[\]_a-z~]+$/);
        },
      ),
    );
  });
});
