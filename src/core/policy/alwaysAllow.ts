/**
 * "Always allow" on the single-call card: the narrowest rule that lets the same call run next time — this server,
 * this tool, this entrance, nothing wider. Names are server data: glob characters in them are escaped, so a tool
 * named `*` allows only the tool named `*`. Pure.
 */
import { DECISION_RANK, type PolicyEntrance, type PolicyRule } from './rules';
import type { PolicyVerdict } from './evaluate';

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
  return verdict.decision === 'ask' && verdict.rule.source === 'default' && !verdict.matched.some((r) => DECISION_RANK[r.decision] > 0);
}

/** The narrowest allow rule for a call; `existingIds` keeps its id unique among the user's rules. */
export function narrowestRule(
  call: { server: string; tool: string; entrance: PolicyEntrance },
  existingIds: Iterable<string>,
  when: Date,
): PolicyRule {
  const taken = new Set(existingIds);
  const base = `allow-${slug(call.server)}-${slug(call.tool)}`;
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return {
    id,
    decision: 'allow',
    reason: `you chose Always allow for this tool on ${when.toISOString().slice(0, 10)}`,
    server: escapeGlob(call.server),
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
