-- 0012-application-id.sql
-- frontdesk-migration: destructive=0
--
-- The database file says it is frontdesk's: SQLite's application id in the
-- file header, "FDK1" (DB_APPLICATION_ID in src/db.h). Opening a database
-- reads it from the header without parsing the schema, which is as costly as
-- the rest of a short command; a file without it (another program's, or one
-- from before this migration) is looked at as before. No row changes.
PRAGMA application_id = 1178880817;
