/**
 * What is doubtful about a policy that is valid: a rule naming a server nobody configured, a tool pattern that matches
 * no tool the servers list, a rule that can never decide anything, and — for the workspace file — rules that would
 * loosen the user's own policy (they are not honoured where they would; see evaluate.ts). Users of other agents'
 * permission rules complain that rules silently do nothing: these checks say so. Pure.
 */
import { stepHint } from '../base/toolHints';
import { nameMatches, toolAsks } from './evaluate';
import type { PolicyProblem } from './parse';
import { DECISION_RANK, type PolicyRules, type SourcedRule } from './rules';

/** A tool as its server lists it (untrusted). */
export interface CatalogTool {
  name: string;
  annotations?: unknown;
  _meta?: unknown;
}

/** What the servers offer now: every configured server, with its tools when it is running (undefined: not known). */
export interface PolicyCatalog {
  servers: readonly { name: string; tools?: readonly CatalogTool[] }[];
}

/** Problems of the rules of `source` (user or workspace) against the other rules and the catalog. */
export function lintPolicy(rules: PolicyRules, source: 'user' | 'workspace', catalog?: PolicyCatalog): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const own = source === 'user' ? rules.user : rules.workspace;
  // The card's standing approvals (session, workspace) weigh with the user's rules, after them (evaluate.ts): a rule
  // they make moot is said so.
  const all = [...rules.user, ...(rules.approvals ?? []), ...rules.workspace];
  for (const rule of own) {
    const at = ['rules', rule.index];
    const warn = (message: string, ...rest: (string | number)[]) =>
      problems.push({ severity: 'warning', message, path: [...at, ...rest], ruleId: rule.id });
    if (rule.annotations?.readOnly === true && rule.annotations.destructive === true)
      warn(`Rule '${rule.id}' can never fire: a tool is not read-only and destructive at once.`, 'annotations');
    if (rule.review === 'result' && rule.decision === 'deny')
      warn(`Rule '${rule.id}' never reviews a result: it denies the call, so there is none.`, 'review');
    const pos = all.indexOf(rule);
    // A rule that reviews results still does so when another decides; a hook's rule may answer allow in the end.
    const by = all.find(
      (other, i) =>
        rule.review === undefined &&
        other.hook === undefined &&
        other !== rule &&
        covers(other, rule) &&
        (DECISION_RANK[other.decision] > DECISION_RANK[rule.decision] || (other.decision === rule.decision && i < pos)),
    );
    if (by)
      warn(
        `Rule '${rule.id}' can never decide: ${SOURCE_WORDS[by.source] ?? 'rule'} '${by.id}' (${by.source}, ${by.decision}) matches every call it matches` +
          (by.decision === rule.decision ? ' and comes first.' : `, and ${by.decision} beats ${rule.decision}.`),
      );
    if (catalog) {
      const servers = catalog.servers.filter((s) => rule.server === undefined || nameMatches(rule.server, s.name));
      if (rule.server !== undefined && servers.length === 0)
        warn(
          `Rule '${rule.id}': no configured server matches "${rule.server}" (servers: ${catalog.servers.map((s) => s.name).join(', ') || 'none'}).`,
          'server',
        );
      else if (rule.tool !== undefined && servers.length > 0 && servers.every((s) => s.tools !== undefined)) {
        const any = servers.some((s) => s.tools!.some((t) => nameMatches(rule.tool!, t.name)));
        if (!any) warn(`Rule '${rule.id}': "${rule.tool}" matches no tool the matching servers list.`, 'tool');
      }
    }
    if (source === 'workspace' && rule.decision === 'allow') {
      const loosens = loosening(rule, catalog);
      if (loosens)
        problems.push({
          severity: 'warning',
          message: `Rule '${rule.id}' would loosen your own policy: ${loosens}. Plangate does not honour it there and asks as your policy says; move the rule to your user settings (plangate.policy) if you want it.`,
          path: at,
          ruleId: rule.id,
        });
    }
  }
  return problems;
}

/**
 * Why a workspace allow rule would loosen what the user's policy (with Plangate's defaults) asks about: it allows only
 * an app's calls, it can allow a destructive tool, or a tool that declares it must be asked. Undefined when it cannot.
 * (A user's ask or deny rule needs no check: it outranks any allow.)
 */
export function loosening(rule: SourcedRule, catalog?: PolicyCatalog): string | undefined {
  // Calls an app makes are asked by default (evaluate.ts): a rule for nothing but them can never allow anything.
  if (rule.entrance?.length && rule.entrance.every((e) => e === 'app'))
    return "it only allows calls a server's app makes, which your policy asks about by default, so it never allows anything";
  if (rule.entrance?.length && rule.entrance.every((e) => e === 'sampling'))
    return "it only allows servers' sampling requests, which your policy asks about by default, so it never allows anything";
  const known = catalog?.servers.filter((s) => rule.server === undefined || nameMatches(rule.server, s.name)) ?? [];
  if (known.length && known.every((s) => s.tools !== undefined)) {
    for (const s of known)
      for (const t of s.tools!) {
        if (rule.tool !== undefined && !nameMatches(rule.tool, t.name)) continue;
        const hint = stepHint(t.annotations);
        if (rule.annotations?.destructive === false || rule.annotations?.readOnly === true) continue;
        if (toolAsks(t._meta)) return `it matches '${s.name}/${t.name}', which declares that it must be asked about`;
        if (hint.effect === 'destructive') return `it allows the destructive tool '${s.name}/${t.name}', which your policy asks about`;
      }
    return undefined;
  }
  if (rule.annotations?.destructive === false || rule.annotations?.readOnly === true) return undefined;
  return 'it can allow destructive tools, which your policy asks about (give it "annotations": { "destructive": false } to say it does not)';
}

const SOURCE_WORDS: Partial<Record<SourcedRule['source'], string>> = {
  session: 'your approval for this session',
  workspaceApproval: 'your approval in this workspace',
};

/** `a` matches every call `b` matches (by the simple test: each condition of `a` is absent or the same as `b`'s). */
function covers(a: SourcedRule, b: SourcedRule): boolean {
  if (a.serverKey !== undefined && a.serverKey !== b.serverKey) return false;
  if (a.server !== undefined && a.server !== b.server) return false;
  if (a.tool !== undefined && a.tool !== b.tool) return false;
  if (a.entrance && (!b.entrance || !b.entrance.every((e) => a.entrance!.includes(e)))) return false;
  if (a.annotations && JSON.stringify(a.annotations) !== JSON.stringify(b.annotations ?? {})) {
    for (const [k, v] of Object.entries(a.annotations)) if (b.annotations?.[k as keyof typeof a.annotations] !== v) return false;
  }
  if (a.args && a.args.length && JSON.stringify(a.args) !== JSON.stringify(b.args ?? [])) return false;
  return true;
}
