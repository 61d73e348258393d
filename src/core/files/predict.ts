/**
 * Predicted diffs: what a plan's steps would write, known before approval without writing anything.
 *
 * Two sources, both per step:
 * - **arguments** — a write-file shaped step (`{path, content}`, `{file_path, contents}`, `{path, text}`, …) carries
 *   the file's full new content: the prediction is that content (see {@link writeShape} for the exact rules);
 * - **dry run** — a tool whose input schema has a boolean `dryRun` / `dry_run` is called once with it set to true
 *   (see {@link dryRunFlag}, {@link withDryRun}); the unified diff it returns (server-filesystem's `edit_file`
 *   format: a fenced ```diff block, `Index:` header, `---`/`+++` lines with tab suffixes) is parsed by
 *   {@link parseUnifiedDiff} and applied to the file's current text with {@link applyFilePatch}.
 *
 * Paths are normalised with {@link toWorkspacePath}: absolute paths inside the workspace become workspace-relative
 * (`/`-separated); anything else (another folder, `~`, `..` escapes) is flagged as outside. Relative paths are read
 * relative to the workspace root (as server-filesystem reads them relative to its allowed directory).
 *
 * Pure: no I/O. Everything here takes untrusted server data and never throws for bad input.
 */
import { applyPatch, formatPatch, parsePatch, type StructuredPatch } from 'diff';
import { pathTrap } from '../base/globs';
import { GateRefusal, type DoorCall, type PreviewClearance } from '../engine/door';
import type { ActionCall } from '../plan/plan';
import type { ToolResult } from '../base/toolResult';
import type { StepRecord } from '../workflow/workflow';
import type { PredictedView } from '../../shared/protocol/files';

// ---------------------------------------------------------------------------------------------------------------
// Paths

/** A path as a step or a diff names it, placed relative to the workspace. */
export type WorkspacePath =
  | { inside: true; /** Workspace-relative, `/`-separated, no `.`/`..` segments. */ path: string }
  | { inside: false; /** The path as given. */ path: string; /** Why it is not inside, in words. */ reason: string };

/**
 * Places `raw` relative to the workspace. `roots` is the workspace folder (absolute), optionally with aliases for the
 * same folder (e.g. its real path when it sits behind a symlink: servers often report real paths). Absolute paths
 * inside a root become relative; relative paths are read from the root; `\` reads as `/`; Windows roots compare
 * case-insensitively. Outside: absolute paths elsewhere, `~` paths, paths climbing out with `..`, the root itself.
 */
export function toWorkspacePath(raw: unknown, roots: string | readonly string[]): WorkspacePath {
  if (typeof raw !== 'string' || raw.trim() === '') return { inside: false, path: String(raw ?? ''), reason: 'the path is empty' };
  const given = raw;
  const p = raw.trim().replace(/\\/g, '/');
  if (p.startsWith('~')) return { inside: false, path: given, reason: 'it is in the home directory, outside the workspace' };
  const trap = pathTrap(raw);
  if (trap) return { inside: false, path: given, reason: trap };
  if (isAbsolutePath(p)) {
    const abs = normaliseSegments(p);
    if (abs === undefined) return { inside: false, path: given, reason: 'it climbs above the file system root' };
    for (const root of typeof roots === 'string' ? [roots] : roots) {
      if (typeof root !== 'string' || root.trim() === '') continue;
      const r = normaliseSegments(root.trim().replace(/\\/g, '/'));
      if (r === undefined) continue;
      const fold = isWindowsPath(r) || isWindowsPath(abs);
      const a = fold ? abs.toLowerCase() : abs;
      const b = stripTrailingSlash(fold ? r.toLowerCase() : r);
      if (a === b) return { inside: false, path: given, reason: 'it names the workspace folder itself, not a file in it' };
      if (a.startsWith(`${b}/`)) return { inside: true, path: abs.slice(b.length + 1) };
    }
    return { inside: false, path: given, reason: 'it is outside the workspace folder' };
  }
  const rel = normaliseSegments(p);
  if (rel === undefined) return { inside: false, path: given, reason: 'it climbs out of the workspace with ".."' };
  if (rel === '') return { inside: false, path: given, reason: 'it names the workspace folder itself, not a file in it' };
  return { inside: true, path: rel };
}

function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:(\/|$)/.test(p);
}

function isWindowsPath(p: string): boolean {
  return /^[A-Za-z]:/.test(p) || p.startsWith('//');
}

function stripTrailingSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/**
 * Resolves `.` and `..` segments and collapses repeated `/`. Keeps a leading `/`, `//` (UNC) or `C:/`. Returns
 * undefined when `..` climbs above the start (the root for absolute paths, the base for relative ones).
 */
function normaliseSegments(p: string): string | undefined {
  let prefix = '';
  let rest = p;
  const drive = /^[A-Za-z]:/.exec(rest);
  if (drive) {
    prefix = drive[0];
    rest = rest.slice(prefix.length);
  }
  if (rest.startsWith('//') && !prefix) {
    prefix = '//';
    rest = rest.slice(2);
  } else if (rest.startsWith('/')) {
    prefix += '/';
    rest = rest.slice(1);
  }
  const out: string[] = [];
  for (const segment of rest.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else {
      out.push(segment);
    }
  }
  return prefix + out.join('/');
}

// ---------------------------------------------------------------------------------------------------------------
// Which steps write what

/** What Plangate knows of a tool from `tools/list` (all optional: a tool may be unknown before connecting). */
export interface ToolDescription {
  name: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: unknown; [extra: string]: unknown };
}

/** Argument names that carry the file's path, in the order they are looked for. */
export const WRITE_PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filepath',
  'file',
  'filename',
  'fileName',
  'target_file',
  'targetFile',
] as const;
/** Argument names that carry the file's full new content. */
export const WRITE_CONTENT_KEYS = [
  'content',
  'contents',
  'text',
  'new_content',
  'newContent',
  'file_text',
  'fileText',
  'file_content',
  'fileContent',
] as const;
/**
 * Words in a tool's name that say it does not replace a whole file with the content (appends, edits, reads, moves…).
 * A name is split into words at `_`, `-`, `.`, `/`, spaces and camelCase humps.
 */
export const NOT_WHOLE_WRITE_WORDS: readonly string[] = [
  'append',
  'prepend',
  'insert',
  'patch',
  'edit',
  'replace',
  'search',
  'find',
  'grep',
  'read',
  'get',
  'list',
  'delete',
  'remove',
  'rm',
  'move',
  'mv',
  'rename',
  'copy',
  'cp',
  'query',
  'comment',
  'send',
  'post',
  'notify',
  'translate',
  'lint',
];
/** Argument names that say the content is not the whole file (a position, an append mode, an edit list). */
const PARTIAL_WRITE_KEYS = [
  'offset',
  'position',
  'line',
  'line_number',
  'lineNumber',
  'start_line',
  'startLine',
  'insert_line',
  'edits',
  'old_str',
  'oldText',
  'old_text',
  'search',
  'pattern',
];

/**
 * The `{path, newContent}` a write-file shaped step will write, or undefined. Write-file shaped means: exactly one of
 * {@link WRITE_PATH_KEYS} holds a non-empty string and exactly one of {@link WRITE_CONTENT_KEYS} holds a string; the
 * tool is not marked read-only; its name has none of {@link NOT_WHOLE_WRITE_WORDS}; and nothing says the content
 * is partial or encoded (`append: true`, `mode: "append"`, a position or edit-list argument, an `encoding` other than
 * UTF-8). Own properties only (`__proto__` is data).
 */
export function writeShape(
  call: Pick<ActionCall, 'tool' | 'args'>,
  tool?: ToolDescription,
): { path: string; newContent: string } | undefined {
  const args = call?.args;
  if (!isPlainObject(args)) return undefined;
  if (tool?.annotations && tool.annotations.readOnlyHint === true) return undefined;
  if (nameWords(String(call.tool ?? '')).some((w) => NOT_WHOLE_WRITE_WORDS.includes(w))) return undefined;
  const own = (key: string): unknown => (Object.hasOwn(args, key) ? args[key] : undefined);
  const paths = WRITE_PATH_KEYS.filter((k) => typeof own(k) === 'string' && (own(k) as string).trim() !== '');
  const contents = WRITE_CONTENT_KEYS.filter((k) => typeof own(k) === 'string');
  if (paths.length !== 1 || contents.length !== 1) return undefined;
  if (own('append') === true || /^(a|append|prepend)$/i.test(String(own('mode') ?? ''))) return undefined;
  if (PARTIAL_WRITE_KEYS.some((k) => own(k) !== undefined)) return undefined;
  const encoding = own('encoding');
  if (encoding !== undefined && !/^utf-?8$/i.test(String(encoding))) return undefined;
  return { path: own(paths[0]) as string, newContent: own(contents[0]) as string };
}

