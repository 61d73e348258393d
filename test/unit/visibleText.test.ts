// Invisible characters made visible: the one function the panel and the CLI use to show bidi controls, zero-width
// characters and other controls as marks instead of letting them hide or reorder text.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  escapeInvisibleInJson,
  hasInvisible,
  isInvisibleCodePoint,
  markCodePoint,
  textOf,
  visibleText,
} from '../../src/shared/visibleText';

/** Every character the gate promises to show: bidi, zero-width, BOM, separators, C0/C1, other format characters. */
const PROMISED = [
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
  0x200e,
  0x200f,
  0x061c, // bidi
  0x200b,
  0x200c,
  0x200d,
  0x2060,
  0xfeff, // zero-width, word joiner, BOM
  0x2028,
  0x2029, // line and paragraph separators
  0x0000,
  0x0007,
  0x000d,
  0x001b,
  0x007f,
  0x0085,
  0x009b, // C0, DEL, C1
  0x00ad,
  0x2061,
  0x2064,
  0x180e,
  0xfff9,
  0xe0001,
  0xe0041,
  0xe007f, // other Cf: soft hyphen, invisible operators, tags
  0xd800,
  0xdfff, // lone surrogates
  0x3164,
  0x115f, // blank fillers
];

/** Reverses the default marks: `⟨U+202E⟩` back to the character. */
const unmark = (s: string) => s.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)));

const invisibleChar = fc.constantFrom(...PROMISED.map((c) => String.fromCodePoint(c)), '\n', '\t');
/** Strings where invisible characters are common, among any other code points. */
const hostileString = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), invisibleChar), { maxLength: 30 })
  .map((parts) => parts.join(''));

describe('visibleText', () => {
  it('marks every bidi control, zero-width character, separator and control as ⟨U+XXXX⟩', () => {
    for (const c of PROMISED) {
      const ch = String.fromCodePoint(c);
      assert.equal(visibleText(`a${ch}b`), `a${markCodePoint(c)}b`, `U+${c.toString(16)}`);
      assert.ok(isInvisibleCodePoint(c), `U+${c.toString(16)} counts as invisible`);
      assert.ok(hasInvisible(`x${ch}`));
    }
    assert.equal(visibleText('\u202egnp.exe'), '⟨U+202E⟩gnp.exe');
    assert.equal(visibleText('rm\u200b -rf'), 'rm⟨U+200B⟩ -rf');
    assert.equal(visibleText('tag\u{e0041}'), 'tag⟨U+E0041⟩');
  });

  it('leaves readable text alone: letters of every script, accents, emoji, tabs; newlines only when asked', () => {
    const readable = 'Hello — héllo (e\u0301) שלום مرحبا 你好 😀 ❤️ a\tb';
    assert.equal(visibleText(readable), readable);
    assert.equal(hasInvisible(readable), false);
    assert.equal(visibleText('a\nb'), 'a⟨U+000A⟩b');
    assert.equal(visibleText('a\nb', { keepNewlines: true }), 'a\nb');
    assert.equal(visibleText('a\tb', { keepTabs: false }), 'a⟨U+0009⟩b');
    assert.equal(visibleText('\u202e', { mark: (c) => `<${c}>` }), '<8238>');
  });

  it('is total: any value gives a string, and hostile values do not throw', () => {
    fc.assert(fc.property(fc.anything(), (v) => typeof visibleText(v) === 'string'));
    const throwing = {
      toString() {
        throw new Error('no');
      },
    };
    const proxy = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    assert.equal(typeof visibleText(throwing), 'string');
    assert.equal(typeof visibleText(proxy), 'string');
    assert.equal(visibleText(Object.create(null)), '[object Object]');
    assert.equal(visibleText(undefined), '');
    assert.equal(visibleText(null), '');
    assert.equal(visibleText(42), '42');
    assert.equal(textOf(Symbol('s')), 'Symbol(s)');
  });

  it('leaves no invisible character behind, loses nothing, and changes nothing more when applied twice', () => {
    fc.assert(
      fc.property(hostileString, fc.boolean(), (s, keepNewlines) => {
        const out = visibleText(s, { keepNewlines });
        assert.equal(hasInvisible(out), false, JSON.stringify(out));
        if (!keepNewlines) assert.ok(!out.includes('\n'));
        assert.equal(visibleText(out, { keepNewlines }), out, 'idempotent');
        if (!s.includes('⟨')) assert.equal(unmark(out), s, 'every mark stands for exactly the character it replaced');
        // The visible characters are kept, in order.
        const removed = visibleText(s, { keepNewlines, mark: () => '' });
        assert.equal(
          removed,
          [...s].filter((c) => !isInvisibleCodePoint(c.codePointAt(0)!) || c === '\t' || (keepNewlines && c === '\n')).join(''),
        );
      }),
      { numRuns: 500 },
    );
  });
});

describe('escapeInvisibleInJson', () => {
  it('writes invisible characters as \\u escapes that parse back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), hostileString, fc.constantFrom(undefined, 2), (value, s, indent) => {
        const input = { value, s, [s]: s };
        const text = escapeInvisibleInJson(JSON.stringify(input, null, indent));
        assert.equal(hasInvisible(text), false);
        assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(input)));
      }),
      { numRuns: 300 },
    );
    assert.equal(escapeInvisibleInJson(JSON.stringify('\u202e\u{e0041}')), '"\\u202e\\udb40\\udc41"');
  });
});
