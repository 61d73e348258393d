/**
 * MCP server configuration: `.vscode/mcp.json` (VS Code's format, JSON with comments) and the `plangate.servers`
 * setting (an object of servers, same schema). Parsing never throws: every mistake becomes a {@link ConfigProblem}
 * that names the file, the position (syntax errors, and schema errors when the text is known) and the key path.
 * Resolution substitutes `${…}` variables, reads `envFile` and yields a {@link ResolvedServer} ready to start.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parseEnv } from 'node:util';
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { sandboxRules, type SandboxBlock, type ServerSandbox } from './sandbox';

/** Where a server's configuration came from; anything but `settings-user` is workspace configuration. */
export type ServerSource = 'mcp.json' | 'settings-user' | 'settings-workspace';

interface ServerConfigBase {
  /** The key in `servers`; unique within one file. */
  name: string;
  source: ServerSource;
  /** The label of the file or setting it came from, for messages (e.g. `.vscode/mcp.json`). */
  file: string;
}

export interface StdioServerConfig extends ServerConfigBase {
  type: 'stdio';
  command: string;
  args: string[];
  /** `null` removes a variable. */
  env: Record<string, string | null>;
  envFile?: string;
  cwd?: string;
  /** VS Code's `sandboxEnabled`: run the server in a sandbox (see src/mcp/sandbox.ts). */
  sandboxEnabled?: boolean;
  /** VS Code's `sandbox` block: filesystem and network rules, as written. */
  sandbox?: SandboxBlock;
}

export interface HttpServerConfig extends ServerConfigBase {
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
  /** A client registered with the server's authorization server beforehand (the secret usually `${input:…}`). */
  oauth?: OAuthClientConfig;
}

/** mcp.json `oauth`: pre-registered client credentials for a server that asks for an OAuth sign-in. */
export interface OAuthClientConfig {
  clientId: string;
  clientSecret?: string;
}

export type ServerConfig = StdioServerConfig | HttpServerConfig;

/**
 * An input of mcp.json, referenced as `${input:id}`: `promptString` (typed, optionally as a password) or `pickString`
 * (chosen from `options`). VS Code's `command` inputs run another extension's command and are not supported.
 */
export type InputDef =
  | { id: string; type: 'promptString'; description: string; password: boolean; default?: string }
  | { id: string; type: 'pickString'; description: string; options: { label: string; value: string }[]; default?: string };

export interface ConfigProblem {
  /** The file label given to the parser. */
  file: string;
  /** 1-based, when the position is known. */
  line?: number;
  column?: number;
  /** Key path such as `servers.db.command`. */
  path?: string;
  message: string;
}

export interface ParsedConfig {
  servers: ServerConfig[];
  inputs: InputDef[];
  problems: ConfigProblem[];
}

export interface ResolvedStdioServer {
  name: string;
  source: ServerSource;
  type: 'stdio';
  command: string;
  args: string[];
  /** The variables to pass on top of the SDK's default environment (PATH is added when the server starts). */
  env: Record<string, string>;
  cwd?: string;
  /** Values that must never be logged (password inputs, secret-looking env values). */
  secrets: string[];
  /** Present when the server runs in a sandbox: why, and the rules in force. */
  sandbox?: ServerSandbox;
}

export interface ResolvedHttpServer {
  name: string;
  source: ServerSource;
  type: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
  secrets: string[];
  /** Pre-registered OAuth client credentials, variables substituted. */
  oauth?: OAuthClientConfig;
}

export type ResolvedServer = ResolvedStdioServer | ResolvedHttpServer;

export interface ResolveContext {
  workspaceFolder?: string;
  /**
   * Whether the workspace is trusted (default true). When false, a server that would use the folder is refused
   * with a {@link TrustRequiredError}, and a stdio server without `cwd` runs in `userHome`, not in the folder.
   */
  trusted?: boolean;
  env: Record<string, string | undefined>;
  userHome: string;
  /** Input definitions that `${input:id}` may refer to (the `inputs` of mcp.json). */
  inputs?: readonly InputDef[];
  /** Asks for (or recalls) an input's value; `undefined` means the user dismissed the prompt. */
  resolveInput(id: string, def: InputDef): Promise<string | undefined>;
  /**
   * The user's `plangate.sandbox.workspaceServers`: sandbox every stdio server of workspace configuration (the folder
   * writable, no network unless its `sandbox` allows more), whatever its entry says.
   */
  sandboxWorkspaceServers?: boolean;
}

