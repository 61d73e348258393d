// Resources behind resource_link: the links of a result are read from the server that named them (resources/read, on
// the ledger's record first) and checked for the read-only tab. Against the real @modelcontextprotocol/server-everything
// (its get-resource-links tool links text and blob resources), plus hostile answers that must not be shown as they are.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  MAX_RESOURCE_IMAGE_BYTES,
  MAX_RESOURCE_LINKS,
  MAX_RESOURCE_PARTS,
  MAX_RESOURCE_TEXT,
  readResourceParts,
  resourceDocumentText,
  resourceLinksOf,
} from '../../src/core/base/resourceLink';
import { readLinkedResource } from '../../src/core/engine/linkedResource';
import { MemoryLedgerSink, parseLedgerEntry, Workflow } from '../../src/core/workflow/ledger';
import type { ResolvedStdioServer } from '../../src/mcp/config';
import { ServerConnection } from '../../src/mcp/connection';
import { REPO, waitFor } from './helpers/mcpFixture';

const EVERYTHING_SERVER = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function everything(t: TestContext): ServerConnection {
  const config: ResolvedStdioServer = {
    name: 'everything',
    source: 'settings-user',
    type: 'stdio',
    command: process.execPath,
    args: [EVERYTHING_SERVER, 'stdio'],
    env: {},
    cwd: REPO,
    secrets: [],
  };
  const conn = new ServerConnection(config, { reconnect: { maxAttempts: 0 }, pathProvider: async () => process.env.PATH ?? '' });
  t.after(() => conn.dispose());
  return conn;
}

describe('resource links against server-everything (get-resource-links)', () => {
  test('every linked resource is read from the server that named it, each read on the ledger before it is sent', async (t) => {
    const conn = everything(t);
    await conn.start();
    await waitFor(() => conn.tools.some((x) => x.name === 'get-resource-links'), 'get-resource-links to be offered');
    const result = await conn.callTool('get-resource-links', { count: 4 });
    const links = resourceLinksOf(result.content);
    assert.deepEqual(
      links.map((l) => l.name),
      ['Blob Resource 1', 'Text Resource 2', 'Blob Resource 3', 'Text Resource 4'],
    );

    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    const recordedBeforeRead: boolean[] = [];
    const texts: string[] = [];
    for (const link of links) {
      const read = await readLinkedResource(
        {
          record: (e) => workflow.dispatch(e),
          read: (server, uri) => {
            recordedBeforeRead.push(sink.entries.some((e) => e.event.type === 'resourceRead' && e.event.uri === uri));
            assert.equal(server, 'everything');
            return conn.readLinkedResource(uri);
          },
        },
        'everything',
        link.uri,
      );
      assert.ok(read.ok, JSON.stringify(read));
      texts.push(resourceDocumentText(read));
    }
    // Text resources as text; the blobs are base64 of text/plain: decoded, shown as the text they are.
    assert.match(texts[0], /^Resource 1: This is a base64 blob created at /);
    assert.match(texts[1], /^Resource 2: This is a plaintext resource created at /);
    assert.match(texts[2], /^Resource 3: This is a base64 blob created at /);
    assert.match(texts[3], /^Resource 4: This is a plaintext resource created at /);
    assert.deepEqual(recordedBeforeRead, [true, true, true, true]);
    const reads = sink.entries.map((e) => e.event).filter((e) => e.type === 'resourceRead');
    assert.deepEqual(
      reads.map((e) => [e.server, e.uri]),
      links.map((l) => ['everything', l.uri]),
    );
    // What the file ledger stores reads back as the same entry (a reload keeps the record).
    for (const entry of sink.entries) assert.deepEqual(parseLedgerEntry(JSON.parse(JSON.stringify(entry))), entry);
  });

  test('a server that is not running: the reason names it, and the read stays on the record', async (t) => {
    const conn = everything(t);
    const sink = new MemoryLedgerSink();
    const workflow = new Workflow(sink);
    const read = await readLinkedResource(
      { record: (e) => workflow.dispatch(e), read: (_s, uri) => conn.readLinkedResource(uri) },
      'everything',
      'demo://resource/dynamic/text/2',
    );
    assert.equal(read.ok, false);
    assert.match(
      !read.ok ? read.error : '',
      /^Server 'everything' could not read demo:\/\/resource\/dynamic\/text\/2: Server 'everything' is not running\./,
    );
    assert.equal(sink.entries.length, 1);
  });

  test('a read the ledger cannot record is not sent', async () => {
    let sent = 0;
    const read = await readLinkedResource(
      {
        record: () => {
          throw new Error('disk full');
        },
        read: async () => {
          sent++;
          return { contents: [{ uri: 'x:y', text: 'hi' }] };
        },
      },
      's',
      'x:y',
    );
    assert.equal(sent, 0);
    assert.match(!read.ok ? read.error : '', /could not be recorded in the ledger, so it was not sent/);
  });
});

