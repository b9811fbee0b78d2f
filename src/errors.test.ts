import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, httpStatus, isRetryable } from './errors.ts';
import { isRetryableFailure, JOB_FAILURE_CODES } from './jobs/failure.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** Rows of a README table as cells, for the tables whose rows match `row`. */
const rows = (row: RegExp) =>
  readme
    .split('\n')
    .filter((line) => row.test(line))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim().replaceAll('`', '')),
    );

describe("the README's error table", () => {
  const table = rows(/^\| \d{3} \| `[A-Z_]+` \|/);

  it('lists every code once, with the status and retryable the code answers', () => {
    expect(table.map(([, code]) => code).sort()).toEqual([...ERROR_CODES].sort());
    for (const [status, code, , retryable] of table) {
      const c = code as (typeof ERROR_CODES)[number];
      expect([code, Number(status), retryable]).toEqual([code, httpStatus(c), isRetryable(c) ? 'yes' : 'no']);
    }
  });
});

describe("the README's failed-job codes", () => {
  it('lists the closed set with its retry hints', () => {
    const table = rows(/^\| `[A-Z_]+` \| (yes|no) \|/);
    expect(table.map(([code]) => code)).toEqual([...JOB_FAILURE_CODES]);
    for (const [code, retryable] of table) {
      const c = code as (typeof JOB_FAILURE_CODES)[number];
      expect([code, retryable]).toEqual([code, isRetryableFailure(c) ? 'yes' : 'no']);
    }
  });
});
