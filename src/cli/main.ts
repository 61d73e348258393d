/**
 * The `plangate` command: `validate`, `run`, `tools`, `servers`, `policy`, `--help`, `--version`. Exit codes (a contract
 * other tools script against): 0 success, 1 the plan is invalid / did not complete / is not ok / misses a tool, 2
 * usage, input, connection or server error before any step ran. The process exits with its code once stdout and
 * stderr are flushed, so large `--json` reports are never cut short, and nothing left open keeps it waiting.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { version as packageVersion } from '../../package.json';
import { Output } from './output';
import { runCommand, serverConfig, type RunOptions } from './runCommand';
import { toolsCommand } from './toolsCommand';
import { mayBeServerName, mcpJsonServer } from './mcpJsonServer';
import type { ResolvedServer } from '../mcp/config';
import { safeText } from './safeText';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parsePolicyText } from '../core/policy/parse';
import { parseDecisionHooks } from '../core/policy/decisionHook';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import type { CliHooks } from './policyPorts';
import type { PolicyRules } from '../core/policy/rules';
import { POLICY_FILE, policyCheckCommand, policyExplainCommand } from './policyCommand';
import { serversCommand } from './serversCommand';
import { revertMain, USAGE_REVERT } from './revertCommand';
import { parseSandboxBlock } from '../mcp/config';
import { sandboxRules, type SandboxRules } from '../mcp/sandbox';

/** `--sandbox on` (VS Code's defaults) or `--sandbox FILE` (a JSON `sandbox` block, defaults merged). */
async function loadSandbox(arg: string): Promise<SandboxRules> {
  if (arg === 'on') return sandboxRules(undefined, 'requested');
  let value: unknown;
  try {
    value = JSON.parse(await readFile(arg, 'utf8'));
  } catch (err) {
    fail(
      'run',
      `--sandbox ${safeText(arg, { max: 200 })}: ${err instanceof SyntaxError ? `not JSON (${err.message})` : 'cannot be read'}; give a file with a "sandbox" block, or "on"`,
    );
  }
  const parsed = parseSandboxBlock(value, 'sandbox');
  if ('problems' in parsed) fail('run', `--sandbox ${safeText(arg, { max: 200 })}: ${parsed.problems.join('; ')}`);
  return sandboxRules(parsed.block, 'requested');
}
import { splitCommandLine } from './splitCommandLine';
import { CLI_SAMPLING_MODES, type CliSamplingMode } from './samplingHandler';
import { validateCommand } from './validateCommand';

export const VERSION: string = packageVersion;

const USAGE_VALIDATE = `plangate validate [FILE|-] [--json] [--lenient]
  Checks an MCPFlow orchestrated_plan: an envelope, a CallToolResult (its structuredContent or text), or text with a
  \`\`\`json fenced envelope. Reads FILE, or stdin when FILE is "-" or left out.
  Exit 0: it holds a valid plan (a one-line summary is printed). 1: it does not (each problem with its JSON path).
  2: usage error or unreadable input.
  Strict by default: a field MCPFlow always emits but the input lacks (next_actions, an error's code, …), a
  camelCase spelling of a field, or a version other than the string "1" is a problem.
  --lenient  read the input as the Plangate panel does: those are warnings (on stderr), and exit 0
  --json     print {"valid", "kind": "plan"|"collect_form"|"plain", "plan"?, "problems"?: [{"path", "message"}]}`;

