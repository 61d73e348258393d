/**
 * A stand-in for the `vscode` module, only for the activation probe (bench/activationProbe.ts): enough of the API
 * for `activate()` to run in plain Node. The parts activation reads for real — the workspace folder, its
 * `.vscode/mcp.json` through `workspace.fs`, settings, trust — behave like VS Code's; everything else is an inert
 * object whose every member is callable and returns another inert object (never a thenable), so UI calls succeed
 * and do nothing.
 */
import { readFileSync } from 'node:fs';
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, relative, resolve as resolvePath, join } from 'node:path';

type Listener<T> = (value: T) => unknown;

/** An object that accepts anything: every property is another inert object, calls and `new` return one too. */
export function inert(name: string): unknown {
  const cache = new Map<PropertyKey, unknown>();
  const target = function () {
    /* inert */
  };
  return new Proxy(target, {
    get(_t, prop) {
      if (prop === 'then') return undefined; // never a thenable: `await inert` must not hang
      if (prop === Symbol.iterator)
        return function* () {
          /* empty */
        };
      if (prop === Symbol.toPrimitive) return () => `[${name}]`;
      if (prop === 'toString' || prop === 'toJSON') return () => `[${name}]`;
      if (prop === 'dispose') return () => undefined;
      if (typeof prop === 'symbol') return undefined;
      if (!cache.has(prop)) cache.set(prop, inert(`${name}.${prop}`));
      return cache.get(prop);
    },
    set(_t, prop, value) {
      cache.set(prop, value);
      return true;
    },
    has: () => true,
    apply: () => inert(`${name}()`),
    construct: () => inert(`new ${name}`) as object,
  });
}

/** Wraps `base` so that members it lacks are inert objects. */
function withFallback<T extends object>(name: string, base: T): T {
  return new Proxy(base, {
    get(t, prop, receiver) {
      if (prop in t || typeof prop === 'symbol' || prop === 'then') return Reflect.get(t, prop, receiver);
      const value = inert(`${name}.${prop}`);
      Reflect.set(t, prop, value);
      return value;
    },
  });
}

class Disposable {
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  constructor(private readonly fn: () => unknown = () => undefined) {}
  dispose(): void {
    this.fn();
  }
}

class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>) => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(path: string): Uri {
    return new Uri('file', resolvePath(path));
  }
  static parse(value: string): Uri {
    return value.startsWith('file://') ? Uri.file(decodeURIComponent(value.slice(7))) : new Uri(value.split(':')[0] ?? 'unknown', value);
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, join(base.path, ...segments));
  }
  get fsPath(): string {
    return this.path;
  }
  with(change: { path?: string; scheme?: string }): Uri {
    return new Uri(change.scheme ?? this.scheme, change.path ?? this.path);
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

/** An event function that never fires. */
const never = () => new Disposable();

export interface FakeVscodeOptions {
  /** The one workspace folder. */
  workspaceFolder: string;
  /** `workspace.isTrusted`. */
  trusted: boolean;
}

/** The fake module. */
export function fakeVscode(options: FakeVscodeOptions): unknown {
  const folderUri = Uri.file(options.workspaceFolder);
  const folder = { uri: folderUri, name: 'bench', index: 0 };
  const configuration = withFallback('WorkspaceConfiguration', {
    get: <T>(_key: string, fallback?: T) => fallback,
    has: () => false,
    inspect: () => undefined,
    update: async () => undefined,
  });
  const workspace = withFallback('workspace', {
    workspaceFolders: [folder],
    isTrusted: options.trusted,
    getConfiguration: () => configuration,
    getWorkspaceFolder: () => folder,
    asRelativePath: (p: Uri | string) => relative(options.workspaceFolder, typeof p === 'string' ? p : p.fsPath),
    createFileSystemWatcher: () =>
      withFallback('FileSystemWatcher', { onDidChange: never, onDidCreate: never, onDidDelete: never, dispose: () => undefined }),
    onDidChangeConfiguration: never,
    onDidChangeWorkspaceFolders: never,
    onDidGrantWorkspaceTrust: never,
    findFiles: async () => [],
    fs: withFallback('workspace.fs', {
      readFile: async (uri: Uri) => new Uint8Array(await readFile(uri.fsPath)),
      writeFile: async (uri: Uri, data: Uint8Array) => writeFile(uri.fsPath, data),
      createDirectory: async (uri: Uri) => {
        await mkdir(uri.fsPath, { recursive: true });
      },
      stat: async (uri: Uri) => {
        const s = await stat(uri.fsPath);
        return { type: s.isDirectory() ? 2 : 1, size: s.size, ctime: s.ctimeMs, mtime: s.mtimeMs };
      },
    }),
  });
  const commands = withFallback('commands', {
    registerCommand: () => new Disposable(),
    executeCommand: async () => undefined,
    getCommands: async () => [],
  });
  const window = withFallback('window', {
    showInformationMessage: async () => undefined,
    showWarningMessage: async () => undefined,
    showErrorMessage: async () => undefined,
    showInputBox: async () => undefined,
    showQuickPick: async () => undefined,
  });
  const api: Record<string, unknown> = {
    Uri,
    EventEmitter,
    Disposable,
    workspace,
    commands,
    window,
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
  };
  // Bundles copy the module's own properties (esbuild's __toESM), so every API name must exist up front.
  for (const name of apiNames()) if (!(name in api)) api[name] = inert(`vscode.${name}`);
  return withFallback('vscode', api);
}

/** The names `declare module 'vscode'` exports (classes, enums, namespaces, functions), read from @types/vscode. */
function apiNames(): string[] {
  const dts = join(dirname(createRequire(import.meta.url).resolve('@types/vscode/package.json')), 'index.d.ts');
  return [...readFileSync(dts, 'utf8').matchAll(/^\s{1,4}export (?:class|enum|namespace|const|function|let) ([A-Za-z_]\w*)/gm)].map(
    (m) => m[1]!,
  );
}

/** The ExtensionContext handed to `activate()`. */
export function fakeContext(options: { extensionPath: string; storagePath: string }): unknown {
  const memento = () => {
    const values = new Map<string, unknown>();
    return {
      get: <T>(key: string, fallback?: T) => (values.has(key) ? values.get(key) : fallback),
      update: async (key: string, value: unknown) => {
        values.set(key, value);
      },
      keys: () => [...values.keys()],
      setKeysForSync: () => undefined,
    };
  };
  const secrets = new Map<string, string>();
  return withFallback('ExtensionContext', {
    subscriptions: [] as { dispose(): unknown }[],
    extensionUri: Uri.file(options.extensionPath),
    extensionPath: options.extensionPath,
    storageUri: Uri.file(options.storagePath),
    globalStorageUri: Uri.file(join(options.storagePath, 'global')),
    logUri: Uri.file(join(options.storagePath, 'log')),
    workspaceState: memento(),
    globalState: memento(),
    extensionMode: 1,
    secrets: withFallback('SecretStorage', {
      get: async (key: string) => secrets.get(key),
      store: async (key: string, value: string) => {
        secrets.set(key, value);
      },
      delete: async (key: string) => {
        secrets.delete(key);
      },
      onDidChange: never,
    }),
  });
}
