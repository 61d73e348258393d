/**
 * The policy's decision for one call: which rules match it, which one wins, and why. Deny beats ask beats allow,
 * whatever the order; among rules of the same decision the first (the user's before the workspace's) names the
 * reason. Then:
 * - a tool whose definition declares `_meta.approval: "ask"` is asked unless a rule denies it (an allow rule cannot
 *   lift the tool's own declaration);
 * - with no rule matching, a call a server's app makes is asked (the app's button is the server's UI, not a view of
 *   the call), and so is a destructive tool (its annotations say so), and a server's sampling request (the `sampling`
 *   entrance: the server wants the user's language model); anything else is allowed.
 * What covers an `ask` depends on the entrance, and the door decides it: a plan's approval covers its steps; a collect
 * form's Submit covers Plangate's default and the tool's declaration (the user reviewed exactly this payload), not a
 * rule that asks; Call Tool's, the agent's and an app's calls open the single-call card.
 * - a workspace rule never loosens what the user's own policy (with Plangate's defaults) decides: where it would, the
 *   user's decision stands and the verdict names the workspace rule (`notHonoured`), so the panel says so.
 * Server data (names, annotations, `_meta`, arguments) is untrusted: it is only ever compared, never executed, and every
 * match takes time linear in it: names and patterns run on RE2 (nameGlob.ts, pattern.ts), path globs on picomatch.
 * A condition Plangate cannot run (a pattern RE2 refuses, a name glob it cannot read: both reported when the policy is
 * read; a path glob picomatch refuses, longer than 64 KiB) or cannot settle leans to the stricter side: it holds for a
 * deny or ask rule, and not for an allow rule. The same goes for a path argument that reads two ways (as written, and
 * where a link on disk leads): a deny or ask rule's `glob` holds when either form matches, an allow rule's only when
 * both do.
 * Pure: no vscode, no node built-ins; the disk only through {@link PolicyContext.realPath}.
 */
import picomatch from 'picomatch';
import { stepHint } from '../base/toolHints';
import {
  DECISION_RANK,
  refOf,
  type ArgCondition,
  type PolicyDecision,
  type PolicyEntrance,
  type PolicyRules,
  type RuleRef,
  type SourcedRule,
} from './rules';
import { compileNameGlob } from './nameGlob';
import { compilePattern } from './pattern';
import { resolveArgPath, type RealPath, type ResolvedArgPath } from './workspacePath';

/** One call as the policy sees it. `annotations` and `meta` are the tool's definition as its server lists it (untrusted). */
export interface PolicyCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  entrance: PolicyEntrance;
  annotations?: unknown;
  meta?: unknown;
  /** Whether the server runs in a sandbox now (Plangate started it so); absent or false: not sandboxed. */
  sandboxed?: boolean;
  /**
   * What decision hooks answered for this call, by the id of the user rule that named the hook: that rule decides the
   * hook's answer in place of its own `ask` (the door asks the hook, then the policy again; see door.ts).
   */
  hookAnswers?: Readonly<Record<string, PolicyDecision>>;
  /** The server's identity (appNetwork.ts `grantKey`), for rules with `serverKey`; absent: not known. */
  serverKey?: string;
}

export interface PolicyContext {
  /** The workspace folder (absolute) that argument paths resolve against; without one every path is outside. */
  workspaceRoot?: string;
  /** Where a path leads on disk (links resolved): the CLI and the extension pass src/node/realPath.ts. Without it, paths are read as written. */
  realPath?: RealPath;
}

/** What the policy decided for a call, and why. */
export interface PolicyVerdict {
  decision: PolicyDecision;
  /** The rule that decided (a user or workspace rule, Plangate's default, or the tool's own declaration). */
  rule: RuleRef;
  /** Every user and workspace rule that matched, in order. */
  matched: RuleRef[];
  /** A workspace rule that would have loosened the user's decision, and was not honoured. */
  notHonoured?: RuleRef;
  /** A matching rule asks that the result be reviewed before the caller reads it (the first such; never with a deny). */
  review?: RuleRef;
}