const USAGE_RUN = `plangate run (--server "<command line>" | --url URL) --tool NAME [--args JSON] [--yes]
             [--answer NAME=VALUE]... [--timeout SECONDS] [--name NAME] [--json]
             [--client-id ID [--client-secret S]] [--client-metadata-url URL] [--token-store FILE]
             [--sandbox FILE|on] [--root DIR]... [--sampling decline|ask]
  Calls TOOL on one MCP server, shows the plan it returns (instruction, safety, steps), asks "Proceed?" and runs
  the approved steps in order, a line per step, then lists the files the plan changed in the current folder (compared
  with a checkpoint taken before the first step). Every step's tool must be on the same server.
  --server NAME      start the server NAME of ./.vscode/mcp.json, as VS Code would (variables, envFile, sandbox)
  --server CMD       start a stdio server; CMD is split like a shell would (quotes), and run without a shell
  --url URL          connect over streamable HTTP (legacy SSE when the server only speaks that)
  --name NAME        what messages call the server (default: the script or package it runs, or the URL's host)
  --tool NAME        the tool to call
  --args JSON        its arguments, a JSON object (default {})
  --yes              approve the plan, its confirm steps and its nested plans without asking
                     (needed when stdin or stdout is not a terminal)
  --answer N=V       answer field N of an ask_user step with V (repeatable); missing ones are asked on the terminal
  --timeout SECONDS  how long the server may take to start, and each call (default 60)
  --json             print one JSON report on stdout (everything else goes to stderr):
                     {"status": "completed"|"failed"|"rejected"|"not_a_plan"|"plan_status"|"missing_tool",
                      "plan_status"?, "steps": [{"index", "tool", "outcome", "error"?, "nested"?}], "follow_up"?}
  --header N=V       send an HTTP header with --url (repeatable), e.g. --header "Authorization=Bearer …"
  --client-id ID     a server asking for OAuth sign-in: use this pre-registered client instead of registering one
  --client-secret S  that client's secret (or set PLANGATE_CLIENT_SECRET, which stays out of the process list)
  --client-metadata-url URL
                     an https URL of a Client ID Metadata Document you publish for Plangate (client_name, and
                     "redirect_uris": ["http://127.0.0.1/callback"]): the client id where the authorization server
                     supports such documents, instead of registering a client
  --root DIR         offer DIR to the server as a root (MCP roots; repeatable): a server that asks for its client's
                     roots (server-filesystem started without directories) works in these folders. Without --root
                     no roots are offered (a server's own command-line directories stay in force)
  --token-store FILE keep the sign-in in FILE (created readable by you only) for later runs; default: this run only
                     (a sign-in opens the authorization page with $BROWSER or the system browser, and prints its URL;
                     Plangate waits up to 5 minutes for the browser to come back to 127.0.0.1; Ctrl-C gives up)
  --sandbox FILE|on  run the --server in a sandbox (bubblewrap on Linux, Seatbelt on macOS), as VS Code does with
                     "sandboxEnabled": true: "on" for its defaults (writes only to ~/.npm, network only *.npmjs.org),
                     FILE for a JSON "sandbox" block as in mcp.json ({"filesystem": {"allowWrite", "denyRead",
                     "denyWrite"}, "network": {"allowedDomains", "deniedDomains"}}). What it refuses goes to stderr.
                     No sandbox to be had (Windows; Linux without bubblewrap, socat, ripgrep): the run stops, exit 2
  --ledger FILE      record the run in a JSONL ledger file (appended), and keep the checkpoint of the files the plan
                     may touch beside it (FILE's folder/checkpoints/), so plangate revert can restore them
  --verbose          show the connection's log (server stderr, calls) on stderr
  --policy FILE      your policy rules ({"rules": […]}, as plangate.policy); ./.vscode/plangate-policy.json is read
                     too when present. A step the policy denies is not sent (the run stops with the rule's reason);
                     a call it asks about is asked on the terminal (--yes allows it); a result a rule asks to
                     review ("review": "result") is shown and asked about on the terminal (Pass on or Withhold),
                     and withheld without a terminal (--yes does not pass it on)
  --hooks FILE       the decision hooks your --policy rules name ("hook"): your settings.json (its
                     plangate.decisionHooks) or a file holding that value; a hook that fails or times out means ask
  --sampling MODE    what a server's sampling request (it asks for a language model's answer) gets: "decline"
                     (default: refused, with a line on stderr) or "ask": the request is shown on the terminal and
                     the answer you type goes back (an empty answer declines; --yes does not answer it). A rule of
                     --policy with "entrance": "sampling" and "decision": "deny" refuses it without asking
  Exit 0: the plan completed, or the result was not a plan (it is printed). 1: a step failed, the plan was
  rejected, its status is not ok, or a tool is missing. 2: usage, connection or server error before any step ran.`;

