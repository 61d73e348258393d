/**
 * `plangate policy check [FILE]` and `plangate policy explain`: the policy engine in the terminal. `check` validates a
 * policy file (the workspace's `.vscode/plangate-policy.json` by default) and prints each problem as
 * `file:line:column: message`; exit 0 when it has no errors (warnings are printed), 1 when it has some, 2 when it cannot
 * be read — as `validate`. `explain` prints the decision for one call, the rule that won and every rule that matched,
 * under the workspace file in the current folder and, with `--user FILE`, your rules (a file holding the value of the
 * `plangate.policy` setting).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { verdictWords } from '../core/present/callCard';
import { evaluate, type PolicyCall } from '../core/policy/evaluate';
import { lintPolicy } from '../core/policy/lint';
import { lineStarts, locate, parsePolicyText, type ParsedPolicy } from '../core/policy/parse';
import { POLICY_ENTRANCES, type PolicyEntrance } from '../core/policy/rules';
import { parseTree } from 'jsonc-parser';
import { nodeRealPath } from '../node/realPath';
import type { Output } from './output';
import { safeText } from './safeText';

export const POLICY_FILE = join('.vscode', 'plangate-policy.json');

async function readPolicy(
  file: string,
  source: 'user' | 'workspace',
  out: Output,
  command: string,
): Promise<{ text: string; parsed: ParsedPolicy } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    out.error(`plangate policy ${command}: cannot read ${safeText(file)}: ${safeText(code ?? String(err))}`);
    return undefined;
  }
  return { text, parsed: parsePolicyText(text, source) };
}

/** `plangate policy check [FILE] [--json]`. */
export async function policyCheckCommand(options: { file?: string; json: boolean; cwd?: string }, out: Output): Promise<number> {
  const file = resolve(options.cwd ?? process.cwd(), options.file ?? POLICY_FILE);
  const read = await readPolicy(file, 'workspace', out, 'check');
  if (!read) return 2;
  const { text, parsed } = read;
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const lines = lineStarts(text);
  const problems = [
    ...parsed.problems,
    ...lintPolicy({ user: [], workspace: parsed.rules }, 'workspace').map((p) => locate(p, tree, lines)),
  ];
  const errors = problems.filter((p) => p.severity === 'error').length;
  if (options.json) {
    out.report({
      file,
      valid: errors === 0,
      rules: parsed.rules.map((r) => r.id),
      problems: problems.map((p) => ({
        severity: p.severity,
        message: p.message,
        path: p.path,
        ...(p.range ? { line: p.range.line + 1, column: p.range.column + 1 } : {}),
      })),
    });
  } else {
    for (const p of problems) {
      const at = p.range ? `:${p.range.line + 1}:${p.range.column + 1}` : '';
      out.error(`${safeText(file)}${at}: ${p.severity}: ${safeText(p.message, { max: 1000 })}`);
    }
    if (errors === 0) out.info(`${safeText(file)}: ${parsed.rules.length} rule(s), no errors.`);
  }
  return errors ? 1 : 0;
}

export interface ExplainOptions {
  server: string;
  tool: string;
  args: Record<string, unknown>;
  entrance: string;
  annotations?: unknown;
  meta?: unknown;
  /** The server runs in a sandbox (`--sandboxed`). */
  sandboxed?: boolean;
  user?: string;
  file?: string;
  json: boolean;
  cwd?: string;
}

/** `plangate policy explain`: exit 0 whatever the decision (2 when a policy cannot be read or the entrance is unknown). */
export async function policyExplainCommand(options: ExplainOptions, out: Output): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  if (!POLICY_ENTRANCES.includes(options.entrance as PolicyEntrance)) {
    out.error(`plangate policy explain: --entrance must be one of ${POLICY_ENTRANCES.join(', ')}.`);
    return 2;
  }
  const workspaceFile = resolve(cwd, options.file ?? POLICY_FILE);
  let workspace: ParsedPolicy = { rules: [], problems: [] };
  if (
    options.file !== undefined ||
    (await readFile(workspaceFile).then(
      () => true,
      () => false,
    ))
  ) {
    const read = await readPolicy(workspaceFile, 'workspace', out, 'explain');
    if (!read) return 2;
    workspace = read.parsed;
  }
  let user: ParsedPolicy = { rules: [], problems: [] };
  if (options.user !== undefined) {
    const read = await readPolicy(resolve(cwd, options.user), 'user', out, 'explain');
    if (!read) return 2;
    user = read.parsed;
  }
  for (const p of [...user.problems, ...workspace.problems]) out.error(`warning: ${safeText(p.message, { max: 1000 })}`);
  const call: PolicyCall = {
    server: options.server,
    tool: options.tool,
    args: options.args,
    entrance: options.entrance as PolicyEntrance,
    annotations: options.annotations,
    meta: options.meta,
    sandboxed: options.sandboxed === true,
  };
  const verdict = evaluate({ user: user.rules, workspace: workspace.rules }, call, { workspaceRoot: cwd, realPath: nodeRealPath });
  if (options.json) {
    out.report({
      decision: verdict.decision,
      rule: verdict.rule,
      matched: verdict.matched,
      notHonoured: verdict.notHonoured ?? null,
      sandboxed: call.sandboxed === true,
      notSeen: NOT_SEEN,
    });
    return 0;
  }
  out.info(`${verdict.decision}: ${safeText(verdictWords(verdict.rule), { max: 1000 })}`);
  out.info(`  rule: ${safeText(verdict.rule.id)} (${verdict.rule.source})`);
  out.info(
    `  server: ${call.sandboxed ? 'sandboxed' : 'not sandboxed'}${call.sandboxed ? '' : ' (--sandboxed to explain it as sandboxed)'}`,
  );
  if (verdict.notHonoured)
    out.info(
      `  not honoured: workspace rule '${safeText(verdict.notHonoured.id)}' would loosen your policy (${verdict.notHonoured.decision})`,
    );
  out.info(verdict.matched.length ? '  matched:' : '  matched: no rule');
  for (const r of verdict.matched)
    out.info(`    ${r.decision.padEnd(5)} ${safeText(r.id)} (${r.source}): ${safeText(r.reason, { max: 500 })}`);
  out.info(`  not seen here: ${NOT_SEEN}`);
  return 0;
}

/**
 * What explain cannot see, said in every answer: the card's session approvals live in the VS Code window's memory, and
 * its workspace approvals in VS Code's workspace state (its own database, not a file of the folder) — neither is
 * readable from a terminal, and a copy in a file would be a second truth that drifts. A rule the card wrote for a
 * server's identity (`serverKey`) is read here as not holding: the terminal knows the server only by name.
 */
const NOT_SEEN =
  'your approvals for this session and in this workspace (kept by VS Code: see its Plangate Approvals view; where one allows this call, VS Code allows it although this says ask), and allow rules with a serverKey (they hold only for the server started as it was when the card wrote them)';
