-- 0028-pipeline-types.sql
-- frontdesk-migration: destructive=0
-- frontdesk-migration: schema-edit=1
--
-- Four more integration types on the one pipeline: e-mail and text
-- messages (reminders, confirmations, invoices), media hosting (condition
-- reports) and the chain's head office. The provider registry, the stored
-- inbound events and the outbox commands each name their type under a
-- CHECK of the types known (0008, 0009); this migration widens the three
-- lists to ('payment', 'booking', 'esign', 'email', 'sms', 'media', 'hq').
--
-- SQLite cannot change a CHECK in place. Rebuilding the three tables would
-- copy every stored event and command (a large shop holds millions) and
-- rewrite their triggers; instead the text of the three CREATE TABLE
-- statements is edited in sqlite_schema, SQLite's documented way to relax
-- a constraint that every stored row already satisfies (a wider list: each
-- row's type is in it). migrate.c runs this file with writable_schema on
-- and then bumps the schema version, so every connection reads the new
-- text; a text that does not parse rolls the migration back. The replace
-- below names the old list exactly as 0008 and 0009 wrote it, and the
-- temporary table's CHECK stops the migration unless exactly the three
-- tables now carry the new list and none the old one.
--
-- Not destructive: no row changes, only the three constraints' text.

UPDATE sqlite_schema
  SET sql = replace(sql, 'integration_type IN (''payment'', ''booking'', ''esign'')',
    'integration_type IN (''payment'', ''booking'', ''esign'', ''email'', ''sms'', ''media'', ''hq'')')
  WHERE type = 'table' AND name IN ('integration_provider', 'inbound_callback', 'outbox_event');

CREATE TEMP TABLE pipeline_types_edited (n INTEGER CHECK (n = 3));
INSERT INTO pipeline_types_edited
  SELECT count(*) FROM sqlite_schema WHERE type = 'table'
    AND name IN ('integration_provider', 'inbound_callback', 'outbox_event')
    AND instr(sql, 'integration_type IN (''payment'', ''booking'', ''esign'', ''email'', ''sms'', ''media'', ''hq'')') > 0
    AND instr(sql, 'integration_type IN (''payment'', ''booking'', ''esign'')') = 0;
DROP TABLE pipeline_types_edited;