/** Words of a tool name, lowercased: `writeFile` → write, file; `fs.write_text` → fs, write, text. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Names of a boolean input that makes a tool only report what it would do. */
export const DRY_RUN_FLAGS = ['dryRun', 'dry_run'] as const;
export type DryRunFlag = (typeof DRY_RUN_FLAGS)[number];

/**
 * The tool's dry-run flag when its input schema declares `properties.dryRun` or `properties.dry_run` as a boolean
 * (`type: "boolean"`, a type list including it, or an `anyOf`/`oneOf` branch of it); undefined otherwise.
 */
export function dryRunFlag(inputSchema: unknown): DryRunFlag | undefined {
  if (!isPlainObject(inputSchema)) return undefined;
  const props = inputSchema.properties;
  if (!isPlainObject(props)) return undefined;
  return DRY_RUN_FLAGS.find((flag) => Object.hasOwn(props, flag) && isBooleanSchema(props[flag]));
}

function isBooleanSchema(schema: unknown, depth = 0): boolean {
  if (!isPlainObject(schema) || depth > 3) return false;
  const type = schema.type;
  if (type === 'boolean' || (Array.isArray(type) && type.includes('boolean'))) return true;
  return ['anyOf', 'oneOf'].some((k) => Array.isArray(schema[k]) && (schema[k] as unknown[]).some((s) => isBooleanSchema(s, depth + 1)));
}

/** A copy of `args` with the dry-run flag set to true (the step's own arguments are not changed). */
export function withDryRun(args: Record<string, unknown>, flag: DryRunFlag): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(isPlainObject(args) ? args : {})) define(copy, key, args[key]);
  define(copy, flag, true);
  return copy;
}

/** How a step's effect on files can be known before approval. */
export type StepPrediction =
  | {
      kind: 'dryRun';
      /** The flag to set. */ flag: DryRunFlag;
      /** The arguments to call the tool with (flag set). */ args: Record<string, unknown>;
    }
  | { kind: 'write'; path: WorkspacePath; newContent: string }
  | { kind: 'none' };

/**
 * How to predict the step: a dry run when it is an edit of a file — its tool declares a dry-run flag, is not marked
 * read-only, and its arguments name a file ({@link stepPaths}); a tool with a dry-run flag that names no file (a
 * deploy, a migration) is never called before approval. A step that already sets the flag to true writes nothing and
 * predicts nothing. Otherwise its arguments, when write-file shaped ({@link writeShape}); else nothing.
 */
export function predictStep(
  call: Pick<ActionCall, 'tool' | 'args'>,
  tool: ToolDescription | undefined,
  roots: string | readonly string[],
): StepPrediction {
  if (!call || !isPlainObject(call.args)) return { kind: 'none' };
  const flag = dryRunFlag(tool?.inputSchema);
  if (flag && tool?.annotations?.readOnlyHint !== true && stepPaths(call, roots).length > 0) {
    return call.args[flag] === true && Object.hasOwn(call.args, flag)
      ? { kind: 'none' }
      : { kind: 'dryRun', flag, args: withDryRun(call.args, flag) };
  }
  const shape = writeShape(call, tool);
  return shape ? { kind: 'write', path: toWorkspacePath(shape.path, roots), newContent: shape.newContent } : { kind: 'none' };
}

/** Argument names (besides {@link WRITE_PATH_KEYS}) that name a file a step may touch; arrays of strings count too. */
const OTHER_PATH_KEYS = [
  'paths',
  'files',
  'source',
  'destination',
  'src',
  'dest',
  'from',
  'to',
  'target',
  'old_path',
  'new_path',
  'oldPath',
  'newPath',
];

/**
 * Files a step's arguments name (`path`, `file_path`, `source`/`destination`, `paths: [...]`, …), placed in the
 * workspace, without duplicates. For the checkpoint: a file an edit tool names is captured even when its dry run
 * failed. Values that are not strings are ignored.
 */
