// Writes schema/orchestrated-plan.schema.json from the zod envelope schema in src/core/plan/envelope.ts.
// Run: node --import tsx scripts/generateSchema.ts   (test/unit/schemaDrift.test.ts fails when the file is stale)
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envelopeJsonSchemaText } from '../src/core/plan/envelope';

export const SCHEMA_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema', 'orchestrated-plan.schema.json');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_PATH, envelopeJsonSchemaText());
  console.log(`wrote ${SCHEMA_PATH}`);
}