const USAGE_TOOLS = `plangate tools (--server NAME | --server "<command line>" | --url URL) [--json] [--timeout SECONDS]
               [--name NAME] [--header N=V]... [--client-id ID [--client-secret S]] [--token-store FILE]
               [--sandbox FILE|on] [--verbose]
  Starts (or connects to) one MCP server and lists its tools, a line each: name, hints (what its annotations claim:
  read-only, writes, destructive, open world), title and the first line of its description. Nothing is called.
  The server options are those of plangate run.
  --json     print {"server", "tools": [{"name", "title"?, "hints": {"effect", "openWorld", "idempotent"},
             "description"?}]}
  Exit 0: listed. 2: usage, connection or server error.`;

const USAGE_SERVERS = `plangate servers [--json]
  Lists the servers of ./.vscode/mcp.json (name, type, command line or URL, with \${workspaceFolder}, \${userHome}
  and \${/} filled in for this folder; \${env:…} and \${input:…} as written) and its problems (file:line:column).
  Exit 0: no problems. 1: the file has problems. 2: there is no readable file.`;

const USAGE_POLICY = `plangate policy check [FILE] [--json]
  Validates a policy file (default ./.vscode/plangate-policy.json): each problem as file:line:column.
  Exit 0: no errors (warnings are printed). 1: errors. 2: the file cannot be read.
plangate policy explain --server S --tool T [--args JSON] [--entrance plan|agent|call|app|recovery|sampling]
                        [--annotations JSON] [--meta JSON] [--sandboxed] [--user FILE] [--file FILE] [--json]
  Prints the decision for one call (allow, ask or deny), the rule that won and every rule that matched, under
  ./.vscode/plangate-policy.json (or --file) and your rules (--user: a file holding plangate.policy's value).
  --annotations and --meta give the tool's definition (its MCP annotations, its _meta) as the server lists it.
  --sandboxed: the server runs in a sandbox (rules with "sandboxed": true apply, those with false do not).
  Default entrance: agent. Exit 0, whatever the decision; 2 on a usage error or an unreadable file.`;

const USAGE = `Plangate — a human approval gate for MCP tool plans (MCPFlow orchestrated_plan), in the terminal.

Usage:
  ${USAGE_VALIDATE.split('\n').join('\n  ')}

  ${USAGE_RUN.split('\n').join('\n  ')}

  ${USAGE_TOOLS.split('\n').join('\n  ')}

  ${USAGE_SERVERS.split('\n').join('\n  ')}

  ${USAGE_REVERT.split('\n').join('\n  ')}

  ${USAGE_POLICY.split('\n').join('\n  ')}

  plangate --help | --version

Environment: PLANGATE_ASSUME_TTY=1 treats stdin/stdout as a terminal (answers are read line by line from stdin).`;

class UsageError extends Error {}

function fail(command: string, message: string): never {
  throw new UsageError(`plangate${command ? ` ${command}` : ''}: ${message}\nSee plangate${command ? ` ${command}` : ''} --help.`);
}

/** util.parseArgs with its errors turned into usage errors naming the command. */
function parse<const T extends ParseArgsConfig>(command: string, config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs<T>(config);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('. To specify a positional')[0]! : String(err);
    return fail(command, safeText(message, { max: 500 }));
  }
}

function isInteractive(): boolean {
  if (process.env.PLANGATE_ASSUME_TTY === '1') return true;
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}

function parsePairs(command: string, option: string, values: readonly string[] | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const raw of values ?? []) {
    const eq = raw.indexOf('=');
    if (eq <= 0) fail(command, `--${option} must look like NAME=VALUE, not "${safeText(raw, { max: 100 })}"`);
    map.set(raw.slice(0, eq).trim(), raw.slice(eq + 1));
  }
  return map;
}

