/** One Server-Sent Event. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Reads Server-Sent Events from a response body as the EventSource standard parses them
 * (lines end in LF, CR or CRLF; `data` lines join with LF; comments and `retry` skipped).
 * Written out because the client takes no dependencies beyond fetch.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const m = /\r\n|\r|\n/.exec(buffer);
      // A lone CR at the end may be the first half of a CRLF: wait for the next chunk.
      if (!m || (m[0] === '\r' && m.index === buffer.length - 1)) break;
      const line = buffer.slice(0, m.index);
      buffer = buffer.slice(m.index + m[0].length);
      if (line === '') {
        if (data.length > 0) yield { id, event: event || 'message', data: data.join('\n') };
        data = [];
        event = '';
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id' && !value.includes('\0')) id = value;
    }
  }
}
