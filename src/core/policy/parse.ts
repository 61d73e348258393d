/**
 * Reading a policy source: the user's `plangate.policy` setting (a value) or the workspace file
 * `.vscode/plangate-policy.json` (JSONC text, through jsonc-parser). Both have the shape `{ "rules": [ … ] }`. A rule
 * that is not valid is left out, with a problem naming its field (and, for the file, its line and column); the valid
 * rules still apply. Pure.
 */
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { compilePathGlob, parseJsonPath } from './evaluate';
import { compileNameGlob } from './nameGlob';
import { compilePattern } from './pattern';
import {
  POLICY_ENTRANCES,
  type AnnotationCondition,
  type ArgCondition,
  type PolicyDecision,
  type PolicyEntrance,
  type RuleSource,
  type SourcedRule,
} from './rules';

/** Where a problem is in a file: 0-based line and column of its start and end. */
export interface ProblemRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** Something wrong (or doubtful) in a policy source. `path`: where in the JSON (e.g. `['rules', 2, 'tool']`). */
export interface PolicyProblem {
  severity: 'error' | 'warning';
  message: string;
  path: (string | number)[];
  /** For a file: where the problem is. */
  range?: ProblemRange;
  /** The rule it concerns, when it has an id. */
  ruleId?: string;
}

export interface ParsedPolicy {
  rules: SourcedRule[];
  problems: PolicyProblem[];
}

const DECISIONS: readonly PolicyDecision[] = ['allow', 'ask', 'deny'];
const RULE_KEYS = new Set([
  'id',
  'decision',
  'reason',
  'server',
  'serverKey',
  'tool',
  'annotations',
  'args',
  'entrance',
  'sandboxed',
  'description',
  'review',
  'hook',
]);
const ANNOTATION_KEYS = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;
const ARG_KEYS = new Set(['path', 'glob', 'pattern', 'outsideWorkspace']);
/** More rules than this are cut (each is checked on every call). */
export const MAX_RULES = 1000;

/** Reads a policy value (the setting's, or a file's parsed JSON). */
export function parsePolicyValue(value: unknown, source: RuleSource): ParsedPolicy {
  const problems: PolicyProblem[] = [];
  const rules: SourcedRule[] = [];
  if (value === undefined || value === null) return { rules, problems };
  if (!isObject(value)) {
    problems.push({ severity: 'error', message: 'A policy is an object: { "rules": [ … ] }.', path: [] });
    return { rules, problems };
  }
  for (const key of Object.keys(value))
    if (key !== 'rules' && key !== '$schema')
      problems.push({ severity: 'warning', message: `Unknown key '${key}' is ignored (a policy has "rules").`, path: [key] });
  const list = value.rules;
  if (list === undefined) return { rules, problems };
  if (!Array.isArray(list)) {
    problems.push({ severity: 'error', message: '"rules" must be a list of rules.', path: ['rules'] });
    return { rules, problems };
  }
  if (list.length > MAX_RULES)
    problems.push({ severity: 'error', message: `Only the first ${MAX_RULES} rules are read.`, path: ['rules', MAX_RULES] });
  const ids = new Map<string, number>();
  list.slice(0, MAX_RULES).forEach((raw, index) => {
    const rule = parseRule(raw, index, source, problems);
    if (!rule) return;
    const first = ids.get(rule.id);
    if (first !== undefined) {
      problems.push({
        severity: 'error',
        message: `Rule id '${rule.id}' is used by rule ${first + 1} already; ids name rules in the ledger, so each must be unique. This rule is ignored.`,
        path: ['rules', index, 'id'],
        ruleId: rule.id,
      });
      return;
    }
    ids.set(rule.id, index);
    rules.push(rule);
  });
  return { rules, problems };
}

/** Reads the workspace file's JSONC text; problems carry their line and column. */
export function parsePolicyText(text: string, source: RuleSource = 'workspace'): ParsedPolicy {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const lines = lineStarts(text);
  const problems: PolicyProblem[] = errors.map((e) => ({
    severity: 'error' as const,
    message: `Not valid JSON: ${describeParseError(printParseErrorCode(e.error))}.`,
    path: [],
    range: rangeOf(lines, e.offset, Math.max(1, e.length)),
  }));
  if (!tree) return { rules: [], problems };
  const parsed = parsePolicyValue(getNodeValue(tree), source);
  for (const p of parsed.problems) problems.push(locate(p, tree, lines));
  return { rules: parsed.rules, problems };
}

