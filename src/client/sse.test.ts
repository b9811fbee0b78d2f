import { describe, expect, it } from 'vitest';
import { readEvents } from './sse.ts';

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
}

async function all(body: ReadableStream<Uint8Array>) {
  const out = [];
  for await (const e of readEvents(body)) out.push(e);
  return out;
}

describe('readEvents', () => {
  it('parses events split anywhere across chunks, skipping comments and retry', async () => {
    const events = await all(
      streamOf(
        'retry: 2000\n\n: heartbeat\n\nid: 7\nev',
        'ent: job\ndata: {"a"',
        ':1}\n\nid: 8\r\nevent: job\r\ndata: x\r',
        '\ndata: y\r\n\r\n',
      ),
    );
    expect(events).toEqual([
      { id: '7', event: 'job', data: '{"a":1}' },
      { id: '8', event: 'job', data: 'x\ny' },
    ]);
  });

  it('an event without a blank line after it is not complete', async () => {
    expect(await all(streamOf('event: job\ndata: 1\n'))).toEqual([]);
  });
});
