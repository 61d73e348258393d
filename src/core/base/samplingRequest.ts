/**
 * A server's `sampling/createMessage` request, read as the hostile input it is: the server asks Plangate to run the
 * user's language model on messages the server wrote. What comes out is what the user is shown and, if approved,
 * exactly what the model gets — so nothing is cut silently: a request past the limits is refused whole (the reason
 * names the limit), and what Plangate does differently from what was asked (a token limit capped, context not
 * included, images not sent) is listed in `notes` for the user to read before approving.
 * Images are kept only when their bytes are the image type they claim (PNG, JPEG, GIF or WebP, checked by their
 * first bytes); anything else (SVG, a mismatched type, bad base64) is kept as a marked problem and never shown.
 * Pure: no vscode, no node built-ins.
 */

/** What one request may hold; past any of them the request is refused (not cut: the user approves what the model gets). */
export const SAMPLING_LIMITS = {
  /** Messages in one request. */
  messages: 100,
  /** Characters of text in one request, the system prompt included. */
  textChars: 200_000,
  /** Images in one request. */
  images: 10,
  /** Bytes of one image (decoded). */
  imageBytes: 4 * 1024 * 1024,
  /** The highest token limit sent on; a higher one is capped (and the cap noted). */
  maxTokens: 16_384,
  /** Model hints kept (the rest noted); characters of each. */
  hints: 10,
  hintChars: 100,
  /** Stop sequences kept; characters of each. */
  stopSequences: 10,
  stopChars: 100,
} as const;

export type SamplingPart =
  | { type: 'text'; text: string }
  /** An image whose bytes are what `mimeType` says. `bytes`: its decoded size. */
  | { type: 'image'; mimeType: string; data: string; bytes: number }
  /** Content Plangate does not show or send (audio, an image that is not what it claims): what it is, and why. */
  | { type: 'unshown'; what: string; problem: string };

export interface SamplingMessage {
  role: 'user' | 'assistant';
  parts: SamplingPart[];
}

export interface SamplingRequest {
  systemPrompt?: string;
  messages: SamplingMessage[];
  /** The token limit the model gets: the server's, capped at {@link SAMPLING_LIMITS.maxTokens}. */
  maxTokens: number;
  /** What the server asked for, when it differs from {@link maxTokens} (capped or unreadable): for the user to see. */
  maxTokensAsked?: string;
  temperature?: number;
  stopSequences: string[];
  /** Model name hints, in the server's order of preference. */
  modelHints: string[];
  /** The server's priorities (0–1): cost, speed, intelligence. */
  priorities: { cost?: number; speed?: number; intelligence?: number };
  /** The context the server asked to have included (`thisServer`, `allServers`); Plangate includes none. */
  includeContext?: string;
  /** What Plangate does differently from what the server asked, in words for the user. */
  notes: string[];
  /** Counts for the record and the summary. */
  textChars: number;
  images: number;
}

/** What the ledger keeps of a request: counts and the beginning of its text, never its images. */
export interface SamplingSummary {
  messages: number;
  images: number;
  textChars: number;
  maxTokens: number;
  /** The first characters of the system prompt. */
  systemPrompt?: string;
  /** The first characters of the last user message's text. */
  lastUserText?: string;
}

/** Characters of text the ledger keeps from a request, and from an answer. */
export const SUMMARY_CHARS = 300;
export const ANSWER_RECORD_CHARS = 4_000;

