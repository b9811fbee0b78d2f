import { spawn } from 'node:child_process';

/** ffmpeg ran and failed; the message ends with its last words on stderr. */
export class FfmpegError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'FfmpegError';
  }
}

const STDERR_TAIL = 2000;

/**
 * Runs ffmpeg with `args` (no shell: each argument is passed as is) and resolves when it
 * exits 0; rejects with {@link FfmpegError} when it exits otherwise. Aborting `signal` kills it.
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
        reject(new FfmpegError(`ffmpeg ${why}: ${stderr.trim() || '(no output)'}`));
      }
    });
  });
}
