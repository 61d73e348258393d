/**
 * Resources behind `resource_link` content blocks: which links a result carries, and what a `resources/read` of one
 * gave, checked and bounded for showing in a read-only editor tab. Everything here is untrusted server data: a URI is
 * only ever sent back to the server that named it (never opened by the operating system, never taken as a file path),
 * text is cut at a bound, and a blob is shown only as an image of a raster type or as text it decodes to, else
 * described. Pure: `atob` and `TextDecoder` are globals of both Node and the browser.
 */

/** A result shows at most this many links (a hostile result may carry thousands). */
export const MAX_RESOURCE_LINKS = 50;
/** A link's URI longer than this is not offered. */
export const MAX_RESOURCE_URI = 4096;
/** Text past this many characters is cut (the tab says so). */
export const MAX_RESOURCE_TEXT = 1_000_000;
/** An image larger than this (decoded bytes) is described, not shown. */
export const MAX_RESOURCE_IMAGE_BYTES = 5_000_000;
/** A read's contents past this many entries are left out (the tab says so). */
export const MAX_RESOURCE_PARTS = 20;

/** One `resource_link` of a result, checked: the URI as the server wrote it, a name to show. */
export interface ResourceLink {
  uri: string;
  name: string;
  mimeType?: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
// A URI names its scheme and holds no whitespace or control characters (it is shown, and sent back as it is).
const URI_SHAPE = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\u0000-\u001f\u007f-\u009f]*$/;

/** Whether `uri` may be offered and sent back in `resources/read`: any scheme, but a plain, bounded URI. */
export function isResourceUri(uri: unknown): uri is string {
  return typeof uri === 'string' && uri.length <= MAX_RESOURCE_URI && URI_SHAPE.test(uri);
}

/** The `resource_link` blocks of a result's `content`, checked and at most {@link MAX_RESOURCE_LINKS}. */
export function resourceLinksOf(content: unknown): ResourceLink[] {
  const links: ResourceLink[] = [];
  if (!Array.isArray(content)) return links;
  for (const block of content) {
    if (links.length >= MAX_RESOURCE_LINKS) break;
    if (!isObj(block) || block.type !== 'resource_link' || !isResourceUri(block.uri)) continue;
    const name = typeof block.name === 'string' && block.name.trim() ? block.name.slice(0, 200) : block.uri.slice(0, 200);
    const link: ResourceLink = { uri: block.uri, name };
    if (typeof block.mimeType === 'string' && block.mimeType.length <= 200) link.mimeType = block.mimeType;
    links.push(link);
  }
  return links;
}

/** One entry of a read's `contents`, as the tab shows it. */
export type ResourcePart =
  | { kind: 'text'; uri: string; mimeType?: string; text: string; cut: boolean }
  | { kind: 'image'; uri: string; mimeType: string; base64: string; bytes: number }
  | { kind: 'binary'; uri: string; mimeType?: string; bytes: number; why: string };

/** What a `resources/read` gave: its parts, how many were left out; or why it holds nothing to show. */
export type ResourceRead = { ok: true; parts: ResourcePart[]; omitted: number } | { ok: false; error: string };

// Raster types only: an SVG is a document that can carry script.
const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|bmp)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodedBytes(base64: string): number {
  const pad = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - pad;
}

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function cutText(text: string): { text: string; cut: boolean } {
  return text.length > MAX_RESOURCE_TEXT ? { text: text.slice(0, MAX_RESOURCE_TEXT), cut: true } : { text, cut: false };
}

