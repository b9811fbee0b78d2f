import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { generateTypes, TYPES_FILE } from './generate-types.ts';

it('the client types are generated from the OpenAPI document the api serves (run npm run client:types)', async () => {
  const committed = await readFile(TYPES_FILE, 'utf8');
  expect(
    committed === (await generateTypes()),
    'src/client/openapi-types.ts is stale: run npm run client:types',
  ).toBe(true);
});
