// @modelcontextprotocol/conformance imports `globSync` from node:fs (Node 22+), only for its tier-check command. On
// Node 20 that import fails before any scenario runs; this resolve hook gives the suite's bundle an fs with a stub
// globSync. Loaded with `node --import` in front of the suite's CLI; nothing else is affected.
import { register } from 'node:module';

register('./node20Hooks.mjs', import.meta.url);