/** `--args`: a JSON object whose nesting the MCP SDK can still encode (it serialises recursively). */
function parseToolArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail(
      'run',
      `--args is not valid JSON (${safeText(err instanceof Error ? err.message : String(err), { max: 200 })}); give a JSON object such as '{"screen":"Payroll"}'`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail(
      'run',
      `--args must be a JSON object such as '{"screen":"Payroll"}', not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`,
    );
  }
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > 1000) fail('run', '--args is nested more than 1000 levels deep; flatten it');
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return value as Record<string, unknown>;
}

/** The options that say which server to use and how to reach it, shared by `run` and `tools`. */
const SERVER_FLAGS = {
  server: { type: 'string' },
  url: { type: 'string' },
  name: { type: 'string' },
  header: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  verbose: { type: 'boolean' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'client-metadata-url': { type: 'string' },
  root: { type: 'string', multiple: true },
  'token-store': { type: 'string' },
  sandbox: { type: 'string' },
} as const;

type ServerFlagValues = {
  server?: string;
  url?: string;
  name?: string;
  header?: string[];
  timeout?: string;
  verbose?: boolean;
  'client-id'?: string;
  'client-secret'?: string;
  'client-metadata-url'?: string;
  root?: string[];
  'token-store'?: string;
  sandbox?: string;
};

/** The server flags, checked: the server (a name of ./.vscode/mcp.json, a command line or a URL) and how to reach it. */
async function serverFlags(command: string, values: ServerFlagValues) {
  if (values.server !== undefined && values.url !== undefined) fail(command, 'give either --server or --url, not both');
  if (values.server === undefined && values.url === undefined)
    fail(
      command,
      'give the server: --server NAME (a server of ./.vscode/mcp.json), --server "<command line>" (stdio) or --url URL (streamable HTTP)',
    );
  let server: ResolvedServer | undefined;
  let words: string[] | undefined;
  if (values.server !== undefined) {
    if (mayBeServerName(values.server)) {
      const named = await mcpJsonServer(values.server.trim(), process.cwd());
      if (named.kind === 'problem') fail(command, safeText(named.message, { max: 2000 }));
      if (named.kind === 'server') server = named.server;
    }
    if (!server) {
      const split = splitCommandLine(values.server);
      if (!split.ok) fail(command, `--server: ${split.message}`);
      if (split.words.length === 0)
        fail(command, '--server is empty; give the command line that starts the server, or its name in ./.vscode/mcp.json');
      words = split.words;
    }
  }
  if (values.url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(values.url);
    } catch {
      /* reported below */
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      fail(command, `--url must be an http:// or https:// URL, not "${safeText(values.url, { max: 200 })}"`);
  }
  if (values.header?.length && values.url === undefined) fail(command, '--header applies only to --url');
  if (values.sandbox !== undefined && (values.server === undefined || server?.type === 'http' || server?.type === 'sse'))
    fail(command, '--sandbox applies only to --server (a local stdio server)');
  for (const flag of ['client-id', 'client-secret', 'client-metadata-url', 'token-store'] as const)
    if (values[flag] !== undefined && values.url === undefined) fail(command, `--${flag} applies only to --url`);
  const clientSecret = values['client-secret'] ?? process.env.PLANGATE_CLIENT_SECRET;
  if (values['client-secret'] !== undefined && values['client-id'] === undefined)
    fail(command, '--client-secret needs --client-id (the client the secret belongs to)');
  if (values['client-id'] !== undefined && values['client-id'].trim() === '') fail(command, '--client-id is empty');
  const metadataUrl = values['client-metadata-url'];
  if (
    metadataUrl !== undefined &&
    (!URL.canParse(metadataUrl) || !/^https:$/.test(new URL(metadataUrl).protocol) || new URL(metadataUrl).pathname === '/')
  )
    fail(
      command,
      `--client-metadata-url must be an https:// URL with a path (the document's address), not "${safeText(metadataUrl, { max: 200 })}"`,
    );
  let timeoutMs = 60_000;
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 2_000_000)
      fail(command, `--timeout must be a number of seconds greater than 0, not "${safeText(values.timeout, { max: 50 })}"`);
    timeoutMs = Math.max(1, Math.round(seconds * 1000));
  }
  return {
    server,
    command: words,
    url: values.url,
    name: values.name,
    headers: Object.fromEntries(parsePairs(command, 'header', values.header)),
    timeoutMs,
    verbose: values.verbose === true,
    version: VERSION,
    clientId: values['client-id'],
    clientSecret: values['client-id'] !== undefined ? clientSecret : undefined,
    clientMetadataUrl: metadataUrl,
    roots: values.root === undefined ? undefined : await rootDirs(command, values.root),
    tokenStore: values['token-store'],
    sandbox: values.sandbox === undefined ? undefined : await loadSandbox(values.sandbox),
  };
}