describe('resource links: hostile results and answers', () => {
  test('only plain URIs become links (any scheme), at most MAX_RESOURCE_LINKS', () => {
    const links = resourceLinksOf([
      { type: 'resource_link', uri: 'file:///etc/passwd', name: 'f' },
      { type: 'resource_link', uri: 'custom+x://a/b?c=d', name: '' },
      { type: 'resource_link', uri: 'no-scheme/path', name: 'n' },
      { type: 'resource_link', uri: 'x:a\nb', name: 'newline' },
      { type: 'resource_link', uri: 'x:a\u0085b', name: 'C1' },
      { type: 'resource_link', uri: `x:${'a'.repeat(5000)}`, name: 'long' },
      { type: 'resource_link', uri: 42 },
      { type: 'text', text: 'not a link' },
    ]);
    // A file: URI is a link like any other: it is read from the server that named it, never from the disk.
    assert.deepEqual(links, [
      { uri: 'file:///etc/passwd', name: 'f' },
      { uri: 'custom+x://a/b?c=d', name: 'custom+x://a/b?c=d' },
    ]);
    const many = Array.from({ length: 500 }, (_, i) => ({ type: 'resource_link', uri: `x:${i}`, name: `${i}` }));
    assert.equal(resourceLinksOf(many).length, MAX_RESOURCE_LINKS);
  });

  test('a raster image is an image; an SVG is its source text (never an image); other blobs are described, never dumped; text is cut at its bound', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64');
    const read = readResourceParts('x:r', {
      contents: [
        { uri: 'x:r', mimeType: 'image/png', blob: png },
        { uri: 'x:r', mimeType: 'image/svg+xml', blob: Buffer.from('<svg onload="alert(1)"/>').toString('base64') },
        { uri: 'x:r', mimeType: 'application/octet-stream', blob: Buffer.from([0, 1, 2, 255]).toString('base64') },
        { uri: 'x:r', mimeType: 'text/plain', blob: Buffer.from([0xff, 0xfe, 0x00]).toString('base64') },
        { uri: 'x:r', mimeType: 'image/png', blob: 'not base64!' },
        { uri: 'x:\nforged', text: 'y'.repeat(MAX_RESOURCE_TEXT + 10) },
      ],
    });
    assert.ok(read.ok);
    assert.deepEqual(
      read.parts.map((p) => p.kind),
      ['image', 'text', 'binary', 'binary', 'binary', 'text'],
    );
    const text = resourceDocumentText(read);
    assert.ok(text.includes('<svg onload="alert(1)"/>'), 'the SVG is shown as its text in the read-only document');
    assert.match(text, /\[binary content, application\/octet-stream, 4 bytes, not shown/);
    assert.match(text, /not shown: its bytes are not UTF-8 text\]/);
    assert.match(text, /not shown: its blob is not valid base64\]/);
    assert.match(text, /\[image image\/png, 7 bytes\]/);
    const last = read.parts[5];
    assert.equal(last.kind === 'text' && last.text.length, MAX_RESOURCE_TEXT);
    assert.equal(last.uri, 'x:r', 'an entry URI that is not plain is replaced by the one asked for');
    assert.match(text, /\[cut: only the first 1000000 characters are shown\]/);
  });

  test('an image over the bound is described; contents past MAX_RESOURCE_PARTS are counted, not shown', () => {
    const big = 'A'.repeat(Math.ceil((MAX_RESOURCE_IMAGE_BYTES + 3) / 3) * 4);
    const read = readResourceParts('x:r', { contents: [{ uri: 'x:r', mimeType: 'image/png', blob: big }] });
    assert.ok(read.ok && read.parts[0].kind === 'binary');
    const many = readResourceParts('x:r', {
      contents: Array.from({ length: MAX_RESOURCE_PARTS + 5 }, (_, i) => ({ uri: 'x:r', text: `${i}` })),
    });
    assert.ok(many.ok);
    assert.equal(many.parts.length, MAX_RESOURCE_PARTS);
    assert.match(resourceDocumentText(many), /\[5 more entries of the resource not shown\]/);
    assert.equal(readResourceParts('x:r', { contents: 'nope' }).ok, false);
    assert.equal(readResourceParts('x:r', { contents: [] }).ok, false);
    assert.equal(readResourceParts('x:r', { contents: [{ uri: 'x:r' }] }).ok, false);
  });
});
