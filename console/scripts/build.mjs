// Bundles the console into dist/ (committed: `make up` serves it without Node): index.html, app.js and
// app.css (the CSS every module imports, bundled in import order).
//
//   node scripts/build.mjs [outdir]
//
// The build is deterministic (no source maps, no timestamps), so a test rebuilds it and compares it with
// the committed dist/: a screen changed without a rebuild fails there.
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

const here = new URL("..", import.meta.url).pathname;
const outdir = process.argv[2] ?? `${here}dist`;
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: { app: `${here}src/main.tsx` },
  bundle: true,
  minify: true,
  format: "esm",
  target: ["chrome120", "firefox120", "safari17"],
  outdir,
  jsx: "automatic",
  legalComments: "linked",
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});
copyFileSync(`${here}src/index.html`, `${outdir}/index.html`);
