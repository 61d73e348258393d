/**
 * Canonical JSON and its hash: the one way Plangate turns data into comparable text. A leaf of core (it imports no
 * module of Plangate), so every zone — the reducer, the door, the CLI, the webview's bundle if it ever needs it —
 * can use it without an import circle. Pure: SHA-256 from @noble/hashes, no `node:crypto`.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * JSON with object keys sorted (by UTF-16 code units), so two values that are equal as data give the same text.
 * Total over any input: `undefined`, functions and symbols are dropped in objects and become `null` in arrays (as
 * `JSON.stringify` does), non-finite numbers become `null`, bigints become strings, a cycle becomes `"[Circular]"`.
 * Keys such as `__proto__` are plain data.
 */
export function canonicalJson(value: unknown): string {
  // Iterative, not recursive: arguments and results come from servers, and a value nested 20,000 deep must hash
  // (two different deep values must never share a text) without overflowing the stack.
  type Frame =
    | { kind: 'array'; obj: object; items: readonly unknown[]; i: number }
    | { kind: 'object'; obj: object; keys: string[]; i: number; wrote: boolean };
  const out: string[] = [];
  const seen = new Set<object>();
  const stack: Frame[] = [];
  const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  /** Writes `v` (a container only opens: its frame is pushed). */
  const open = (v: unknown): void => {
    if (v === null) {
      out.push('null');
      return;
    }
    switch (typeof v) {
      case 'string':
        out.push(JSON.stringify(v));
        return;
      case 'number':
        out.push(Number.isFinite(v) ? JSON.stringify(v) : 'null');
        return;
      case 'boolean':
        out.push(v ? 'true' : 'false');
        return;
      case 'bigint':
        out.push(JSON.stringify(v.toString()));
        return;
      case 'undefined':
      case 'function':
      case 'symbol':
        out.push('null');
        return;
      case 'object':
        break;
    }
    const obj = v as object;
    if (obj instanceof Date) {
      open(obj.toJSON());
      return;
    }
    if (seen.has(obj)) {
      out.push(JSON.stringify('[Circular]'));
      return;
    }
    seen.add(obj);
    if (Array.isArray(obj)) {
      out.push('[');
      stack.push({ kind: 'array', obj, items: obj, i: 0 });
    } else {
      out.push('{');
      stack.push({ kind: 'object', obj, keys: Object.keys(obj).sort(), i: 0, wrote: false });
    }
  };
  if (skipped(value)) return 'null';
  open(value);
  while (stack.length) {
    const frame = stack[stack.length - 1];
    if (frame.kind === 'array') {
      if (frame.i < frame.items.length) {
        if (frame.i > 0) out.push(',');
        open(frame.items[frame.i++]);
        continue;
      }
      out.push(']');
    } else {
      let opened = false;
      while (frame.i < frame.keys.length) {
        const key = frame.keys[frame.i++];
        const v = (frame.obj as Record<string, unknown>)[key];
        if (skipped(v)) continue;
        out.push(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
        frame.wrote = true;
        const depth = stack.length;
        open(v);
        if (stack.length > depth) {
          opened = true;
          break;
        }
      }
      if (opened) continue;
      out.push('}');
    }
    seen.delete(frame.obj);
    stack.pop();
  }
  return out.join('');
}

/** True when `a` and `b` are equal as JSON data (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex digits (from @noble/hashes: pure JS, runs in every zone). */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