/** A blob: an image of a raster type, text when its type says text and it is valid UTF-8, else described. */
function blobPart(uri: string, mimeType: string | undefined, raw: string): ResourcePart {
  const base64 = raw.replace(/\s/g, '');
  if (base64.length % 4 !== 0 || !BASE64.test(base64))
    return { kind: 'binary', uri, mimeType, bytes: 0, why: 'its blob is not valid base64' };
  const bytes = decodedBytes(base64);
  if (mimeType && IMAGE_TYPES.test(mimeType)) {
    if (bytes <= MAX_RESOURCE_IMAGE_BYTES) return { kind: 'image', uri, mimeType, base64, bytes };
    return { kind: 'binary', uri, mimeType, bytes, why: `the image is larger than ${MAX_RESOURCE_IMAGE_BYTES / 1_000_000} MB` };
  }
  const textual =
    mimeType !== undefined && /^(text\/|application\/(json|xml|yaml|x-yaml|javascript)\b|[^;]*\+(json|xml)\b)/i.test(mimeType);
  if (textual && bytes <= MAX_RESOURCE_TEXT * 4) {
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(base64ToBytes(base64));
      return { kind: 'text', uri, mimeType, ...cutText(text) };
    } catch {
      return { kind: 'binary', uri, mimeType, bytes, why: 'its bytes are not UTF-8 text' };
    }
  }
  return { kind: 'binary', uri, mimeType, bytes, why: 'binary content is described, not shown' };
}

/**
 * The parts of a `resources/read` result for `requested`: each of its `contents` entries (text, or a blob shown as an
 * image, decoded as text, or described), at most {@link MAX_RESOURCE_PARTS}. An entry's own `uri`, if it is not a
 * plain URI, is replaced by the requested one.
 */
export function readResourceParts(requested: string, read: unknown): ResourceRead {
  const contents = isObj(read) ? read.contents : undefined;
  if (!Array.isArray(contents)) return { ok: false, error: 'the server’s answer to resources/read holds no "contents" list' };
  if (contents.length === 0) return { ok: false, error: 'the server returned no contents for it' };
  const parts: ResourcePart[] = [];
  for (const entry of contents.slice(0, MAX_RESOURCE_PARTS)) {
    if (!isObj(entry)) continue;
    const uri = isResourceUri(entry.uri) ? entry.uri : requested;
    const mimeType = typeof entry.mimeType === 'string' && entry.mimeType.length <= 200 ? entry.mimeType : undefined;
    if (typeof entry.text === 'string') parts.push({ kind: 'text', uri, mimeType, ...cutText(entry.text) });
    else if (typeof entry.blob === 'string') parts.push(blobPart(uri, mimeType, entry.blob));
  }
  if (parts.length === 0) return { ok: false, error: 'none of its contents holds text or a blob' };
  return { ok: true, parts, omitted: Math.max(0, contents.length - MAX_RESOURCE_PARTS) };
}

/** How a part that is not shown as it is reads in the tab (a described blob, a cut text's note). */
export function describePart(part: ResourcePart): string {
  const type = part.mimeType ? `${part.mimeType}, ` : '';
  switch (part.kind) {
    case 'image':
      return `[image ${type}${part.bytes} bytes]`;
    case 'binary':
      return `[binary content, ${type}${part.bytes} bytes, not shown: ${part.why}]`;
    case 'text':
      return part.cut ? `[cut: only the first ${MAX_RESOURCE_TEXT} characters are shown]` : '';
  }
}

/**
 * The text of the read-only tab for a read: the text itself when it is one text part; otherwise each part under a
 * heading with its URI, images and binary blobs described.
 */
export function resourceDocumentText(read: Extract<ResourceRead, { ok: true }>): string {
  const { parts, omitted } = read;
  const tail = omitted ? `\n[${omitted} more entr${omitted === 1 ? 'y' : 'ies'} of the resource not shown]\n` : '';
  if (parts.length === 1 && parts[0].kind === 'text') {
    const note = describePart(parts[0]);
    return parts[0].text + (note ? `\n\n${note}\n` : '') + tail;
  }
  const sections = parts.map((p) => {
    const head = `── ${p.uri}${p.mimeType ? ` (${p.mimeType})` : ''}`;
    if (p.kind !== 'text') return `${head}\n${describePart(p)}`;
    const note = describePart(p);
    return `${head}\n${p.text}${note ? `\n${note}` : ''}`;
  });
  return sections.join('\n\n') + '\n' + tail;
}
