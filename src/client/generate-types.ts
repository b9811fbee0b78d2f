/**
 * Generates src/client/openapi-types.ts from the OpenAPI document the api serves
 * (`npm run client:types`). The client's request and response types come from there, and
 * a test regenerates it and fails when the committed file and the document differ.
 * Not part of the client itself: it needs openapi-typescript, a devDependency.
 */
import { writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { openApiDocument } from '../api/openapi.ts';
// The api process's own modules, so every operation they register is in the document it serves.
import '../api/main.ts';

export const TYPES_FILE = new URL('./openapi-types.ts', import.meta.url);

const HEADER = `/**
 * Request and response types of the genjobs HTTP API, generated from the OpenAPI document
 * by \`npm run client:types\` (openapi-typescript). Do not edit by hand.
 */
`;

/** The types file's text for the current document. */
export async function generateTypes(): Promise<string> {
  const ast = await openapiTS(JSON.stringify(openApiDocument()));
  return `${HEADER}${astToString(ast)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(TYPES_FILE, await generateTypes());
  console.log(`wrote ${TYPES_FILE.pathname}`);
}
