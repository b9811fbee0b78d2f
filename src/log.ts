import { writeSync } from 'node:fs';
import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

/**
 * JSON-lines logger. Every process makes one at start-up and passes children down
 * (`log.child({ requestId })`), so each line carries the id that ties it to a request or job.
 * Secrets never go into a log line: callers log key prefixes, not keys.
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  // Lines are gathered and written a few KiB at a time, and at least every LOG_FLUSH_MS.
  // Written one by one, each request's line cost a hand-off to libuv's thread pool and back,
  // ~50 µs of CPU (twice a write(2) of its own) and a twentieth of a submit's in the api. The
  // write of a batch is synchronous, one write(2) on this thread: an asynchronous one still
  // in the thread pool when the process exits was overtaken by the exit's flush of the lines
  // after it (they came out first), or lost. What is left goes out when the process exits
  // (flushAtExit), a crash included; only a SIGKILL can lose the last lines (LOG_FLUSH_MS).
  const out = pino.destination({
    dest: 1,
    sync: true,
    minLength: LOG_BUFFER_BYTES,
    periodicFlush: LOG_FLUSH_MS,
    maxLength: MAX_UNWRITTEN_LOG_BYTES,
  });
  // A stdout that cannot be written (a full disk under its file, an I/O error) loses lines,
  // not the process: its unhandled 'error' would end it (a worker would fail its job). The
  // lines wait, up to MAX_UNWRITTEN_LOG_BYTES, and go with the next write that succeeds; at
  // exit they are given up rather than flushed (sonic-boom's flushSync retries such an error
  // for ever, so the process would never end).
  let failing = false;
  let said = false;
  out.on('write', (bytes: number) => {
    // The periodic flush of an empty buffer writes nothing, and says nothing of the disk.
    if (bytes > 0) failing = false;
  });
  out.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') return; // a closed pipe: pino's own handler stops writing
    failing = true;
    if (said) return;
    said = true;
    try {
      writeSync(
        2,
        `genjobs ${name}: its log lines cannot be written (${err.message}); they are dropped until they can\n`,
      );
    } catch {
      // stderr is gone too: nothing is left to say it with
    }
  });
  const flushSync = out.flushSync.bind(out);
  out.flushSync = () => {
    if (!failing) flushSync();
  };
  flushAtExit(out);
  return pino(loggerOptions(name, level), out);
}

/**
 * The destinations whose gathered lines go out when the process exits (pino does this only
 * for asynchronous ones), as weak references: this set keeps no logger alive by itself.
 */
const atExit = new Set<WeakRef<{ flushSync(): void }>>();

function flushAtExit(out: { flushSync(): void }): void {
  if (atExit.size === 0) {
    process.once('exit', () => {
      for (const ref of atExit) {
        try {
          ref.deref()?.flushSync();
        } catch {
          // stdout is gone (a closed pipe): nothing is left to write the lines to
        }
      }
    });
  }
  atExit.add(new WeakRef(out));
}

/** Log output gathered before a write (a dozen request lines). */
const LOG_BUFFER_BYTES = 4096;
/** The longest a line waits to be written: `kubectl logs -f` stays live. */
const LOG_FLUSH_MS = 100;
/** Log output held while stdout cannot take it; past this, lines are dropped. */
const MAX_UNWRITTEN_LOG_BYTES = 16 * 1024 * 1024;

/** The options of every process's logger: tests that read log lines log with them too. */
export function loggerOptions(name: string, level: string): LoggerOptions {
  return {
    name,
    level,
    base: { component: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: serializeError },
    redact: {
      paths: ['authorization', 'headers.authorization', 'headers["x-api-key"]', 'key', 'secret'],
      censor: '[redacted]',
    },
  };
}

/**
 * pino's error serializer, with a message that says each cause once. pino appends every
 * cause's message to the error's own, but an error here that wraps another already says
 * its cause's message in its own ("the job archive is unavailable: connect ECONNREFUSED …"):
 * appended again, a log line repeats it.
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error);
  if (err instanceof Error && out && typeof out === 'object') out.message = messageWithCauses(err, new Set());
  return out;
}

function messageWithCauses(err: Error, seen: Set<Error>): string {
  seen.add(err);
  const cause = err.cause;
  if (!(cause instanceof Error) || seen.has(cause)) return err.message;
  const inner = messageWithCauses(cause, seen);
  // inner starts with the cause's own message: only what follows it is new.
  return cause.message && err.message.includes(cause.message)
    ? err.message + inner.slice(cause.message.length)
    : `${err.message}: ${inner}`;
}

/** A logger that writes nothing, for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