/** The id of Plangate's own rule that asks before a destructive tool runs. */
export const DEFAULT_DESTRUCTIVE_ID = 'plangate:destructive';
/** The id of Plangate's own rule that asks before a call a server's app makes. */
export const DEFAULT_APP_ID = 'plangate:app';
/** The id of Plangate's own rule that asks before a server's sampling request goes to a language model. */
export const DEFAULT_SAMPLING_ID = 'plangate:sampling';
/** The id of Plangate's own rule that lets a call without any matching rule run. */
export const DEFAULT_ALLOW_ID = 'plangate:default';
/** The id of the rule a tool's `_meta.approval: "ask"` makes. */
export const TOOL_APPROVAL_ID = 'tool:approval';

/** Whether the tool's definition declares that the host must ask before it runs (`_meta.approval: "ask"`). */
export function toolAsks(meta: unknown): boolean {
  return !!meta && typeof meta === 'object' && !Array.isArray(meta) && (meta as Record<string, unknown>).approval === 'ask';
}

/** The policy's verdict on `call` under `rules`. Never throws on hostile input. */
export function evaluate(rules: PolicyRules, call: PolicyCall, context: PolicyContext = {}): PolicyVerdict {
  const paths = new Map<string, ResolvedArgPath>(); // each argument value is resolved once per call
  // …and each place on disk looked up once per call (the workspace folder's real path, shared by every value).
  if (context.realPath) context = { ...context, realPath: once(context.realPath) };
  const user = rules.user.map((r) => hookAnswered(r, call)).filter((r) => ruleMatches(r, call, context, paths));
  // The card's standing approvals are the user's own word: weighed with the user's rules, after them.
  if (rules.approvals) for (const r of rules.approvals) if (ruleMatches(r, call, context, paths)) user.push(r);
  const workspace = rules.workspace.filter((r) => ruleMatches(r, call, context, paths));
  const mine = decide(user, call);
  const all = decide([...user, ...workspace], call);
  const matched = [...user, ...workspace].map(refOf);
  const reviewer = [...user, ...workspace].find((r) => r.review === 'result' && r.decision !== 'deny');
  const withReview = (v: PolicyVerdict): PolicyVerdict => (reviewer && v.decision !== 'deny' ? { ...v, review: refOf(reviewer) } : v);
  if (DECISION_RANK[all.decision] < DECISION_RANK[mine.decision]) {
    // The workspace would loosen the user's decision: the user's stands.
    // Stryker disable next-line ArrowFunction,ConditionalExpression,EqualityOperator: equivalent — the workspace loosens only where no user rule matched (a matching user rule, or the tool's declaration, leaves `all` at least as strict as `mine`), so `all.rule` is the first workspace rule of `all.decision`, the one found here
    const loosening = workspace.find((r) => r.decision === all.decision);
    return withReview({ ...mine, matched, notHonoured: loosening ? refOf(loosening) : all.rule });
  }
  return withReview({ ...all, matched });
}

/** A user rule that names a hook, with the hook's answer for this call as its decision (when the hook answered). */
function hookAnswered(rule: SourcedRule, call: PolicyCall): SourcedRule {
  const answer = rule.hook && call.hookAnswers && Object.hasOwn(call.hookAnswers, rule.id) ? call.hookAnswers[rule.id] : undefined;
  return answer === 'allow' || answer === 'ask' || answer === 'deny' ? { ...rule, decision: answer } : rule;
}

/** `realPath` with its answers (and its failures) kept for the life of one verdict. */
function once(realPath: RealPath): RealPath {
  const seen = new Map<string, { real: string | undefined } | { error: unknown }>();
  return (path) => {
    let r = seen.get(path);
    if (!r) {
      try {
        r = { real: realPath(path) };
      } catch (error) {
        r = { error };
      }
      seen.set(path, r);
    }
    if ('error' in r) throw r.error;
    return r.real;
  };
}