/** A configuration mistake found while resolving a server; the message names the server and the fix. */
export class ConfigError extends Error {
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A server that waits for workspace trust: {@link decideStart} gave `reasons`. */
export class TrustRequiredError extends ConfigError {
  constructor(
    server: string,
    readonly reasons: readonly string[],
  ) {
    super(server, describeTrustWait(server, reasons));
    this.name = 'TrustRequiredError';
  }
}

const envValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** One server entry; shared by mcp.json and the `plangate.servers` setting. */
export const serverEntrySchema = z.looseObject({
  type: z.enum(['stdio', 'http', 'sse']).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), envValue).optional(),
  envFile: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  oauth: z.looseObject({ clientId: z.string().min(1), clientSecret: z.string().optional() }).optional(),
  // VS Code's IMcpSandboxConfiguration; unknown keys are kept and ignored, as VS Code does.
  sandboxEnabled: z.boolean().optional(),
  sandbox: z
    .looseObject({
      filesystem: z
        .looseObject({
          allowWrite: z.array(z.string()).optional(),
          denyRead: z.array(z.string()).optional(),
          denyWrite: z.array(z.string()).optional(),
        })
        .optional(),
      network: z.looseObject({ allowedDomains: z.array(z.string()).optional(), deniedDomains: z.array(z.string()).optional() }).optional(),
    })
    .optional(),
});

