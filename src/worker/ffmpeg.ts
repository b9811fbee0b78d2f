import { spawn } from 'node:child_process';
import { WorkerError } from './errors.ts';

/** ffmpeg ran and failed; the message ends with its last words on stderr. */
export class FfmpegError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'FfmpegError';
  }
}

const STDERR_TAIL = 2000;

/**
 * ffmpeg's words for a node that could not take what it wrote (its scratch volume full,
 * failing or read-only): the node's fault, not the input's, so not an FfmpegError.
 */
const NODE_FAULT = /No space left on device|Disk quota exceeded|Input\/output error|Read-only file system/;

/**
 * Runs ffmpeg with `args` (no shell: each argument is passed as is) and resolves when it
 * exits 0; rejects with {@link FfmpegError} when it exits otherwise (an `INTERNAL`
 * WorkerError when the node could not take its output). Aborting `signal` kills it.
 */
export function runFfmpeg(ffmpeg: string, args: string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      signal,
      killSignal: 'SIGKILL',
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    // Not an FfmpegError: a missing executable is the worker image's fault, not the input's.
    child.on('error', (error) => {
      if (signal.aborted) reject(error);
      else reject(new Error(`ffmpeg (${ffmpeg}) could not be started: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, killedBy) => {
      if (code === 0) resolve();
      else if (!signal.aborted) {
        const why = code === null ? `was killed by ${killedBy}` : `exited with code ${code}`;
        const said = `ffmpeg ${why}: ${stderr.trim() || '(no output)'}`;
        const fault = NODE_FAULT.exec(stderr)?.[0];
        reject(
          fault
            ? new WorkerError(
                'INTERNAL',
                `the worker could not write its output on its node (${fault.toLowerCase()})`,
                {
                  detail: said,
                },
              )
            : new FfmpegError(said),
        );
      }
    });
  });
}
