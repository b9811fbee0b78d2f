/**
 * The first member name that an object of a JSON text repeats, as a JSON pointer to the
 * object with the name appended (`/input/duration`), or undefined when no object repeats
 * one. JSON.parse keeps the last of two, and another parser (a proxy's, a log's) may keep
 * the first: the api refuses such a body rather than run a job that one reader saw
 * differently (RFC 8259 4: names "SHOULD be unique").
 *
 * `text` must be valid JSON (call it after JSON.parse accepted it): the scan only tracks
 * strings and brackets. Names are compared decoded, so `"a"` and `"\u0061"` are the same.
 */
export function repeatedName(text: string): string | undefined {
  // Per open object or array: the names seen (objects only), the path to it, and for an
  // array the index of the element being read.
  const stack: Array<{ names: Set<string> | undefined; path: string; index: number; name: string }> = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (expectName && top?.names) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.names.has(name)) return `${top.path}/${escapePointer(name)}`;
        top.names.add(name);
        top.name = name;
        expectName = false;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      const top = stack.at(-1);
      const here = top === undefined ? '' : `${top.path}/${top.names ? escapePointer(top.name) : top.index}`;
      stack.push({ names: c === '{' ? new Set() : undefined, path: here, index: 0, name: '' });
      expectName = c === '{';
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top?.names) expectName = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
