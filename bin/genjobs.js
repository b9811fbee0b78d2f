#!/usr/bin/env node
// The `genjobs` command. On Node 24 in a checkout it runs the TypeScript sources (Node 24
// strips the types), so a developer never runs a stale build; otherwise the compiled
// JavaScript in dist/ (`npm run build`): the container image, and a checkout installed into
// an app whose Node is older. Its user commands run on Node 20 and later; the admin commands
// and the service's entrypoints check for the Node they need (src/admin/node-version.ts).
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
const compiled = new URL('../dist/cli.js', import.meta.url);
const [major] = process.versions.node.split('.').map(Number);
const entry = existsSync(source) && (major >= 24 || !existsSync(compiled)) ? source : compiled;
if (entry === source && major < 24) {
  console.error(
    `genjobs: the sources need Node 24 or newer (this is ${process.version}); run \`npm run build\` in the genjobs checkout (its user commands run on Node 20 and later), or use Node 24.`,
  );
  process.exit(2);
}
await import(entry.href);