const inputSchema = z.discriminatedUnion(
  'type',
  [
    z.looseObject({
      id: z.string().min(1),
      type: z.literal('promptString'),
      description: z.string().optional(),
      password: z.boolean().optional(),
      default: z.string().optional(),
    }),
    z.looseObject({
      id: z.string().min(1),
      type: z.literal('pickString'),
      description: z.string().optional(),
      // VS Code takes strings, and (newer) {label, value} pairs.
      options: z.array(z.union([z.string(), z.looseObject({ label: z.string().optional(), value: z.string() })])).min(1),
      default: z.string().optional(),
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? 'expected "promptString" or "pickString" (Plangate does not run "command" inputs)' : undefined,
  },
);

/** Whether a server comes from workspace configuration (refused in an untrusted workspace). */
export function isWorkspaceSource(source: ServerSource): boolean {
  return source !== 'settings-user';
}

/**
 * Whether a server may start now. `start`: yes, and a stdio server without its own `cwd` runs in `cwd` (the folder
 * when the workspace is trusted, the user's home when it is not; undefined without a folder). `waitForTrust`: the
 * workspace is untrusted and starting it would run or read something of the folder; `reasons` say what, in words
 * for the Servers view ("comes from .vscode/mcp.json", "uses ${workspaceFolder}").
 */
export type StartDecision = { kind: 'start'; cwd?: string } | { kind: 'waitForTrust'; reasons: string[] };

export interface TrustContext {
  trusted: boolean;
  workspaceFolder?: string;
  userHome: string;
}

/**
 * Variables whose value comes from the open folder or editor: `${workspaceFolder}`, `${workspaceFolderBasename}`,
 * `${workspaceFolder:name}`, `${file}`, `${fileDirname}`, `${relativeFile}`, `${cwd}` and the like. Only the first two
 * are substituted; the others are refused in Restricted Mode all the same, so that supporting them later is safe.
 */
const FOLDER_VARIABLE = /^(workspaceFolder|workspaceRoot|file|relativeFile|cwd$|lineNumber$|selectedText$|config:|command:)/;

/**
 * Decides whether `config` may start (pure: reads nothing). In a trusted workspace every server starts. In an
 * untrusted one nothing of the folder may run or be read, so a server waits for trust when it comes from workspace
 * configuration, uses a folder variable or an `${input:…}` (inputs are defined in the folder's mcp.json), reads its
 * `envFile` or runs in a `cwd` inside the folder (relative paths resolve there), or names a command or argument
 * inside the folder. The others start in the user's home, so that `npx` or `python3 -m` never load the folder's
 * modules.
 */
export function decideStart(config: ServerConfig, ctx: TrustContext): StartDecision {
  const folder = ctx.workspaceFolder;
  if (ctx.trusted) return folder === undefined ? { kind: 'start' } : { kind: 'start', cwd: folder };
  const reasons: string[] = [];
  const add = (r: string) => {
    if (!reasons.includes(r)) reasons.push(r);
  };
  if (isWorkspaceSource(config.source)) add(`comes from ${config.file}`);
  const strings = configStrings(config);
  for (const s of strings) {
    for (const m of s.matchAll(/\$\{([^}]+)\}/g)) {
      const v = m[1]!.trim();
      if (FOLDER_VARIABLE.test(v)) add(`uses \${${v}}`);
      else if (v.startsWith('input:')) add(`uses \${${v}}, an input defined in the workspace's mcp.json`);
    }
  }
  if (config.type === 'stdio') {
    const inFolder = (p: string) => folder !== undefined && path.isAbsolute(p) && isInside(folder, p);
    if (config.envFile !== undefined && (!path.isAbsolute(config.envFile) || inFolder(config.envFile)))
      add(`reads envFile "${config.envFile}" from the workspace folder`);
    if (config.cwd !== undefined && (!path.isAbsolute(config.cwd) || inFolder(config.cwd)))
      add(`runs in "${config.cwd}", inside the workspace folder`);
    for (const s of [config.command, ...config.args]) if (inFolder(s)) add(`runs "${s}", inside the workspace folder`);
    // the home folder is where the others run; when the workspace holds it, there is nowhere outside to go
    if (config.cwd === undefined && inFolder(ctx.userHome)) add('would run in your home folder, which is inside the workspace folder');
  }
  return reasons.length > 0 ? { kind: 'waitForTrust', reasons } : { kind: 'start', cwd: ctx.userHome };
}

/** What the Servers view and the log say about a server that waits for trust. */
export function describeTrustWait(server: string, reasons: readonly string[]): string {
  return (
    `Server '${server}' waits for workspace trust: this workspace is in Restricted Mode, and the server ${reasons.join('; ')}. ` +
    'Trust the workspace to start it.'
  );
}

/** Every string of a server's configuration that may hold `${…}` variables. */
function configStrings(config: ServerConfig): string[] {
  return config.type === 'stdio'
    ? [
        config.command,
        ...config.args,
        ...Object.values(config.env).filter((v): v is string => v !== null),
        config.envFile ?? '',
        config.cwd ?? '',
        ...sandboxPaths(config.sandbox),
      ]
    : [config.url, ...Object.values(config.headers), config.oauth?.clientId ?? '', config.oauth?.clientSecret ?? ''];
}

function sandboxPaths(block: SandboxBlock | undefined): string[] {
  return [...(block?.filesystem?.allowWrite ?? []), ...(block?.filesystem?.denyRead ?? []), ...(block?.filesystem?.denyWrite ?? [])];
}

function isInside(folder: string, p: string): boolean {
  const rel = path.relative(folder, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** `file:line:column: path: message`, leaving out the parts that are unknown. */
export function formatConfigProblem(p: ConfigProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
  return `${where}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
}

/**
 * Parses the text of an `mcp.json` file. Comments and trailing commas are allowed. Servers come back in file order;
 * a server with a syntax or schema error is left out and reported, the others are kept.
 */
export function parseMcpJson(text: string, fileLabel: string, source: ServerSource = 'mcp.json'): ParsedConfig {
  const result: ParsedConfig = { servers: [], inputs: [], problems: [] };
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  for (const e of errors) {
    result.problems.push({
      file: fileLabel,
      ...lineColumn(text, e.offset),
      message: `syntax error: ${describeParseError(printParseErrorCode(e.error))}`,
    });
  }
  if (!root) return result;
  if (root.type !== 'object') {
    result.problems.push({
      file: fileLabel,
      ...lineColumn(text, root.offset),
      message: 'expected a JSON object with "servers" (and optionally "inputs")',
    });
    return result;
  }
  const broken = (n: Node) => errors.some((e) => e.offset >= n.offset && e.offset <= n.offset + n.length);
  // A key that is missing (a server without "command") is placed at the nearest enclosing value that is there.
  const position = (keyPath: (string | number)[]) => {
    for (let n = keyPath.length; n >= 0; n--) {
      const node = findNodeAtLocation(root, keyPath.slice(0, n));
      if (node) return lineColumn(text, node.offset);
    }
    return {};
  };
  const serversNode = findNodeAtLocation(root, ['servers']);
  if (serversNode && serversNode.type !== 'object') {
    result.problems.push({
      file: fileLabel,
      path: 'servers',
      ...lineColumn(text, serversNode.offset),
      message: `expected an object of servers, got ${kindOf(toValue(serversNode))}`,
    });
  } else if (serversNode) {
    const seen = new Set<string>();
    for (const prop of serversNode.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode || !valueNode || broken(prop)) continue;
      const name = String(keyNode.value);
      if (seen.has(name)) {
        result.problems.push({
          file: fileLabel,
          path: `servers.${name}`,
          ...lineColumn(text, keyNode.offset),
          message: 'this server name is used twice; the first one is used',
        });
        continue;
      }
      seen.add(name);
      const parsed = parseServerEntry(name, toValue(valueNode), source, fileLabel, (p) => position(['servers', name, ...p]));
      if ('server' in parsed) result.servers.push(parsed.server);
      else result.problems.push(...parsed.problems);
    }
  }
  const inputsNode = findNodeAtLocation(root, ['inputs']);
  if (inputsNode && inputsNode.type !== 'array') {
    result.problems.push({
      file: fileLabel,
      path: 'inputs',
      ...lineColumn(text, inputsNode.offset),
      message: 'expected an array of inputs',
    });
  } else if (inputsNode) {
    (inputsNode.children ?? []).forEach((node, i) => {
      if (broken(node)) return;
      const r = inputSchema.safeParse(toValue(node));
      if (!r.success) {
        for (const issue of r.error.issues) {
          const p = [i, ...issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k))];
          result.problems.push({
            file: fileLabel,
            path: joinPath('inputs', p),
            ...position(['inputs', ...p]),
            message: describeIssue(issue, toValue(node), issue.path),
          });
        }
        return;
      }
      if (result.inputs.some((d) => d.id === r.data.id)) {
        result.problems.push({
          file: fileLabel,
          path: `inputs.${i}.id`,
          ...position(['inputs', i, 'id']),
          message: `input id "${r.data.id}" is defined twice; the first one is used`,
        });
        return;
      }
      const data = r.data;
      const description = data.description ?? data.id;
      const def: InputDef =
        data.type === 'promptString'
          ? { id: data.id, type: 'promptString', description, password: data.password ?? false }
          : {
              id: data.id,
              type: 'pickString',
              description,
              options: data.options.map((o) =>
                typeof o === 'string' ? { label: o, value: o } : { label: o.label ?? o.value, value: o.value },
              ),
            };
      if (data.default !== undefined) def.default = data.default;
      result.inputs.push(def);
    });
  }
  return result;
}

/**
 * Parses a settings value that is an object of servers (the `plangate.servers` setting), with the same schema as
 * mcp.json's `servers`. Key paths in problems are relative to the setting (`db.command`).
 */
export function parseServersSetting(
  value: unknown,
  source: 'settings-user' | 'settings-workspace',
  settingLabel = 'plangate.servers',
): ParsedConfig {
  const result: ParsedConfig = { servers: [], inputs: [], problems: [] };
  if (value === undefined || value === null) return result;
  if (typeof value !== 'object' || Array.isArray(value)) {
    result.problems.push({ file: settingLabel, message: `expected an object of servers, got ${kindOf(value)}` });
    return result;
  }
  for (const name of Object.keys(value)) {
    const parsed = parseServerEntry(name, (value as Record<string, unknown>)[name], source, settingLabel, () => ({}), '');
    if ('server' in parsed) result.servers.push(parsed.server);
    else result.problems.push(...parsed.problems);
  }
  return result;
}

type Position = { line?: number; column?: number };

function parseServerEntry(
  name: string,
  value: unknown,
  source: ServerSource,
  file: string,
  position: (p: (string | number)[]) => Position,
  prefix = 'servers',
): { server: ServerConfig } | { problems: ConfigProblem[] } {
  const base = prefix ? `${prefix}.${name}` : name;
  const r = serverEntrySchema.safeParse(value);
  if (!r.success) {
    return {
      problems: r.error.issues.map((issue) => {
        const p = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
        return { file, path: joinPath(base, p), ...position(p), message: describeIssue(issue, value, issue.path) };
      }),
    };
  }
  const e = r.data;
  const type = e.type ?? (e.command !== undefined ? 'stdio' : e.url !== undefined ? 'http' : undefined);
  const fail = (key: string, message: string) => ({
    problems: [{ file, path: key ? `${base}.${key}` : base, ...position(key ? [key] : []), message }],
  });
  if (!type) return fail('', 'needs "command" (a stdio server) or "url" (an http/sse server)');
  if (type === 'stdio') {
    if (e.command === undefined) return fail('command', 'a "stdio" server needs "command" (the program to start)');
    const env: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(e.env ?? {})) env[k] = v === null ? null : String(v);
    const server: StdioServerConfig = { name, source, file, type, command: e.command, args: e.args ?? [], env };
    if (e.envFile !== undefined) server.envFile = e.envFile;
    if (e.cwd !== undefined) server.cwd = e.cwd;
    if (e.sandboxEnabled !== undefined) server.sandboxEnabled = e.sandboxEnabled;
    if (e.sandbox !== undefined) server.sandbox = sandboxBlock(e.sandbox);
    return { server };
  }
  if (e.url === undefined) return fail('url', `an "${type}" server needs "url"`);
  const server: HttpServerConfig = { name, source, file, type, url: e.url, headers: { ...(e.headers ?? {}) } };
  if (e.oauth)
    server.oauth = { clientId: e.oauth.clientId, ...(e.oauth.clientSecret !== undefined && { clientSecret: e.oauth.clientSecret }) };
  return { server };
}

/**
 * Substitutes `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${env:NAME}`, `${pathSeparator}`
 * (and `${/}`) and `${input:id}` in every string of the server, reads `envFile` (relative to the workspace folder)
 * with `util.parseEnv`, and merges it under `env`. Rejects with a {@link ConfigError} naming the server and the fix,
 * or, in an untrusted workspace, with a {@link TrustRequiredError} before anything is asked or read (see
 * {@link decideStart}). Every input value is among the `secrets`, password or not.
 */
export async function resolveServer(config: ServerConfig, ctx: ResolveContext): Promise<ResolvedServer> {
  const fail = (message: string): never => {
    throw new ConfigError(config.name, `Server '${config.name}' (${config.file}): ${message}`);
  };
  const trusted = ctx.trusted ?? true;
  const decision = decideStart(config, { trusted, workspaceFolder: ctx.workspaceFolder, userHome: ctx.userHome });
  if (decision.kind === 'waitForTrust') throw new TrustRequiredError(config.name, decision.reasons);
  const strings = configStrings(config);
  const inputValues = new Map<string, string>();
  const secrets: string[] = [];
  for (const s of strings) {
    for (const m of s.matchAll(/\$\{input:([^}]+)\}/g)) {
      const id = m[1]!.trim();
      if (inputValues.has(id)) continue;
      const def = ctx.inputs?.find((d) => d.id === id);
      if (!def)
        fail(
          `\${input:${id}} refers to an input that is not defined. Add {"id": "${id}", "type": "promptString", "description": "…"} to "inputs" in mcp.json.`,
        );
      const value = await ctx.resolveInput(id, def!);
      if (value === undefined) fail(`input "${id}" (${def!.description}) was not provided. Start the server again and enter a value.`);
      inputValues.set(id, value!);
      // Not only passwords: a picked region or a typed host is the user's, not the log's.
      secrets.push(value!);
    }
  }
  // Untrusted: decideStart let through only servers that need no folder; never resolve against it all the same.
  const folder = trusted ? ctx.workspaceFolder : undefined;
  const sub = (s: string): string =>
    s.replace(/\$\{([^}]+)\}/g, (whole, raw: string) => {
      const v = raw.trim();
      if (v === 'workspaceFolder' || v === 'workspaceFolderBasename') {
        if (folder === undefined) return fail(`\${${v}} needs an open folder. Open the folder, or use an absolute path.`);
        return v === 'workspaceFolder' ? folder : path.basename(folder);
      }
      if (v === 'userHome') return ctx.userHome;
      if (v === 'pathSeparator' || v === '/') return path.sep;
      if (v.startsWith('env:')) return ctx.env[v.slice(4)] ?? '';
      if (v.startsWith('input:')) return inputValues.get(v.slice(6).trim()) ?? '';
      return whole; // unknown variables stay as written, as in VS Code
    });
  const absolute = (p: string) => (path.isAbsolute(p) ? p : path.resolve(folder ?? ctx.userHome, p));

  if (config.type !== 'stdio') {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(config.headers)) {
      headers[k] = sub(v);
      if (isSecretKey(k) && looksSecret(headers[k])) secrets.push(headers[k]);
    }
    const url = sub(config.url);
    if (!URL.canParse(url)) fail(`"url" is not a valid URL: ${url}`);
    const resolved: ResolvedHttpServer = { name: config.name, source: config.source, type: config.type, url, headers, secrets };
    if (config.oauth) {
      const clientSecret = config.oauth.clientSecret === undefined ? undefined : sub(config.oauth.clientSecret);
      if (clientSecret) secrets.push(clientSecret);
      resolved.oauth = { clientId: sub(config.oauth.clientId), ...(clientSecret !== undefined && { clientSecret }) };
    }
    resolved.secrets = unique(secrets);
    return resolved;
  }
  const env: Record<string, string> = {};
  if (config.envFile !== undefined) {
    const file = absolute(sub(config.envFile));
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      fail(`envFile ${file} could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)}). Create it or fix "envFile".`);
    }
    for (const [k, v] of Object.entries(parseEnv(text))) if (v !== undefined) env[k] = v;
  }
  for (const [k, v] of Object.entries(config.env)) {
    if (v === null) delete env[k];
    else env[k] = sub(v);
  }
  for (const [k, v] of Object.entries(env)) if (isSecretKey(k) && looksSecret(v)) secrets.push(v);
  const resolved: ResolvedStdioServer = {
    name: config.name,
    source: config.source,
    type: 'stdio',
    command: sub(config.command),
    args: config.args.map(sub),
    env,
    secrets: unique(secrets),
  };
  const cwd = config.cwd !== undefined ? absolute(sub(config.cwd)) : decision.cwd;
  if (cwd !== undefined) resolved.cwd = cwd;
  // A repository cannot opt out of the user's sandbox for workspace servers: its own "sandboxEnabled": false is moot.
  const reason =
    config.sandboxEnabled === true
      ? 'requested'
      : ctx.sandboxWorkspaceServers && isWorkspaceSource(config.source)
        ? 'workspaceDefault'
        : undefined;
  if (reason !== undefined) {
    const rules = sandboxRules(config.sandbox, reason, folder);
    for (const list of [rules.filesystem.allowWrite, rules.filesystem.denyRead, rules.filesystem.denyWrite])
      list.forEach((p, i) => (list[i] = sub(p)));
    resolved.sandbox = { reason, rules };
  }
  return resolved;
}

/** Where `${input:…}` values are kept between starts: the extension's SecretStorage, or a map in tests. */
export interface InputStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/**
 * Whose an input value is: the user's, for a server of the user's own settings (the same server in every window),
 * else the workspace the server's configuration comes from, named by its `.code-workspace` file or folder URI.
 */
export function inputScope(source: ServerSource, workspace: string | undefined): string {
  return source === 'settings-user' ? 'user' : `workspace:${workspace ?? ''}`;
}

/**
 * The storage key of the value of input `id` for `server` in `scope`. A value is given only to the server it was
 * entered for, in the workspace it was entered in: another workspace (or another server) declaring the same id is
 * asked afresh. Keys of older versions (`plangate.input.<id>`, shared by every workspace) are never read.
 */
export function inputValueKey(scope: string, server: string, id: string): string {
  return `plangate.input.v2:${JSON.stringify([scope, server, id])}`;
}

/** The ids of the `${input:id}` references of a server, in order of first use. */
export function inputRefs(config: ServerConfig): string[] {
  const strings = configStrings(config);
  const ids: string[] = [];
  for (const s of strings) for (const m of s.matchAll(/\$\{input:([^}]+)\}/g)) if (!ids.includes(m[1]!.trim())) ids.push(m[1]!.trim());
  return ids;
}

/**
 * `resolveInput` for {@link resolveServer}: recalls the value stored for this server in `scope`, else calls `ask`
 * and keeps its answer (a dismissed prompt keeps nothing).
 */
export function storedInputs(
  store: InputStore,
  scope: string,
  server: string,
  ask: (id: string, def: InputDef) => Promise<string | undefined>,
): ResolveContext['resolveInput'] {
  return async (id, def) => {
    const key = inputValueKey(scope, server, id);
    const stored = await store.get(key);
    if (stored !== undefined) return stored;
    const value = await ask(id, def);
    if (value !== undefined) await store.store(key, value);
    return value;
  };
}

/** A stable hash of everything that affects how a server is started; equal fingerprints need no restart. */
export function serverFingerprint(resolved: ResolvedServer): string {
  const sorted = (o: Record<string, string>) =>
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]);
  const parts =
    resolved.type === 'stdio'
      ? ['stdio', resolved.name, resolved.command, resolved.args, sorted(resolved.env), resolved.cwd ?? null, resolved.sandbox ?? null]
      : [resolved.type, resolved.name, resolved.url, sorted(resolved.headers), ...(resolved.oauth ? [resolved.oauth] : [])];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** Keys (env variables, headers) whose values are treated as secrets. */
export function isSecretKey(key: string): boolean {
  return /token|key|secret|password|passwd|authorization|auth|credential|cookie/i.test(key);
}

/** Values under secret-looking keys that are worth hiding: not flags like "true", not tiny numbers. */
function looksSecret(value: string): boolean {
  return value.length >= 6 && !/^(true|false|yes|no|on|off|\d{1,6})$/i.test(value);
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter((v) => v.length > 0))];
}

/**
 * Reads a `sandbox` block given on its own (`plangate run --sandbox FILE`): the block, or problems naming the key path.
 */
export function parseSandboxBlock(value: unknown, label: string): { block: SandboxBlock } | { problems: string[] } {
  const r = serverEntrySchema.shape.sandbox.safeParse(value);
  if (!r.success) {
    return {
      problems: r.error.issues.map((issue) => {
        const p = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
        return `${joinPath(label, p)}: ${describeIssue(issue, value, issue.path)}`;
      }),
    };
  }
  if (r.data === undefined) return { problems: [`${label}: expected an object like {"filesystem": {…}, "network": {…}}`] };
  return { block: sandboxBlock(r.data) };
}

/** The `sandbox` block as written, without unknown keys. */
function sandboxBlock(b: z.infer<typeof serverEntrySchema>['sandbox'] & object): SandboxBlock {
  const block: SandboxBlock = {};
  if (b.filesystem) {
    const { allowWrite, denyRead, denyWrite } = b.filesystem;
    block.filesystem = { ...(allowWrite && { allowWrite }), ...(denyRead && { denyRead }), ...(denyWrite && { denyWrite }) };
  }
  if (b.network) {
    const { allowedDomains, deniedDomains } = b.network;
    block.network = { ...(allowedDomains && { allowedDomains }), ...(deniedDomains && { deniedDomains }) };
  }
  return block;
}

/** Builds a plain value from a jsonc tree; `__proto__` and `constructor` keys stay ordinary data. */
function toValue(node: Node): unknown {
  switch (node.type) {
    case 'object': {
      const obj: Record<string, unknown> = {};
      for (const prop of node.children ?? []) {
        const [k, v] = prop.children ?? [];
        if (!k || !v) continue;
        Object.defineProperty(obj, String(k.value), { value: toValue(v), enumerable: true, writable: true, configurable: true });
      }
      return obj;
    }
    case 'array':
      return (node.children ?? []).map(toValue);
    default:
      return node.value;
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

function describeParseError(code: string): string {
  const words: Record<string, string> = {
    CommaExpected: 'expected a comma',
    ColonExpected: 'expected a colon',
    ValueExpected: 'expected a value',
    PropertyNameExpected: 'expected a property name in double quotes',
    CloseBraceExpected: 'expected "}"',
    CloseBracketExpected: 'expected "]"',
    EndOfFileExpected: 'unexpected text after the end',
    InvalidSymbol: 'unexpected character',
    UnexpectedEndOfString: 'unterminated string',
    UnexpectedEndOfComment: 'unterminated comment',
  };
  return words[code] ?? code;
}

function joinPath(base: string, p: readonly (string | number)[]): string {
  return [base, ...p.map(String)].filter((s) => s !== '').join('.');
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : t === 'undefined' ? 'nothing' : `a ${t}`;
}

function valueAt(root: unknown, p: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of p) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

function describeIssue(issue: z.core.$ZodIssue, root: unknown, p: readonly PropertyKey[]): string {
  const got = kindOf(valueAt(root, p));
  switch (issue.code) {
    case 'invalid_type': {
      const expected = issue.expected === 'object' ? 'an object' : issue.expected === 'array' ? 'an array' : `a ${issue.expected}`;
      return `expected ${expected}, got ${got}`;
    }
    case 'invalid_union':
      // A discriminated union whose discriminator matched nothing (an input's "type") carries its own message.
      return issue.errors.length === 0 && issue.message
        ? `${issue.message}, got ${JSON.stringify(valueAt(root, p))}`
        : `expected a string, got ${got}`;
    case 'invalid_value':
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, got ${JSON.stringify(valueAt(root, p))}`;
    case 'too_small':
      return 'must not be empty';
    default:
      return issue.message;
  }
}
