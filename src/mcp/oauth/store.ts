/**
 * Where a server's sign-in lives between connections: its client registration, its tokens and what discovery found,
 * one JSON record per key. The extension keeps records in SecretStorage, the CLI in memory (or a 0600 file).
 */
import { readFile } from 'node:fs/promises';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { writePrivateFile } from '../../node/privateFile';

/** One server's sign-in, as the SDK handed it over (stored unchanged: the SDK stamps it with its issuer). */
export interface OAuthRecord {
  /** The client registration: dynamically registered, or the pre-registered id (and secret) from configuration. */
  client?: OAuthClientInformationMixed;
  /** Whether `client` came from dynamic registration (and may be registered again when the redirect URI changes). */
  registered?: boolean;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
}

/** A key-value store of sign-in records; values are JSON text. */
export interface OAuthStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** Reads a record; a missing or unreadable one is empty. */
export async function readRecord(store: OAuthStore, key: string): Promise<OAuthRecord> {
  const text = await store.get(key);
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as OAuthRecord) : {};
  } catch {
    return {};
  }
}

/** The storage key of a server's sign-in: its URL within a scope (the extension's workspace, or the CLI's run). */
export function oauthKey(scope: string, serverUrl: string): string {
  return `plangate.oauth.v1:${JSON.stringify([scope, serverUrl])}`;
}

/** Records kept for the life of the process: the CLI's default (tokens for the run only). */
export class MemoryOAuthStore implements OAuthStore {
  private readonly map = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.map.get(key);
  }
  async store(key: string, value: string): Promise<void> {
    this.map.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.map.delete(key);
  }
}

/**
 * Records in one JSON file readable by its owner only (`plangate run --token-store FILE`): created 0600, written to a
 * new temporary sibling (0600, a random name opened exclusively) and renamed over, so a crash never leaves half a file.
 */
export class FileOAuthStore implements OAuthStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.readAll())[key];
  }
  store(key: string, value: string): Promise<void> {
    return this.update((all) => {
      all[key] = value;
    });
  }
  delete(key: string): Promise<void> {
    return this.update((all) => {
      delete all[key];
    });
  }

  private async readAll(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    try {
      const value: unknown = JSON.parse(text);
      return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
    } catch {
      throw new Error(`The token store ${this.file} is not a Plangate token store (not JSON). Name another file, or delete it.`);
    }
  }

  private update(change: (all: Record<string, string>) => void): Promise<void> {
    const next = this.queue.then(async () => {
      const all = await this.readAll();
      change(all);
      // A name nobody can guess, created exclusively and never through a link: a file or link planted beside the
      // store is neither followed nor overwritten.
      await writePrivateFile(this.file, JSON.stringify(all, null, 2));
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
