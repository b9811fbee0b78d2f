/** Messages between the benchmark and the service parts it runs as child processes (child.ts). */

/** Memory of a child after two full collections (`global.gc()` under `--expose-gc`). */
export interface ChildMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** False when the child ran without --expose-gc (the heap figure then includes garbage). */
  gc: boolean;
}

export type ParentMessage = { type: 'memory'; id: number } | { type: 'stop' };

export type ChildMessage =
  | { type: 'ready'; url: string }
  | { type: 'failed'; error: string }
  | { type: 'memory'; id: number; memory: ChildMemory };
