// The extension's ledger (ledger.jsonl in its workspace storage: `{ seq, event }` lines) as the specs read it: the
// events of one type.
import fs from 'node:fs';
import path from 'node:path';

/**
 * The records of `type` in the session's ledger, waiting (the ledger commits in groups) until `until(records)` holds
 * or `timeout` ms pass; then returns what there is, for the spec's assertions to judge.
 * @param {{ userDataDir: string }} vs
 * @param {string} type
 * @param {(records: any[]) => boolean} [until]
 */
export async function ledgerRecords(vs, type, until = (r) => r.length > 0, timeout = 10_000) {
  const storage = path.join(vs.userDataDir, 'User', 'workspaceStorage');
  const read = () => {
    const files = fs.existsSync(storage)
      ? fs
          .readdirSync(storage)
          .map((d) => path.join(storage, d, 'plangate.plangate', 'ledger.jsonl'))
          .filter((f) => fs.existsSync(f))
      : [];
    return files.flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .flatMap((l) => {
          try {
            return [JSON.parse(l)];
          } catch {
            return []; // a line being written
          }
        })
        .flatMap((r) => (r.event?.type === type ? [r.event] : [])),
    );
  };
  const deadline = Date.now() + timeout;
  let records = read();
  while (!until(records) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    records = read();
  }
  return records;
}