export function stepPaths(call: Pick<ActionCall, 'args'>, roots: string | readonly string[]): WorkspacePath[] {
  const args = call?.args;
  if (!isPlainObject(args)) return [];
  const seen = new Set<string>();
  const out: WorkspacePath[] = [];
  for (const key of [...WRITE_PATH_KEYS, ...OTHER_PATH_KEYS]) {
    if (!Object.hasOwn(args, key)) continue;
    const value = args[key];
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== 'string' || v.trim() === '') continue;
      const wp = toWorkspacePath(v, roots);
      const id = `${wp.inside}:${wp.path}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(wp);
    }
  }
  return out;
}

/**
 * The workspace-relative paths a plan may touch, for its checkpoint: the files its globs matched, the files its steps'
 * arguments name, and the files predicted to be written; without duplicates, sorted. Paths outside the workspace are
 * left out (they are flagged in the panel, never checkpointed).
 */
export function touchedPaths(
  globMatches: readonly string[],
  steps: readonly Pick<ActionCall, 'args'>[],
  predicted: readonly Pick<PredictedFile, 'path' | 'inside'>[],
  roots: string | readonly string[],
): string[] {
  const out = new Set<string>();
  for (const p of globMatches) {
    const wp = toWorkspacePath(p, roots);
    if (wp.inside) out.add(wp.path);
  }
  for (const step of steps) for (const wp of stepPaths(step, roots)) if (wp.inside) out.add(wp.path);
  for (const f of predicted) if (f.inside) out.add(f.path);
  return [...out].sort();
}

// ---------------------------------------------------------------------------------------------------------------
// Dry-run results

/** One file of a parsed unified diff. */
export interface PatchFile {
  /** The file's path as the diff names it (tab suffix and git `a/`/`b/` prefixes removed). */
  path: string;
  /** `create`: the old side is /dev/null; `delete`: the new side is. */
  change: 'modify' | 'create' | 'delete';
  /** This file's part of the diff, as unified diff text (with `---`/`+++` headers). */
  patch: string;
  /** Number of hunks (0: the tool would change nothing in it). */
  hunks: number;
}

/**
 * The whole text a dry run returned: its text blocks joined by newlines (uncut), else `structuredContent.content`
 * when that is a string. Empty for anything else.
 */
export function dryRunText(result: ToolResult | undefined): string {
  if (!result || typeof result !== 'object') return '';
  const texts = (Array.isArray(result.content) ? result.content : []).flatMap((block) =>
    block &&
    typeof block === 'object' &&
    (block as { type?: unknown }).type === 'text' &&
    typeof (block as { text?: unknown }).text === 'string'
      ? [(block as { text: string }).text]
      : [],
  );
  if (texts.length) return texts.join('\n');
  const structured = result.structuredContent;
  return isPlainObject(structured) && typeof structured.content === 'string' ? structured.content : '';
}

/**
 * Parses a unified diff as tools return it: inside a fenced block (three or more backticks or tildes, info string
 * `diff`/`patch`/none; a longer fence holds text with shorter ones) or bare; `Index:` and `====` lines, `---`/`+++`
 * headers with tab suffixes (`\toriginal`), git `diff --git a/x b/x` headers; one or several files. Returns the files
 * (possibly with 0 hunks) or an error in words when the text holds no diff.
 */
export function parseUnifiedDiff(text: unknown): { files: PatchFile[] } | { error: string } {
  if (typeof text !== 'string' || text.trim() === '') return { error: 'The tool returned no text, so there is no diff to show.' };
  const body = fencedBodies(text) ?? text;
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(body.replace(/\r\n/g, '\n'));
  } catch (err) {
    return { error: `The tool's diff could not be read: ${err instanceof Error ? err.message : String(err)}.` };
  }
  const files: PatchFile[] = [];
  for (const p of parsed) {
    const name = patchPath(p);
    if (name === undefined) {
      if (p.hunks.length) return { error: "The tool's diff has hunks but names no file (no ---/+++ or Index: header)." };
      continue;
    }
    const change = p.oldFileName === '/dev/null' ? 'create' : p.newFileName === '/dev/null' ? 'delete' : 'modify';
    let patch: string;
    try {
      patch = formatPatch({ ...p, isGit: false, oldFileName: p.oldFileName ?? name, newFileName: p.newFileName ?? name });
    } catch {
      patch = body;
    }
    files.push({ path: name, change, patch, hunks: p.hunks.length });
  }
  if (files.length === 0) return { error: "The tool's result holds no unified diff (no ---/+++ or @@ lines)." };
  return { files };
}