async function runMain(argv: string[], out: () => Output): Promise<number> {
  const { values } = parse('run', {
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      ...SERVER_FLAGS,
      tool: { type: 'string' },
      args: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      answer: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      ledger: { type: 'string' },
      policy: { type: 'string' },
      hooks: { type: 'string' },
      sampling: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out().info(USAGE_RUN);
    return 0;
  }
  const target = await serverFlags('run', values);
  if (values.tool === undefined || values.tool.trim() === '') fail('run', '--tool NAME is required: the tool whose result is the plan');
  const options: RunOptions = {
    ...target,
    tool: values.tool,
    args: parseToolArgs(values.args),
    yes: values.yes === true,
    answers: parsePairs('run', 'answer', values.answer),
    json: values.json === true,
    ledger: values.ledger,
    interactive: isInteractive(),
    policy: await loadRunPolicy(values.policy),
    hooks: await loadRunHooks(values.hooks),
    sampling: samplingMode(values.sampling),
  };
  // Only your rules name hooks (a workspace rule cannot): without --policy no hook can run.
  if (options.hooks && !options.policy?.user.length)
    out().error('plangate run: warning: --hooks has no effect without --policy FILE: only your rules name a hook ("hook": "name").');
  return runCommand(options, out());
}

/** `--sampling MODE` (default decline). */
function samplingMode(value: string | undefined): CliSamplingMode {
  if (value === undefined) return 'decline';
  if ((CLI_SAMPLING_MODES as readonly string[]).includes(value)) return value as CliSamplingMode;
  fail('run', `--sampling must be ${CLI_SAMPLING_MODES.join(' or ')}, not '${safeText(value, { max: 40 })}'`);
}

/** `--root DIR`s as absolute paths; each must be a directory. */
async function rootDirs(command: string, dirs: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const dir of dirs) {
    const abs = resolve(dir);
    const isDir = await stat(abs).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) fail(command, `--root ${safeText(dir, { max: 200 })} is not a directory; give a folder the server may work in`);
    out.push(abs);
  }
  return out;
}