/** Gives a problem found on the value the range of its node in the file's tree (the nearest node that exists). */
export function locate(problem: PolicyProblem, tree: Node | undefined, lines: number[]): PolicyProblem {
  if (!tree) return problem;
  let path = problem.path;
  let node: Node | undefined;
  while (!(node = findNodeAtLocation(tree, path)) && path.length > 0) path = path.slice(0, -1);
  node ??= tree;
  // A property's name is where the eye looks for "this key is wrong": use the key for unknown keys.
  const target = node.parent?.type === 'property' && /unknown key/i.test(problem.message) ? (node.parent.children?.[0] ?? node) : node;
  return { ...problem, range: rangeOf(lines, target.offset, target.length) };
}

/** Offsets of the start of each line. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

export function rangeOf(lines: number[], offset: number, length: number): ProblemRange {
  const at = (o: number) => {
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lines[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, column: o - lines[lo]! };
  };
  const start = at(offset);
  const end = at(offset + length);
  return { line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
}

function describeParseError(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function parseRule(raw: unknown, index: number, source: RuleSource, problems: PolicyProblem[]): SourcedRule | undefined {
  const at = (...rest: (string | number)[]) => ['rules', index, ...rest];
  const error = (message: string, ...rest: (string | number)[]) => {
    problems.push({ severity: 'error', message, path: at(...rest), ...(ruleId ? { ruleId } : {}) });
    return undefined;
  };
  let ruleId: string | undefined;
  if (!isObject(raw)) return error(`Rule ${index + 1} is not an object.`);
  if (typeof raw.id === 'string' && raw.id.trim() !== '') ruleId = raw.id.trim();
  const name = ruleId ? `Rule '${ruleId}'` : `Rule ${index + 1}`;
  for (const key of Object.keys(raw))
    if (!RULE_KEYS.has(key))
      problems.push({
        severity: 'warning',
        message: `${name}: unknown key '${key}' is ignored.`,
        path: at(key),
        ...(ruleId ? { ruleId } : {}),
      });
  if (!ruleId) return error(`${name} needs an "id" (a short name the ledger and the panel use).`, 'id');
  if (!DECISIONS.includes(raw.decision as PolicyDecision))
    return error(`${name}: "decision" must be "allow", "ask" or "deny".`, 'decision');
  if (typeof raw.reason !== 'string' || raw.reason.trim() === '')
    return error(`${name} needs a "reason": it is shown wherever the rule decides, and sent to the caller with a deny.`, 'reason');
  const rule: SourcedRule = { id: ruleId, decision: raw.decision as PolicyDecision, reason: raw.reason.trim(), source, index };
  // A glob or pattern Plangate cannot run is an error, but the rule is kept: evaluate.ts lets the condition hold for a
  // deny or ask rule (so a rule that protects never silently stops) and not for an allow rule.
  const unusable = (what: string, reason: string, ...rest: (string | number)[]) =>
    problems.push({
      severity: 'error',
      message: `${what} ${reason}. Until it is fixed, ${
        rule.decision === 'allow' ? 'this allow rule never applies' : `this ${rule.decision} rule applies as if it matched`
      }.`,
      path: at(...rest),
      ruleId: rule.id,
    });
  for (const key of ['server', 'tool'] as const) {
    const v = raw[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') return error(`${name}: "${key}" must be a glob (text), e.g. "fs-*".`, key);
    const glob = compileNameGlob(v);
    if (!glob.ok) unusable(`${name}: "${key}" glob ${shown(v)}`, glob.reason, key);
    rule[key] = v;
  }
  if (raw.serverKey !== undefined) {
    if (typeof raw.serverKey !== 'string' || raw.serverKey === '')
      return error(`${name}: "serverKey" must be text (the server's identity, as the card writes it).`, 'serverKey');
    rule.serverKey = raw.serverKey;
  }
  if (raw.annotations !== undefined) {
    if (!isObject(raw.annotations))
      return error(`${name}: "annotations" must be an object such as { "destructive": true }.`, 'annotations');
    const ann: AnnotationCondition = {};
    for (const [k, v] of Object.entries(raw.annotations)) {
      if (!(ANNOTATION_KEYS as readonly string[]).includes(k))
        return error(`${name}: annotation '${k}' is not one of ${ANNOTATION_KEYS.join(', ')}.`, 'annotations', k);
      if (typeof v !== 'boolean') return error(`${name}: annotation '${k}' must be true or false.`, 'annotations', k);
      ann[k as (typeof ANNOTATION_KEYS)[number]] = v;
    }
    rule.annotations = ann;
  }
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args)) return error(`${name}: "args" must be a list of conditions.`, 'args');
    const args: ArgCondition[] = [];
    for (let i = 0; i < raw.args.length; i++) {
      const c = parseArgCondition(
        raw.args[i],
        `${name}, argument condition ${i + 1}`,
        (message, ...rest) => error(message, 'args', i, ...rest),
        (what, reason, ...rest) => unusable(what, reason, 'args', i, ...rest),
      );
      if (!c) return undefined;
      args.push(c);
    }
    rule.args = args;
  }
  if (raw.entrance !== undefined) {
    const list = typeof raw.entrance === 'string' ? [raw.entrance] : raw.entrance;
    if (!Array.isArray(list) || list.length === 0 || !list.every((e) => POLICY_ENTRANCES.includes(e as PolicyEntrance)))
      return error(`${name}: "entrance" must be one or more of ${POLICY_ENTRANCES.join(', ')}.`, 'entrance');
    rule.entrance = [...new Set(list as PolicyEntrance[])];
  }
  if (raw.sandboxed !== undefined) {
    if (typeof raw.sandboxed !== 'boolean') return error(`${name}: "sandboxed" must be true or false.`, 'sandboxed');
    rule.sandboxed = raw.sandboxed;
  }
  if (raw.review !== undefined) {
    if (raw.review !== 'result')
      return error(`${name}: "review" must be "result" (the result is shown to you before the caller reads it).`, 'review');
    rule.review = 'result';
  }
  if (raw.hook !== undefined) {
    if (typeof raw.hook !== 'string' || raw.hook.trim() === '')
      return error(`${name}: "hook" must be the name of a hook in your setting plangate.decisionHooks.`, 'hook');
    if (rule.decision !== 'ask')
      return error(
        `${name}: a rule with a "hook" must decide "ask" (what applies when the hook fails); the hook answers allow, ask or deny in its place.`,
        'decision',
      );
    if (source !== 'user')
      // A hook is a command on the user's machine: only the user's own rules may hand it a call. The rule still asks.
      problems.push({
        severity: 'warning',
        message: `${name}: "hook" is read from your user settings (plangate.policy) only; here it is ignored and the rule asks.`,
        path: at('hook'),
        ruleId: rule.id,
      });
    else rule.hook = raw.hook.trim();
  }
  return rule;
}

function parseArgCondition(
  raw: unknown,
  name: string,
  error: (message: string, ...rest: (string | number)[]) => undefined,
  unusable: (what: string, reason: string, ...rest: (string | number)[]) => void,
): ArgCondition | undefined {
  if (!isObject(raw)) return error(`${name} is not an object such as { "path": "$.path", "glob": "src/**" }.`);
  for (const key of Object.keys(raw)) if (!ARG_KEYS.has(key)) return error(`${name}: unknown key '${key}'.`, key);
  if (typeof raw.path !== 'string' || !parseJsonPath(raw.path))
    return error(`${name}: "path" must be a JSON path such as "$.path" or "$.files[*]".`, 'path');
  const c: ArgCondition = { path: raw.path };
  if (raw.glob !== undefined) {
    if (typeof raw.glob !== 'string' || raw.glob === '') return error(`${name}: "glob" must be text.`, 'glob');
    const refused = pathGlobProblem(raw.glob);
    if (refused) unusable(`${name}: "glob" ${shown(raw.glob)}`, refused, 'glob');
    c.glob = raw.glob;
  }
  if (raw.pattern !== undefined) {
    if (typeof raw.pattern !== 'string') return error(`${name}: "pattern" must be a regular expression (text).`, 'pattern');
    const compiled = compilePattern(raw.pattern);
    if (!compiled.ok) unusable(`${name}: "pattern" ${shown(raw.pattern)}`, compiled.reason, 'pattern');
    c.pattern = raw.pattern;
  }
  if (raw.outsideWorkspace !== undefined) {
    if (typeof raw.outsideWorkspace !== 'boolean') return error(`${name}: "outsideWorkspace" must be true or false.`, 'outsideWorkspace');
    c.outsideWorkspace = raw.outsideWorkspace;
  }
  if (c.glob === undefined && c.pattern === undefined && c.outsideWorkspace === undefined)
    return error(`${name} tests nothing: give it a "glob", a "pattern" or "outsideWorkspace".`);
  return c;
}

/**
 * Why a path glob cannot be used, compiled as evaluation compiles it (picomatch refuses one longer than 64 KiB), or
 * undefined when it can.
 */
function pathGlobProblem(glob: string): string | undefined {
  try {
    compilePathGlob(glob);
    return undefined;
  } catch (err) {
    return `is not a glob Plangate can use (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** A glob or pattern quoted in a message (a long one cut). */
function shown(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