/** The bodies of the fenced code blocks in `text` whose info string is `diff`, `patch` or empty, joined; undefined if none. */
function fencedBodies(text: string): string | undefined {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const bodies: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const info = open[2].toLowerCase();
    let j = i + 1;
    const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    while (j < lines.length && !closing.test(lines[j])) j++;
    if (info === '' || info === 'diff' || info === 'patch' || info === 'udiff') bodies.push(lines.slice(i + 1, j).join('\n'));
    i = j;
  }
  return bodies.length ? `${bodies.join('\n')}\n` : undefined;
}

function patchPath(p: StructuredPatch): string | undefined {
  const strip = (name: string | undefined, prefix: string): string | undefined => {
    if (name === undefined || name === '' || name === '/dev/null') return undefined;
    const gitPrefixed = p.isGit || (p.oldFileName?.startsWith('a/') && p.newFileName?.startsWith('b/'));
    return gitPrefixed && name.startsWith(prefix) ? name.slice(prefix.length) : name;
  };
  return strip(p.newFileName, 'b/') ?? strip(p.oldFileName, 'a/') ?? (p.index?.trim() || undefined);
}

/**
 * Applies one file's patch (a {@link PatchFile.patch}) to `original` with the `diff` package: the predicted text
 * after the step, or an error in words when the hunks do not fit (the file changed since the dry run). Line endings:
 * an LF patch applies to a CRLF file and keeps CRLF (server-filesystem would write LF: the diff then shows only
 * the edit, not the line-ending change).
 */
export function applyFilePatch(original: string, patch: string): { text: string } | { error: string } {
  try {
    const result = applyPatch(typeof original === 'string' ? original : '', patch);
    return result === false
      ? { error: 'The predicted diff no longer fits the file (it changed since the dry run); run the preview again.' }
      : { text: result };
  } catch (err) {
    return { error: `The predicted diff could not be applied: ${err instanceof Error ? err.message : String(err)}.` };
  }
}

/** A file a step is predicted to write, ready to show as a diff. */
export interface PredictedFile {
  /** Workspace-relative when `inside`, else the path as given. */
  path: string;
  inside: boolean;
  /** Why the path is flagged (outside the workspace). */
  outsideReason?: string;
  /** `arguments`: the step's own content; `dryRun`: the diff its tool returned. */
  source: 'arguments' | 'dryRun';
  change: 'modify' | 'create' | 'delete';
  /** Full new content (source `arguments`). */
  newContent?: string;
  /** Unified diff of this file (source `dryRun`). */
  patch?: string;
}

/**
 * The files a dry run predicts, from the tool's result: an `isError` result or a result without a diff gives an
 * error in words (e.g. the edit's text was not found — the step would fail the same way).
 */
export function predictFromDryRun(
  result: ToolResult | undefined,
  roots: string | readonly string[],
): { files: PredictedFile[] } | { error: string } {
  const text = dryRunText(result);
  if (result?.isError === true) return { error: `The dry run failed: ${text.trim() || 'the tool reported an error without a message'}` };
  const parsed = parseUnifiedDiff(text);
  if ('error' in parsed) return parsed;
  return {
    files: parsed.files.map((f) => {
      const wp = toWorkspacePath(f.path, roots);
      return {
        path: wp.path,
        inside: wp.inside,
        outsideReason: wp.inside ? undefined : wp.reason,
        source: 'dryRun',
        change: f.change,
        patch: f.patch,
      };
    }),
  };
}

/** The file a write-shaped step predicts. */
export function predictFromWrite(prediction: Extract<StepPrediction, { kind: 'write' }>, existsNow: boolean): PredictedFile {
  const wp = prediction.path;
  return {
    path: wp.path,
    inside: wp.inside,
    outsideReason: wp.inside ? undefined : wp.reason,
    source: 'arguments',
    change: existsNow ? 'modify' : 'create',
    newContent: prediction.newContent,
  };
}

/**
 * The predicted text after the step, given the file's current text (`undefined` when it does not exist): the new
 * content, the patch applied, or `''` for a predicted deletion.
 */
export function predictedAfter(file: PredictedFile, current: string | undefined): { text: string } | { error: string } {
  if (file.change === 'delete') return { text: '' };
  if (file.newContent !== undefined) return { text: file.newContent };
  if (file.patch !== undefined) return applyFilePatch(current ?? '', file.patch);
  return { error: 'Nothing is known of what this step writes.' };
}

