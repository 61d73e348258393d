/**
 * The allows of the single-call card, of every length — for this session, in this workspace, always (a rule in the
 * user's settings): each writes the narrowest rule that lets the same call run next time — this server (by identity,
 * when it is known), this tool, this entrance, nothing wider. Names are server data: glob characters in them are
 * escaped, so a tool named `*` allows only the tool named `*`. Pure.
 */
import { DECISION_RANK, type PolicyEntrance, type PolicyRule } from './rules';
import type { PolicyVerdict } from './evaluate';

/** How long an allow given on the card lasts: until the window closes, in this workspace, or always (user settings). */
export type AllowLength = 'session' | 'workspace' | 'always';

export const ALLOW_LENGTHS: readonly AllowLength[] = ['session', 'workspace', 'always'];

/** Escapes picomatch's special characters, so the glob matches exactly `name`. */
export function escapeGlob(name: string): string {
  return name.replace(/[\\*?[\]{}()!+@|^$.,]/g, (c) => `\\${c}`);
}

/**
 * Whether an allow rule written now would change this verdict: only when the ask comes from Plangate's default (an
 * allow rule cannot beat a user's ask rule or the tool's own declaration, so offering it would be a lie), and no
 * workspace rule is involved.
 */
export function canAlwaysAllow(verdict: PolicyVerdict): boolean {
  return whyOnlyOnce(verdict) === undefined;
}

/**
 * Why the card offers no allow longer than once for this verdict, in words (undefined: every length is offered). An
 * allow rule cannot beat the tool's own `_meta.approval: "ask"`, nor a rule that asks; offering one would be a lie.
 */
export function whyOnlyOnce(verdict: PolicyVerdict): string | undefined {
  if (verdict.decision !== 'ask') return 'the policy does not ask about this call';
  if (verdict.rule.source === 'tool')
    return `the tool declares that it must be asked about every time (_meta.approval: "ask"): only Allow once is offered`;
  if (verdict.rule.source !== 'default' || verdict.matched.some((r) => DECISION_RANK[r.decision] > 0))
    return `a rule asks about this call (${verdict.rule.id}), and an allow cannot outweigh it: only Allow once is offered`;
  return undefined;
}

/** The call a card's allow is for: its server (with its identity when known), tool and entrance. */
export interface AllowTarget {
  server: string;
  tool: string;
  entrance: PolicyEntrance;
  /** The server's identity (appNetwork.ts `grantKey`); absent when not known (the CLI's explain, say). */
  serverKey?: string;
}

/** The prefix of the id a length's rule gets (the ledger and the approvals view name it). */
const ID_PREFIX: Readonly<Record<AllowLength, string>> = { session: 'session-allow', workspace: 'workspace-allow', always: 'allow' };

const LENGTH_WORDS: Readonly<Record<AllowLength, string>> = {
  session: 'Allow for this session',
  workspace: 'Allow in this workspace',
  always: 'Always allow',
};

/**
 * The narrowest allow rule for a call; `existingIds` keeps its id unique among the rules it joins (the user's rules and
 * the standing approvals). `length` only names it and says why it was made.
 */
export function narrowestRule(call: AllowTarget, existingIds: Iterable<string>, when: Date, length: AllowLength = 'always'): PolicyRule {
  const taken = new Set(existingIds);
  const base = `${ID_PREFIX[length]}-${slug(call.server)}-${slug(call.tool)}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return {
    id,
    decision: 'allow',
    reason: `you chose ${LENGTH_WORDS[length]} for this tool on ${when.toISOString().slice(0, 10)}`,
    server: escapeGlob(call.server),
    ...(call.serverKey !== undefined ? { serverKey: call.serverKey } : {}),
    tool: escapeGlob(call.tool),
    entrance: [call.entrance],
  };
}

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 40) || 'x'
  );
}
