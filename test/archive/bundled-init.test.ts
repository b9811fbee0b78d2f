import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Archive } from '../../src/archive/archive.ts';
import { LocalPostgres, postgresBinDir } from '../../src/archive/local-server.ts';
import { postgresClient } from '../../src/archive/postgres.ts';
import { envOf, find, helm, render } from '../chart/helm.ts';
import { finishedJob } from './fixtures.ts';

const run = promisify(execFile);

/**
 * The bundled PostgreSQL's init script, as the chart ships it, run the way the official
 * image runs a .sql file of /docker-entrypoint-initdb.d (psql as the superuser, stopping at
 * the first error) against a real server: the service's role it makes owns the genjobs
 * database and is no superuser.
 */
describe('chart: the bundled PostgreSQL gives the service a role of its own, not the superuser', () => {
  let server: LocalPostgres;
  let dir: string;
  beforeAll(async () => {
    await helm();
    server = await LocalPostgres.start();
    dir = await mkdtemp(join(tmpdir(), 'genjobs-pginit-'));
  }, 900_000);
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('its role logs in with the Secret password only, migrates and archives, and may do nothing beyond its database', async () => {
    const { objects } = await render();
    const statefulSet = find(objects, 'StatefulSet', 'genjobs-postgres');
    const sts = statefulSet.spec.template.spec;
    expect(envOf(statefulSet)).toMatchObject({
      POSTGRES_USER: 'postgres',
      POSTGRES_PASSWORD: { secretKeyRef: { name: 'genjobs-archive', key: 'adminPassword' } },
      GENJOBS_DB_PASSWORD: { secretKeyRef: { name: 'genjobs-archive', key: 'password' } },
    });
    const initVolume = sts.volumes.find((v: { name: string }) => v.name === 'init');
    expect(sts.containers[0].volumeMounts).toContainEqual({
      name: 'init',
      mountPath: '/docker-entrypoint-initdb.d',
      readOnly: true,
    });
    const configMap = find(objects, 'ConfigMap', initVolume.configMap.name);
    const scripts = Object.entries(configMap.data as Record<string, string>);
    expect(scripts.map(([name]) => name)).toEqual(['10-genjobs-role.sql']);
    const secret = find(objects, 'Secret', 'genjobs-archive').data as Record<string, string>;
    const decode = (k: string) => Buffer.from(secret[k]!, 'base64').toString();
    const password = decode('password');
    expect(decode('adminPassword')).not.toBe(password);
    expect(decode('url')).toBe(`postgres://genjobs:${password}@genjobs-postgres:5432/genjobs`);

    // As the image does: psql -v ON_ERROR_STOP=1 as the superuser, the file given with -f.
    const file = join(dir, scripts[0]![0]);
    await writeFile(file, scripts[0]![1]);
    const psql = (f: string, extraEnv: NodeJS.ProcessEnv) =>
      run(
        join(postgresBinDir(), 'psql'),
        [
          '-v',
          'ON_ERROR_STOP=1',
          '--no-psqlrc',
          '--no-password',
          '-h',
          '127.0.0.1',
          '-p',
          String(server.port),
        ].concat(['-U', 'postgres', '-d', 'postgres', '-f', f]),
        { env: { PATH: process.env.PATH, ...extraEnv } },
      );
    await psql(file, { GENJOBS_DB_PASSWORD: password });

    // The test server trusts every local login; from here the service's role must give its password.
    const superuser = postgresClient({ connectionString: server.url });
    await writeFile(
      join(server.dir, 'data', 'pg_hba.conf'),
      'host all postgres 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 scram-sha-256\n',
    );
    await superuser.query('SELECT pg_reload_conf()');
    const urlOf = (pw: string) =>
      `postgres://genjobs:${encodeURIComponent(pw)}@127.0.0.1:${server.port}/genjobs`;

    const wrong = postgresClient({ connectionString: urlOf('not-the-password'), timeoutMs: 5_000 });
    await expect(wrong.query('SELECT 1')).rejects.toThrow(
      /password authentication failed for user "genjobs"/,
    );
    await wrong.close();

    const sql = postgresClient({ connectionString: urlOf(password), timeoutMs: 5_000 });
    const archive = new Archive(sql);
    try {
      // Its migrations make the tables in its own database; it archives and reads back.
      await archive.upsertJobs([finishedJob('j1', { account: 'acme' })]);
      expect((await archive.getJob('j1'))?.metadata.name).toBe('j1');
      const [role] = await sql.query<{ rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean }>(
        'SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user',
      );
      expect(role).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false });
      await expect(sql.query('CREATE ROLE intruder LOGIN')).rejects.toThrow(/permission denied/);
      await expect(sql.query("SELECT pg_read_file('pg_hba.conf')")).rejects.toThrow(/permission denied/);
      await expect(sql.query("COPY genjobs_jobs TO '/tmp/genjobs-leak'")).rejects.toThrow(
        /permission denied|must be superuser|pg_write_server_files/,
      );
      const [owner] = await superuser.query<{ owner: string }>(
        "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = 'genjobs'",
      );
      expect(owner).toEqual({ owner: 'genjobs' });

      // Without the password in its environment the script stops at an error: no role without one.
      const again = join(dir, 'again.sql');
      await writeFile(again, (await readFile(file, 'utf8')).replaceAll('genjobs', 'genjobs2'));
      await expect(psql(again, {})).rejects.toThrow(/syntax error/);
      expect(await superuser.query("SELECT rolname FROM pg_roles WHERE rolname = 'genjobs2'")).toEqual([]);
    } finally {
      await archive.close();
      await superuser.close();
    }
  });
});