// ---------------------------------------------------------------------------------------------------------------
// A plan's predictions, step by step

/** What predicting a step needs from its host (the extension's registry, settings, file system and door). */
export interface PredictPorts {
  /** The workspace folder and its aliases (see {@link toWorkspacePath}). */
  roots: readonly string[];
  /** The tool as its server lists it now; undefined when unknown. */
  tool: (server: string, tool: string) => ToolDescription | undefined;
  /** Whether a workspace-relative file exists now. */
  exists: (path: string) => boolean | Promise<boolean>;
  /** `plangate.previewWithDryRun`. */
  dryRun: boolean;
  /** `plangate.allowCrossServerSteps`. */
  allowCrossServer: boolean;
  /** The door's word on a step's preview (Door.previewClearance). */
  clearance: (planId: string, step: number, server: string, tool: string, args: Record<string, unknown>) => PreviewClearance;
  /** Sends a preview through the door (Door.call). */
  send: (call: DoorCall) => Promise<ToolResult>;
  log?: (line: string) => void;
}

/** A step's predicted files and what the panel shows of them. */
export interface StepPredictions {
  views: PredictedView[];
  files: (PredictedFile & { step: number })[];
}

/**
 * What step `step` of plan `planId` will write: from its arguments, or from a dry run of its tool. A dry run is a call
 * like any other: without `pressed` it is sent only when the door clears it by itself (the policy allows the call
 * outright, on the plan's own server); otherwise the step waits for the user's Preview (`press`, and why), or says the
 * policy denies it. `pressed`: the user pressed Preview (the door asks on the card where the policy asks). Never throws.
 */
export async function predictStepFiles(
  planId: string,
  step: Pick<StepRecord, 'index' | 'call' | 'server' | 'crossServer'>,
  ports: PredictPorts,
  pressed = false,
): Promise<StepPredictions> {
  const out: StepPredictions = { views: [], files: [] };
  const server = step.server;
  const tool = server ? ports.tool(server, step.call.tool) : undefined;
  const prediction = predictStep(step.call, tool, ports.roots);
  const note = (error: string, press = false): StepPredictions => {
    out.views.push({
      step: step.index,
      path: stepPaths(step.call, ports.roots)[0]?.path ?? step.call.tool,
      inside: true,
      change: 'modify',
      source: 'dryRun',
      error,
      ...(press ? { press: true } : {}),
    });
    return out;
  };
  if (prediction.kind === 'write') {
    const file = predictFromWrite(prediction, prediction.path.inside && (await ports.exists(prediction.path.path)));
    out.files.push({ ...file, step: step.index });
    out.views.push(predictedView(file, step.index));
    return out;
  }
  if (prediction.kind !== 'dryRun' || !server) return out;
  if (!ports.dryRun) return note('Not previewed: dry-run previews are off (setting plangate.previewWithDryRun).');
  if (step.crossServer && !ports.allowCrossServer)
    return note(`Not previewed: the step would run on another server ('${server}') and cross-server steps are off.`);
  const clearance = ports.clearance(planId, step.index, server, step.call.tool, prediction.args);
  if (clearance.kind === 'denied') return note(clearance.why);
  if (clearance.kind === 'press' && !pressed) return note(`${clearance.why} Press Preview to decide.`, true);
  ports.log?.(`Dry run of step ${step.index + 1} (${step.call.tool} on ${server}, ${prediction.flag}: true) to preview its changes`);
  let result: ToolResult;
  try {
    result = await ports.send({
      server,
      tool: step.call.tool,
      args: prediction.args,
      entrance: 'preview',
      decision: { by: 'preview', planId, step: step.index, ...(pressed ? { pressed: true as const } : {}) },
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof GateRefusal && err.kind === 'declined')
      return note(`Not previewed: ${message} Press Preview to be asked again.`, true);
    return note(`The dry run failed: ${message}`);
  }
  const predicted = predictFromDryRun(result, ports.roots);
  if ('error' in predicted) return note(predicted.error);
  for (const f of predicted.files) {
    out.files.push({ ...f, step: step.index });
    out.views.push(predictedView(f, step.index));
  }
  return out;
}

/** A predicted file as the panel lists it. */
export function predictedView(file: PredictedFile, step: number): PredictedView {
  return { step, path: file.path, inside: file.inside, note: file.outsideReason, change: file.change, source: file.source };
}

// ---------------------------------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
