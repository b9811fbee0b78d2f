-- The service's role in the bundled PostgreSQL (templates/archive-postgres.yaml), made once
-- by the image's superuser on an empty data directory: it logs in with GENJOBS_DB_PASSWORD
-- and owns the genjobs database, where the service's migrations make their tables; it is
-- no superuser and may make no roles or databases. test/archive/bundled-init.test.ts runs
-- this file against a real server.
\getenv genjobs_password GENJOBS_DB_PASSWORD
CREATE ROLE genjobs LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'genjobs_password';
CREATE DATABASE genjobs OWNER genjobs;
REVOKE ALL ON DATABASE genjobs FROM PUBLIC;