/** The decision of the matched rules (in order) with Plangate's defaults and the tool's declaration. */
function decide(matched: readonly SourcedRule[], call: PolicyCall): { decision: PolicyDecision; rule: RuleRef } {
  let best: SourcedRule | undefined;
  for (const r of matched) if (!best || DECISION_RANK[r.decision] > DECISION_RANK[best.decision]) best = r;
  if (best?.decision === 'deny') return { decision: 'deny', rule: refOf(best) };
  // A rule's own ask names the rule (a button that showed the call covers the tool's declaration, not a rule's ask).
  if (toolAsks(call.meta) && best?.decision !== 'ask') {
    return {
      decision: 'ask',
      rule: {
        id: TOOL_APPROVAL_ID,
        source: 'tool',
        decision: 'ask',
        reason: `tool '${call.tool}' declares in its definition that it must be asked about (_meta.approval: "ask")`,
      },
    };
  }
  if (best) return { decision: best.decision, rule: refOf(best) };
  if (call.entrance === 'sampling') {
    return {
      decision: 'ask',
      rule: {
        id: DEFAULT_SAMPLING_ID,
        source: 'default',
        decision: 'ask',
        reason: `server '${call.server}' asks to run a language model for it (sampling), and sampling requests are asked by default`,
      },
    };
  }
  if (call.entrance === 'app') {
    return {
      decision: 'ask',
      rule: {
        id: DEFAULT_APP_ID,
        source: 'default',
        decision: 'ask',
        reason: `the app of server '${call.server}' asked for this call, and calls an app makes are asked by default`,
      },
    };
  }
  if (stepHint(call.annotations).effect === 'destructive') {
    return {
      decision: 'ask',
      rule: {
        id: DEFAULT_DESTRUCTIVE_ID,
        source: 'default',
        decision: 'ask',
        reason: `tool '${call.tool}' says it may destroy data (destructiveHint), and destructive tools are asked by default`,
      },
    };
  }
  return {
    decision: 'allow',
    rule: { id: DEFAULT_ALLOW_ID, source: 'default', decision: 'allow', reason: 'no rule asks about or denies it' },
  };
}

/** Whether every condition of `rule` holds for `call`. */
export function ruleMatches(
  rule: SourcedRule,
  call: PolicyCall,
  context: PolicyContext = {},
  paths: Map<string, ResolvedArgPath> = new Map(),
): boolean {
  if (rule.entrance && !rule.entrance.includes(call.entrance)) return false;
  if (rule.sandboxed !== undefined && rule.sandboxed !== (call.sandboxed === true)) return false;
  const strict = rule.decision !== 'allow';
  if (rule.serverKey !== undefined && (call.serverKey === undefined ? !strict : call.serverKey !== rule.serverKey)) return false;
  if (rule.server !== undefined && !nameHolds(rule.server, call.server, strict)) return false;
  if (rule.tool !== undefined && !nameHolds(rule.tool, call.tool, strict)) return false;
  if (rule.annotations) {
    const hint = stepHint(call.annotations);
    const has = {
      readOnly: hint.effect === 'read',
      destructive: hint.effect === 'destructive',
      idempotent: hint.idempotent,
      openWorld: hint.openWorld,
    };
    for (const key of ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const) {
      const want = rule.annotations[key];
      if (want !== undefined && has[key] !== want) return false;
    }
  }
  return (rule.args ?? []).every((c) => argMatches(c, call.args, context, paths, strict));
}

/** Compiled globs and expressions, by their text: a policy's rules are compiled once, not at every call. */
const compiled = new Map<string, (text: string) => boolean | undefined>();

