/**
 * Keeps secrets out of the log: the values of every `${input:…}` (password or not), of secret-looking env variables
 * and headers (collected in `ResolvedServer.secrets`), and tokens that look like credentials in free text (stderr lines).
 */
import { isSecretKey } from './config';

const MASK = '***';
/** Shorter values are not masked: replacing every "a" would make the log unreadable while hiding nothing. */
const MIN_SECRET_LENGTH = 3;

const CREDENTIAL_PATTERNS: RegExp[] = [
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\b((?:[A-Za-z_]*(?:token|secret|password|passwd|api[_-]?key))\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)/gi,
];

/** Replaces every occurrence of each secret value, and credential-looking tokens, with `***`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of [...secrets].filter((v) => v.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)) {
    out = out.split(s).join(MASK);
  }
  out = out.replace(CREDENTIAL_PATTERNS[0]!, (_m, scheme: string) => `${scheme} ${MASK}`);
  out = out.replace(CREDENTIAL_PATTERNS[1]!, (_m, prefix: string) => `${prefix}${MASK}`);
  return out;
}

/** A copy of a header or env map with the values of secret-looking keys masked, for showing configuration. */
export function redactMap(map: Readonly<Record<string, string>>, secrets: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) out[k] = isSecretKey(k) ? MASK : redact(v, secrets);
  return out;
}
