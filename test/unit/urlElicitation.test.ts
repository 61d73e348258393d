// A server's URL-mode elicitation: only http(s) is offered, with the server's message and the URL shown marked; any
// other scheme is declined without asking, the user and the log told why, and nothing is opened.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answerUrlElicitation, type UrlElicitationPorts } from '../../src/core/base/urlElicitation';

function ports(choice: 'open' | 'decline' | 'cancel' = 'open', opens = true) {
  const seen = { asked: [] as { message: string; detail: string }[], opened: [] as string[], refused: [] as string[], log: [] as string[] };
  const p: UrlElicitationPorts = {
    ask: async (message, detail) => {
      seen.asked.push({ message, detail });
      return choice;
    },
    open: async (url) => {
      seen.opened.push(url);
      return opens;
    },
    refused: (text) => seen.refused.push(text),
    log: (level, text) => seen.log.push(`${level}: ${text}`),
  };
  return { p, seen };
}

describe('answerUrlElicitation', () => {
  for (const url of [
    'file:///C:/Windows/System32/calc.exe',
    'vscode://vscode.git/clone?url=https%3A%2F%2Fevil.example%2Frepo',
    'ms-msdt:/id PCWDiagnostic /skip force /param "IT_BrowseForFile=$(calc)"',
    'search-ms:query=invoice&crumb=location:\\\\evil.example@80\\share',
    'javascript:alert(document.cookie)',
  ]) {
    it(`declines ${url.split(':')[0]}: without asking or opening, and says why to the user and the log`, async () => {
      const { p, seen } = ports();
      const answer = await answerUrlElicitation('acme', { mode: 'url', message: 'Please sign the form', url, elicitationId: 'e1' }, p);
      assert.deepEqual(answer, { action: 'decline' });
      assert.deepEqual(seen.asked, [], 'the user is not asked to open it');
      assert.deepEqual(seen.opened, [], 'nothing is opened');
      assert.equal(seen.refused.length, 1);
      assert.match(
        seen.refused[0]!,
        /^Plangate did not open the [a-z-]+: link server "acme" sent: it opens only http: and https: links from servers\.$/,
      );
      assert.equal(seen.log.length, 1);
      assert.match(
        seen.log[0]!,
        /^warn: URL request from server "acme" declined: Plangate did not open the [a-z-]+: link server "acme" sent: it opens only http: and https: links from servers\. \(the URL: [a-z-]+:/,
      );
    });
  }

  it('declines a request whose url is missing or not text', async () => {
    for (const params of [{ mode: 'url', message: 'x' }, { mode: 'url', message: 'x', url: 42 }, null]) {
      const { p, seen } = ports();
      assert.deepEqual(await answerUrlElicitation('acme', params, p), { action: 'decline' });
      assert.deepEqual(seen.opened, []);
      assert.match(seen.refused[0]!, /not a URL/);
    }
  });

  it('asks first, showing the server message and the URL with bidi and zero-width characters marked, then opens what it checked', async () => {
    const { p, seen } = ports('open');
    const answer = await answerUrlElicitation(
      'ac\u202Eme',
      { mode: 'url', message: 'Pay at \u202Emoc.knab\u202C now\u200B', url: 'https://pay.example/\u202Egnp.exe?a=|' },
      p,
    );
    assert.deepEqual(answer, { action: 'accept' });
    assert.equal(seen.asked.length, 1);
    const { message, detail } = seen.asked[0]!;
    assert.equal(message, 'Server "ac⟨U+202E⟩me" asks you to open a page: Pay at ⟨U+202E⟩moc.knab⟨U+202C⟩ now⟨U+200B⟩');
    assert.match(
      detail,
      /^https:\/\/pay\.example\/%E2%80%AEgnp\.exe\?a=%7C\n\(as the server wrote it, with hidden characters marked: https:\/\/pay\.example\/⟨U\+202E⟩gnp\.exe\?a=\|\)/,
    );
    assert.doesNotMatch(message + detail, /[\u202A-\u202E\u200B]/u, 'no invisible character reaches the modal');
    assert.deepEqual(seen.opened, ['https://pay.example/%E2%80%AEgnp.exe?a=%7C']);
    assert.match(seen.log.at(-1)!, /^info: URL request from server "ac⟨U\+202E⟩me": opened https:\/\/pay\.example\//);
  });

  it('answers decline or cancel as the user chose, opening nothing; cancel when the page could not be opened', async () => {
    for (const choice of ['decline', 'cancel'] as const) {
      const { p, seen } = ports(choice);
      assert.deepEqual(await answerUrlElicitation('acme', { mode: 'url', message: 'm', url: 'https://example.com/' }, p), {
        action: choice,
      });
      assert.deepEqual(seen.opened, []);
    }
    const { p } = ports('open', false);
    assert.deepEqual(await answerUrlElicitation('acme', { mode: 'url', message: 'm', url: 'https://example.com/' }, p), {
      action: 'cancel',
    });
  });
});