const IMAGE_TYPES: Readonly<Record<string, (head: Uint8Array) => boolean>> = {
  'image/png': (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38,
  'image/webp': (b) =>
    b[0] === 0x52 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x46 && b[8] === 0x57 && b[9] === 0x45 && b[10] === 0x42 && b[11] === 0x50,
};
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The first bytes of base64 `data` (undefined when they do not decode). */
function headOf(data: string): Uint8Array | undefined {
  try {
    const bin = atob(data.slice(0, 24));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Which known image type the bytes are, whatever they claim. */
function sniff(head: Uint8Array): string | undefined {
  return Object.keys(IMAGE_TYPES).find((t) => IMAGE_TYPES[t]!(head));
}

function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** One content block as a part, or a refusal when it is content Plangate cannot take part in (tool use). */
function partOf(block: unknown, where: string): SamplingPart | { refused: string } {
  if (!isRecord(block)) return { refused: `${where} is not a content block` };
  const type = typeof block.type === 'string' ? block.type : '';
  if (type === 'text')
    return typeof block.text === 'string' ? { type: 'text', text: block.text } : { refused: `${where}: its text is not a string` };
  if (type === 'image') {
    const declared = typeof block.mimeType === 'string' ? block.mimeType.toLowerCase() : '';
    const data = typeof block.data === 'string' ? block.data : '';
    const what = `image (${short(declared || 'no type', 60)})`;
    if (!data || data.length % 4 !== 0 || !BASE64.test(data)) return { type: 'unshown', what, problem: 'its data is not base64' };
    const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
    if (bytes > SAMPLING_LIMITS.imageBytes)
      return { refused: `${where} is an image of ${bytes} bytes (the limit is ${SAMPLING_LIMITS.imageBytes})` };
    const head = headOf(data);
    const real = head && sniff(head);
    if (!real) return { type: 'unshown', what, problem: 'its data is not a PNG, JPEG, GIF or WebP image (it is not shown)' };
    if (real !== declared)
      return { type: 'unshown', what, problem: `it says ${short(declared || 'nothing', 60)} but its data is ${real} (it is not shown)` };
    return { type: 'image', mimeType: real, data, bytes };
  }
  if (type === 'audio') {
    const declared = typeof block.mimeType === 'string' ? block.mimeType : 'no type';
    return { type: 'unshown', what: `audio (${short(declared, 60)})`, problem: 'audio is neither played here nor sent to the model' };
  }
  if (type === 'tool_use' || type === 'tool_result')
    return { refused: `${where} is a ${type} block: Plangate does not offer tools to sampling requests` };
  return { refused: `${where} has an unknown content type ${JSON.stringify(short(type, 40))}` };
}

/**
 * Reads `params` of a `sampling/createMessage` request: the request bounded and described, or why it is refused.
 * Never throws, whatever it is given; linear in its size.
 */
export function readSamplingRequest(params: unknown): { request: SamplingRequest } | { refused: string } {
  if (!isRecord(params)) return { refused: 'the request has no parameters' };
  if (params.tools !== undefined || params.toolChoice !== undefined)
    return { refused: 'it offers tools to the model, and Plangate does not run tools for sampling requests' };
  if (params.task !== undefined) return { refused: 'it asks to run as a task, which Plangate does not offer for sampling' };
  const raw = params.messages;
  if (!Array.isArray(raw) || raw.length === 0) return { refused: 'it has no messages' };
  if (raw.length > SAMPLING_LIMITS.messages) return { refused: `it has ${raw.length} messages (the limit is ${SAMPLING_LIMITS.messages})` };
  const notes: string[] = [];
  let textChars = 0;
  let images = 0;
  const messages: SamplingMessage[] = [];
  for (let i = 0; i < raw.length; i++) {
    const m: unknown = raw[i];
    const where = `message ${i + 1}`;
    if (!isRecord(m) || (m.role !== 'user' && m.role !== 'assistant')) return { refused: `${where} has no role user or assistant` };
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    if (blocks.length > SAMPLING_LIMITS.messages)
      return { refused: `${where} has ${blocks.length} content blocks (the limit is ${SAMPLING_LIMITS.messages})` };
    const parts: SamplingPart[] = [];
    for (const block of blocks) {
      const part = partOf(block, where);
      if ('refused' in part) return part;
      if (part.type === 'text') textChars += part.text.length;
      if (part.type === 'image') images++;
      parts.push(part);
    }
    messages.push({ role: m.role, parts });
  }
  const systemPrompt = typeof params.systemPrompt === 'string' && params.systemPrompt !== '' ? params.systemPrompt : undefined;
  textChars += systemPrompt?.length ?? 0;
  if (textChars > SAMPLING_LIMITS.textChars)
    return { refused: `it holds ${textChars} characters of text (the limit is ${SAMPLING_LIMITS.textChars})` };
  if (images > SAMPLING_LIMITS.images) return { refused: `it holds ${images} images (the limit is ${SAMPLING_LIMITS.images})` };
  if (images > 0)
    notes.push(`${images === 1 ? 'The image is' : `The ${images} images are`} shown here but not sent: the model gets the text only.`);
  if (messages.some((m) => m.parts.some((p) => p.type === 'unshown'))) notes.push('Some content is not shown and not sent (marked below).');

  const asked = params.maxTokens;
  let maxTokens: number = SAMPLING_LIMITS.maxTokens;
  let maxTokensAsked: string | undefined;
  if (typeof asked === 'number' && Number.isInteger(asked) && asked >= 1) {
    maxTokens = Math.min(asked, SAMPLING_LIMITS.maxTokens);
    if (asked > maxTokens) {
      maxTokensAsked = String(asked);
      notes.push(`The server asked for up to ${asked} tokens; Plangate caps the answer at ${maxTokens}.`);
    }
  } else {
    maxTokensAsked = short(JSON.stringify(asked) ?? 'nothing', 40);
    notes.push(`The server's token limit (${maxTokensAsked}) is not a positive whole number; Plangate uses ${maxTokens}.`);
  }
  const includeContext =
    typeof params.includeContext === 'string' && params.includeContext !== 'none' ? short(params.includeContext, 40) : undefined;
  if (includeContext) notes.push(`The server asked for context (${includeContext}); Plangate includes none.`);

  const prefs = isRecord(params.modelPreferences) ? params.modelPreferences : {};
  const hintList = Array.isArray(prefs.hints) ? prefs.hints : [];
  const modelHints = hintList
    .slice(0, SAMPLING_LIMITS.hints)
    .map((h) => (isRecord(h) && typeof h.name === 'string' ? short(h.name, SAMPLING_LIMITS.hintChars) : undefined))
    .filter((h): h is string => !!h);
  if (hintList.length > SAMPLING_LIMITS.hints)
    notes.push(`Only the first ${SAMPLING_LIMITS.hints} of ${hintList.length} model hints are shown.`);
  const priority = (v: unknown) => (typeof v === 'number' && v >= 0 && v <= 1 ? v : undefined);
  const priorities = {
    ...(priority(prefs.costPriority) !== undefined && { cost: priority(prefs.costPriority) }),
    ...(priority(prefs.speedPriority) !== undefined && { speed: priority(prefs.speedPriority) }),
    ...(priority(prefs.intelligencePriority) !== undefined && { intelligence: priority(prefs.intelligencePriority) }),
  };
  const stops = Array.isArray(params.stopSequences) ? params.stopSequences : [];
  const stopSequences = stops
    .slice(0, SAMPLING_LIMITS.stopSequences)
    .filter((s): s is string => typeof s === 'string')
    .map((s) => short(s, SAMPLING_LIMITS.stopChars));
  const temperature = typeof params.temperature === 'number' && Number.isFinite(params.temperature) ? params.temperature : undefined;
  return {
    request: {
      ...(systemPrompt !== undefined && { systemPrompt }),
      messages,
      maxTokens,
      ...(maxTokensAsked !== undefined && { maxTokensAsked }),
      ...(temperature !== undefined && { temperature }),
      stopSequences,
      modelHints,
      priorities,
      ...(includeContext && { includeContext }),
      notes,
      textChars,
      images,
    },
  };
}

/** What the ledger keeps of `request`. */
export function samplingSummary(request: SamplingRequest): SamplingSummary {
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const text = lastUser?.parts
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join(' ')
    .trim();
  return {
    messages: request.messages.length,
    images: request.images,
    textChars: request.textChars,
    maxTokens: request.maxTokens,
    ...(request.systemPrompt && { systemPrompt: short(request.systemPrompt, SUMMARY_CHARS) }),
    ...(text && { lastUserText: short(text, SUMMARY_CHARS) }),
  };
}