/** The matcher for `key`, made once; its answer is undefined when the glob or pattern cannot be used. */
function cachedMatcher(key: string, make: () => (text: string) => boolean | undefined): (text: string) => boolean | undefined {
  let m = compiled.get(key);
  if (!m) {
    try {
      m = make();
    } catch {
      m = () => undefined;
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — the bound only caps memory: a cleared matcher is compiled again on its next use, with the same answers
    if (compiled.size > 5000) compiled.clear();
    compiled.set(key, m);
  }
  return m;
}

function nameMatcher(glob: string): (name: string) => boolean | undefined {
  return cachedMatcher(`n\u0000${glob}`, () => {
    const c = compileNameGlob(glob);
    return c.ok ? c.test : () => undefined;
  });
}

/**
 * A server or tool name against a rule's glob, names as names (see nameGlob.ts: `*` matches `/` and leading dots;
 * `\` escapes a glob character). False when the glob cannot be used.
 */
export function nameMatches(glob: string, name: string): boolean {
  return typeof name === 'string' && nameMatcher(glob)(name) === true;
}

/**
 * The longest server or tool name a glob is tested on (MCP suggests at most 128 characters): a longer one is a server
 * trying to make every rule cost, and is not read (see {@link nameHolds}).
 */
export const MAX_NAME_LENGTH = 1000;

/**
 * {@link nameMatches} for a rule: a glob that cannot be used, or a name longer than {@link MAX_NAME_LENGTH}, holds for
 * a deny or ask rule (`strict`) and not for an allow rule.
 */
function nameHolds(glob: string, name: string, strict: boolean): boolean {
  if (typeof name !== 'string') return false;
  if (name.length > MAX_NAME_LENGTH) return strict;
  return nameMatcher(glob)(name) ?? strict;
}

/** The longest text a `pattern` is tested on (a longer value is cut there): keeps a costly expression bounded. */
const MAX_PATTERN_INPUT = 10_000;

function argMatches(
  condition: ArgCondition,
  args: Record<string, unknown>,
  context: PolicyContext,
  paths: Map<string, ResolvedArgPath>,
  strict: boolean,
): boolean {
  const values = jsonPathValues(args, condition.path);
  return values.some((value) => {
    if (condition.glob !== undefined || condition.outsideWorkspace !== undefined) {
      if (typeof value !== 'string') return false;
      let resolved = paths.get(value);
      if (!resolved) paths.set(value, (resolved = resolveArgPath(value, context.workspaceRoot, context.realPath)));
      if (condition.outsideWorkspace !== undefined && resolved.outside !== condition.outsideWorkspace) return false;
      if (condition.glob !== undefined) {
        const glob = condition.glob;
        const hits = resolved.forms.map((form) => pathMatches(glob, form) ?? strict);
        if (strict ? !hits.some(Boolean) : !hits.every(Boolean)) return false;
      }
    }
    if (condition.pattern !== undefined) {
      const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
      const pattern = condition.pattern;
      const test = cachedMatcher(`r\u0000${pattern}`, () => {
        const c = compilePattern(pattern);
        return c.ok ? c.test : () => undefined;
      });
      if (!(test(text.slice(0, MAX_PATTERN_INPUT)) ?? strict)) return false;
    }
    return true;
  });
}

/** A rule's argument `glob` as a matcher of paths (picomatch, dot files included); throws when picomatch refuses it. */
export function compilePathGlob(glob: string): (path: string) => boolean {
  return picomatch(glob, { dot: true });
}

/** An argument path against a rule's `glob`; undefined when picomatch refuses the glob. */
function pathMatches(glob: string, path: string): boolean | undefined {
  return cachedMatcher(`g\u0000${glob}`, () => compilePathGlob(glob))(path);
}

/**
 * The values at a JSON path in `root`: `$`, `.key`, `['key']`, `[0]`, `[*]` and `.*` (every element or property). A path
 * without the leading `$` reads from the root. Own properties only (`__proto__` is data).
 */
const parsedPaths = new Map<string, string[] | undefined>();

export function jsonPathValues(root: unknown, path: string): unknown[] {
  let steps = parsedPaths.get(path);
  if (!parsedPaths.has(path)) {
    steps = parseJsonPath(path);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — the bound only caps memory: a cleared path is parsed again on its next use, with the same steps
    if (parsedPaths.size > 5000) parsedPaths.clear();
    parsedPaths.set(path, steps);
  }
  if (!steps) return [];
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if (!value || typeof value !== 'object') continue;
      if (step === '*') next.push(...(Array.isArray(value) ? value : Object.values(value)));
      else if (Object.hasOwn(value, step)) next.push((value as Record<string, unknown>)[step]);
    }
    current = next;
    if (current.length === 0) break;
  }
  return current;
}

/** The steps of a JSON path (keys, indices as text, `*`), or undefined when it is not one. */
export function parseJsonPath(path: string): string[] | undefined {
  if (typeof path !== 'string') return undefined;
  let rest = path.trim();
  if (rest.startsWith('$')) rest = rest.slice(1);
  else if (rest !== '' && !rest.startsWith('.') && !rest.startsWith('[')) rest = `.${rest}`;
  const steps: string[] = [];
  while (rest !== '') {
    let m: RegExpMatchArray | null;
    if ((m = rest.match(/^\.([^.[\]]+)/))) steps.push(m[1]!);
    else if ((m = rest.match(/^\[\s*(\d+|\*)\s*\]/))) steps.push(m[1]!);
    else if ((m = rest.match(/^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/) ?? rest.match(/^\[\s*"((?:[^"\\]|\\.)*)"\s*\]/)))
      steps.push(m[1]!.replace(/\\(.)/g, '$1'));
    else return undefined;
    rest = rest.slice(m[0].length);
  }
  return steps;
}