async function toolsMain(argv: string[], out: () => Output): Promise<number> {
  const { values } = parse('tools', {
    args: argv,
    strict: true,
    allowPositionals: false,
    options: { ...SERVER_FLAGS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    out().info(USAGE_TOOLS);
    return 0;
  }
  const target = await serverFlags('tools', values);
  return toolsCommand({ ...target, config: serverConfig(target), json: values.json === true }, out());
}

/** Why `--policy FILE` (or another `option`'s file) cannot be read, in words, with what to do (`give`). */
function policyUnreadable(path: string, err: unknown, option = '--policy', give = POLICY_FILE_WORDS): string {
  const code = (err as NodeJS.ErrnoException).code;
  const file = safeText(path, { max: 500 });
  const why =
    code === 'ENOENT'
      ? `there is no file ${file}`
      : code === 'EISDIR'
        ? `${file} is a folder, not a file`
        : code === 'EACCES' || code === 'EPERM'
          ? `${file} cannot be read (permission denied)`
          : `${file} cannot be read (${safeText(code ?? (err instanceof Error ? err.message : String(err)), { max: 200 })})`;
  return `${option}: ${why}. ${give}`;
}

const POLICY_FILE_WORDS =
  'Give the JSON file that holds your rules, {"rules": [{"id", "decision", "reason", …}]} (the value of the plangate.policy setting); check it with plangate policy check FILE';

/** The policy `plangate run` honours: `--policy FILE` as your rules, ./.vscode/plangate-policy.json as the workspace's. */
async function loadRunPolicy(file: string | undefined): Promise<PolicyRules | undefined> {
  const read = async (path: string, source: 'user' | 'workspace', required: boolean) => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if (!required) return [];
      return fail('run', policyUnreadable(path, err));
    }
    const parsed = parsePolicyText(text, source);
    const errors = parsed.problems.filter((p) => p.severity === 'error');
    if (errors.length)
      fail(
        'run',
        `${safeText(path)} has policy errors (${safeText(errors[0]!.message, { max: 300 })}); check it with plangate policy check`,
      );
    return parsed.rules;
  };
  const user = file === undefined ? [] : await read(file, 'user', true);
  const workspace = await read(POLICY_FILE, 'workspace', false);
  return user.length || workspace.length ? { user, workspace } : undefined;
}

/**
 * `--hooks FILE`: the decision hooks your `--policy` rules may name. FILE is your VS Code settings.json (its
 * `plangate.decisionHooks` is read) or a JSON file holding that setting's value; JSONC, as settings files are.
 */
async function loadRunHooks(file: string | undefined): Promise<CliHooks> {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    return fail('run', policyUnreadable(file, err, '--hooks', HOOKS_FILE_WORDS));
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (errors.length || !isObject(value)) fail('run', `--hooks: ${safeText(file)} is not a JSON object. ${HOOKS_FILE_WORDS}`);
  const settings = Object.hasOwn(value, 'plangate.decisionHooks') || Object.hasOwn(value, 'plangate.policy');
  const hooks = settings ? value['plangate.decisionHooks'] : value;
  if (hooks !== undefined && !isObject(hooks))
    fail('run', `--hooks: plangate.decisionHooks in ${safeText(file)} is not an object. ${HOOKS_FILE_WORDS}`);
  return parseDecisionHooks(hooks, `the --hooks file ${safeText(file, { max: 200 })}`);
}

const HOOKS_FILE_WORDS =
  'Give your settings.json, or a JSON file holding the value of plangate.decisionHooks: {"name": {"command": "/path/to/hook", "args": [], "timeoutSeconds": 10}}';

/** A JSON value given on the command line (`--annotations`, `--meta`). */
function parseJsonOption(command: string, option: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    return fail(command, `--${option} is not valid JSON (${safeText(err instanceof Error ? err.message : String(err), { max: 200 })})`);
  }
}

