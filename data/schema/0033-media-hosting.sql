-- 0033-media-hosting.sql
-- frontdesk-migration: destructive=0
--
-- The media provider's processing (condition reports, 0032): a panorama or
-- a 3D capture stays "processing" at the provider for seconds to hours,
-- and the worker asks about each such media_host once per
-- media_query_seconds until it is ready or failed.
--
-- media_host_query: when the worker last asked the provider about a host
--   (real time), operational state like esign_flow_query (0017), without
--   history: a history row per question would grow the history of a host
--   that took hours by one row a minute, saying nothing.
--
-- media_upload_try: when an upload of a host was first handed to the
--   provider (a call made, whatever became of it): a host that never learnt
--   the provider's id, whose upload was tried, may be held there, and its
--   deletion cannot be called done without asking (media.c). Operational,
--   without history.
--
-- retention_hosted_copy: the copies of a purged customer's media that
--   media providers hosted, whose deletion the purge asked for (a
--   media.delete command each): part of the deletion's certificate, which
--   shows them with what became of each. Written once, in the purge's
--   transaction; never changed nor deleted.
--
-- Not destructive: new tables.

CREATE TABLE media_host_query (
  host_id INTEGER PRIMARY KEY REFERENCES media_host(id),
  queried_at INTEGER NOT NULL
);

CREATE TABLE media_upload_try (
  host_id INTEGER PRIMARY KEY REFERENCES media_host(id),
  first_at INTEGER NOT NULL
);

CREATE TABLE retention_hosted_copy (
  deletion_id TEXT NOT NULL REFERENCES retention_process(deletion_id),
  host_id INTEGER NOT NULL REFERENCES media_host(id),
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  PRIMARY KEY (deletion_id, host_id)
) WITHOUT ROWID;
CREATE TRIGGER retention_hosted_copy_no_update BEFORE UPDATE ON retention_hosted_copy
BEGIN
  SELECT RAISE(ABORT, 'a deletion certificate is never changed');
END;
CREATE TRIGGER retention_hosted_copy_no_delete BEFORE DELETE ON retention_hosted_copy
BEGIN
  SELECT RAISE(ABORT, 'a deletion certificate is never deleted');
END;
