// An esbuild plugin shared by every Node bundle (esbuild.mjs, the unit tests' bundles).
import { dirname } from 'node:path';

/**
 * zod's `z` namespace re-exports all ~50 of its locales (265 KB of the extension's 1.48 MB, minified): a namespace
 * object cannot be tree-shaken. Plangate speaks English, zod's default (classic/schemas.js imports en.js itself), so
 * the locale index is the English one. A `z.locales.xx()` call would fail the build, not a user.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};
