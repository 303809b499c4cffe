// RFC 8259 §4: the names within a JSON object SHOULD be unique. This service refuses a body that repeats one: a
// reader that keeps the first member and one that keeps the last (JSON.parse) would see two different payouts.

/** Where a repeated member name was found: the name and the JSON Pointer (RFC 6901) of its object. */
export interface RepeatedMember {
  readonly name: string;
  readonly pointer: string;
}

/**
 * The first member name repeated within one object of `text`, or undefined. `text` must already be valid JSON
 * (JSON.parse accepted it): the scan tracks only strings and brackets. One pass, no recursion, so a deeply nested
 * body costs a stack of arrays, not of calls. Names are compared after unescaping (`"a"` and `"\u0061"` repeat).
 */
export function findRepeatedMember(text: string): RepeatedMember | undefined {
  // One frame per open bracket: for an object, the names seen so far; for an array, the index of the next element.
  const frames: Array<{ names?: Set<string>; path: string; index: number }> = [];
  let pendingName: string | undefined;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      const top = frames[frames.length - 1];
      // A string directly followed by ':' is a member name.
      let j = end;
      while (
        j < text.length &&
        (text[j] === ' ' || text[j] === '\t' || text[j] === '\n' || text[j] === '\r')
      )
        j++;
      if (top?.names !== undefined && text[j] === ':') {
        const name = JSON.parse(text.slice(i, end)) as string;
        if (top.names.has(name)) return { name, pointer: top.path };
        top.names.add(name);
        pendingName = name;
      }
      i = end;
      continue;
    }
    if (c === '{' || c === '[') {
      const top = frames[frames.length - 1];
      const key =
        top === undefined ? undefined : top.names !== undefined ? pendingName : String(top.index);
      const path =
        key === undefined ? '' : `${top!.path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      frames.push(c === '{' ? { names: new Set(), path, index: 0 } : { path, index: 0 });
    } else if (c === '}' || c === ']') {
      frames.pop();
    } else if (c === ',') {
      const top = frames[frames.length - 1];
      if (top !== undefined && top.names === undefined) top.index++;
    }
    i++;
  }
  return undefined;
}

/** The index just past the closing quote of the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  return text.length;
}
