/**
 * What the Approvals view shows: every allow in force, grouped by where it lives — for this session (memory), in this
 * workspace (workspace state), always (the user's settings: written by the card, or by hand), and the workspace's own
 * policy file — each with when and why it was made and how often it let a call through (from the ledger). Revoke on
 * each row that Plangate may take back; Reset on the session and workspace groups. Pure.
 */
import type { StandingApproval, StandingApprovals } from '../policy/approvals';
import type { PolicyRule } from '../policy/rules';
import type { RuleUse } from '../workflow/recentCalls';

/** The view's groups, in order. `user`: the user's settings; `file`: the workspace's policy file (edited there). */
export type ApprovalGroup = 'session' | 'workspace' | 'user' | 'file';

export interface ApprovalGroupView {
  group: ApprovalGroup;
  /**
   * The group's id in the tree. VS Code keeps a tree item's folding by its id, and an empty group is drawn without a
   * twistie, as folded: had the id stayed when its first row came, the group would stay folded over the new approval.
   * So an empty group has an id of its own; a group with rows keeps one id, and with it the user's folding.
   */
  id: string;
  label: string;
  /** How many, and where they live in a few words (a sidebar is narrow). */
  description: string;
  /** Where they live, in full. */
  tooltip: string;
  /** Reset offered (the session and workspace lengths). */
  resettable: boolean;
  rows: ApprovalRowView[];
}

export interface ApprovalRowView {
  ruleId: string;
  group: ApprovalGroup;
  label: string;
  description: string;
  tooltip: string;
  /** Revoke offered: Plangate keeps it (session, workspace) or writes it (the user's settings). */
  revocable: boolean;
}

const GROUP_WORDS: Record<ApprovalGroup, { label: string; short: string; where: string }> = {
  session: { label: 'For this session', short: 'until the window closes', where: 'in memory until the window closes' },
  workspace: { label: 'In this workspace', short: 'this folder only', where: "kept in this workspace's state" },
  user: { label: 'Always (your settings)', short: 'plangate.policy', where: 'user settings, plangate.policy' },
  file: {
    label: 'Workspace policy file',
    short: '.vscode/plangate-policy.json',
    where: '.vscode/plangate-policy.json: edit the file to change it',
  },
};

/** The groups and rows the view shows. `userRules`, `fileRules`: the allow rules of each source as written. */
export function approvalGroups(
  approvals: StandingApprovals,
  userRules: readonly PolicyRule[],
  fileRules: readonly PolicyRule[],
  uses: (ruleId: string) => RuleUse | undefined,
): ApprovalGroupView[] {
  const group = (g: ApprovalGroup, rows: ApprovalRowView[]): ApprovalGroupView => ({
    group: g,
    id: rows.length ? g : `${g}:empty`,
    label: GROUP_WORDS[g].label,
    description: `${rows.length} · ${GROUP_WORDS[g].short}`,
    tooltip: `${GROUP_WORDS[g].label}: ${rows.length} ${rows.length === 1 ? 'approval' : 'approvals'}, ${GROUP_WORDS[g].where}`,
    resettable: g === 'session' || g === 'workspace',
    rows,
  });
  const standing = (g: 'session' | 'workspace', a: StandingApproval) =>
    row(g, a.rule, uses(a.rule.id), `made ${new Date(a.made).toISOString().replace('T', ' ').slice(0, 16)} UTC: ${a.why}`);
  const allows = (rules: readonly PolicyRule[]) => rules.filter((r) => r.decision === 'allow');
  return [
    group(
      'session',
      approvals.session.map((a) => standing('session', a)),
    ),
    group(
      'workspace',
      approvals.workspace.map((a) => standing('workspace', a)),
    ),
    group(
      'user',
      allows(userRules).map((r) =>
        row(
          'user',
          r,
          uses(r.id),
          /^you chose Always allow/.test(r.reason) ? `written by the card: ${r.reason}` : `written by hand: ${r.reason}`,
        ),
      ),
    ),
    group(
      'file',
      allows(fileRules).map((r) => row('file', r, uses(r.id), `written in the file: ${r.reason}`)),
    ),
  ];
}

function row(group: ApprovalGroup, rule: PolicyRule, use: RuleUse | undefined, why: string): ApprovalRowView {
  const what = `${rule.tool ?? 'any tool'} on ${rule.server ?? 'any server'}`;
  const by = rule.entrance ? ` · by ${rule.entrance.join(', ')}` : '';
  const used = use ? `used ${use.count}×, last ${new Date(use.last).toISOString().replace('T', ' ').slice(0, 16)} UTC` : 'not used yet';
  return {
    ruleId: rule.id,
    group,
    label: what,
    description: `${used}${by}`,
    tooltip: [
      `Rule '${rule.id}' (${GROUP_WORDS[group].label.toLowerCase()}: ${GROUP_WORDS[group].where})`,
      why,
      used,
      ...(rule.serverKey ? [`Only the server started as it was then (identity ${rule.serverKey.slice(-64, -52)}…)`] : []),
    ].join('\n'),
    revocable: group !== 'file',
  };
}
