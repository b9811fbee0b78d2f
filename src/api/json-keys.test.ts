import { describe, expect, it } from 'vitest';
import { repeatedName } from './json-keys.ts';

describe('repeatedName', () => {
  it.each([
    ['{"model":"a","model":"b"}', '/model'],
    ['{"input":{"duration":4,"duration":8}}', '/input/duration'],
    ['{"a":1,"\\u0061":2}', '/a'], // the same name, escaped
    ['[{"x":1},{"y":[{"k":1,"k":2}]}]', '/1/y/0/k'],
    ['{"a/b":{"c~d":1,"c~d":2}}', '/a~1b/c~0d'],
    ['{"s":"a \\" b","t":{"u":"}{,:\\"","u":1}}', '/t/u'], // brackets and quotes inside strings
  ])('finds the first repeated name in %s: %s', (text, pointer) => {
    expect(JSON.parse(text)).toBeDefined(); // valid JSON, as the function requires
    expect(repeatedName(text)).toBe(pointer);
  });

  it.each([
    '{"model":"a","input":{"model":"b","prompt":"model"}}', // the same name in other objects
    '[{"a":1},{"a":2}]',
    '{"a":["a","a"],"b":{"a":{"a":1}}}',
    '"just a string"',
    '42',
    '{}',
    '{"\\\\":1,"\\\\\\\\":2}',
  ])('finds none in %s', (text) => {
    expect(JSON.parse(text)).toBeDefined();
    expect(repeatedName(text)).toBeUndefined();
  });
});
