#!/usr/bin/env node
// The `genjobs` command. In a checkout it runs the TypeScript sources (Node 24 strips the
// types); in the container image, where only the compiled JavaScript is shipped, dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
const compiled = new URL('../dist/cli.js', import.meta.url);
const [major] = process.versions.node.split('.').map(Number);
if (existsSync(source) && major < 24) {
  console.error(
    `genjobs needs Node 24 or newer (this is ${process.version}); run it through npm (npx genjobs) or the image.`,
  );
  process.exit(1);
}
await import((existsSync(source) ? source : compiled).href);