async function policyMain(argv: string[], out: () => Output): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse('policy', {
    args: rest,
    strict: true,
    allowPositionals: sub === 'check',
    options: {
      server: { type: 'string' },
      tool: { type: 'string' },
      args: { type: 'string' },
      entrance: { type: 'string' },
      annotations: { type: 'string' },
      meta: { type: 'string' },
      sandboxed: { type: 'boolean' },
      user: { type: 'string' },
      file: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || sub === '--help' || sub === '-h') {
    out().info(USAGE_POLICY);
    return 0;
  }
  if (sub === 'check') {
    if (positionals.length > 1) fail('policy check', `give one FILE, not ${positionals.length}`);
    return policyCheckCommand({ file: positionals[0] ?? values.file, json: values.json === true }, out());
  }
  if (sub === 'explain') {
    if (!values.server || !values.tool) fail('policy explain', 'give --server S and --tool T: the call to explain');
    return policyExplainCommand(
      {
        server: values.server,
        tool: values.tool,
        args: values.args === undefined ? {} : parseToolArgs(values.args),
        entrance: values.entrance ?? 'agent',
        annotations: parseJsonOption('policy explain', 'annotations', values.annotations),
        meta: parseJsonOption('policy explain', 'meta', values.meta),
        sandboxed: values.sandboxed === true,
        user: values.user,
        file: values.file,
        json: values.json === true,
      },
      out(),
    );
  }
  return fail('policy', `give a subcommand: check or explain, not "${safeText(sub ?? '', { max: 50 })}"`);
}

/**
 * Runs the CLI with `argv` (without node and the script); resolves with the exit code. Usage errors are reported here;
 * nothing else throws out of the commands (a bug is caught and reported as exit 2 without a stack trace).
 */
export async function main(argv: string[], setOutput: (o: Output) => void): Promise<number> {
  const json = argv.includes('--json');
  let output: Output | undefined;
  const out = () => {
    output ??= new Output(json);
    setOutput(output);
    return output;
  };
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        out().error(`plangate: give a command.\n\n${USAGE}`);
        return 2;
      case '--help':
      case '-h':
      case 'help':
        out().info(USAGE);
        return 0;
      case '--version':
      case '-V':
      case '-v':
        out().info(VERSION);
        return 0;
      case 'validate': {
        const { values, positionals } = parse('validate', {
          args: rest,
          strict: true,
          allowPositionals: true,
          options: { json: { type: 'boolean' }, lenient: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
        });
        if (values.help) {
          out().info(USAGE_VALIDATE);
          return 0;
        }
        if (positionals.length > 1) fail('validate', `give one FILE (or "-" for stdin), not ${positionals.length}`);
        return await validateCommand({ file: positionals[0], json: values.json === true, lenient: values.lenient === true }, out());
      }
      case 'run':
        return await runMain(rest, out);
      case 'tools':
        return await toolsMain(rest, out);
      case 'servers': {
        const { values } = parse('servers', {
          args: rest,
          strict: true,
          allowPositionals: false,
          options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
        });
        if (values.help) {
          out().info(USAGE_SERVERS);
          return 0;
        }
        return await serversCommand({ json: values.json === true }, out());
      }
      case 'policy':
        return await policyMain(rest, out);
      case 'revert':
        return await revertMain(rest, out, isInteractive());
      default:
        return fail(
          '',
          `unknown command "${safeText(command, { max: 100 })}"; the commands are validate, run, tools, revert, servers and policy`,
        );
    }
  } catch (err) {
    if (err instanceof UsageError) {
      out().error(err.message);
      return 2;
    }
    out().error(`plangate: unexpected error: ${safeText(err instanceof Error ? err.message : String(err), { max: 2000 })}`);
    return 2;
  }
}

function start(): void {
  let output: Output | undefined;
  // A server that dies mid-write, a closed pipe: never a stack trace, never a hang.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  process.on('uncaughtException', (err) => {
    try {
      process.stderr.write(`plangate: unexpected error: ${safeText(err instanceof Error ? err.message : String(err), { max: 2000 })}\n`);
    } catch {
      /* nothing left to tell */
    }
    process.exit(2);
  });
  process.on('unhandledRejection', (err) => {
    try {
      process.stderr.write(`plangate: unexpected error: ${safeText(err instanceof Error ? err.message : String(err), { max: 2000 })}\n`);
    } catch {
      /* nothing left to tell */
    }
    process.exit(2);
  });
  void main(process.argv.slice(2), (o) => {
    output = o;
  }).then(async (code) => {
    await output?.flush();
    // Done, and everything written is handed over: exit now. Anything still holding the event loop (an idle HTTP
    // keep-alive socket, the pipes of a process a server's launcher left behind) must not keep the CLI alive.
    process.exit(code);
  });
}

start();
