// node:fs, plus the globSync Node 20 lacks (the conformance suite's tier-check uses it; client scenarios never do).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export const globSync = fs.globSync ?? (() => []);
