-- 0008-channel-registry.sql
-- frontdesk-migration: destructive=0
--
-- The provider registry serves every integration type, with a rollout:
--  - integration_provider.integration_type may now be 'payment', 'booking'
--    or 'esign' (0005 allowed 'payment' only); per type there is still at
--    most one enabled primary, and any number of backups (role, 0005);
--  - integration_provider.rollout_percent (0..100, default 100): the share
--    of new orders the primary serves, decided stably per order from its
--    number (src/chan-provider.c, chan_provider_route); the rest goes to the
--    first enabled backup. A backup's percentage is kept but unused;
--  - channel_state.failing_since: the real time of the first failed call
--    to the channel since its last success (NULL while it works), so that
--    a provider failing for longer than channel_failing_report_seconds is
--    reported by `frontdesk channel status` and `channel providers`.
--
-- SQLite cannot change a CHECK in place: integration_provider is rebuilt
-- with the same rows, ids and history triggers (its history table keeps
-- every row and gains the new column). Nothing is lost: not destructive.

CREATE TABLE integration_provider_0008 (
  id INTEGER PRIMARY KEY,
  integration_type TEXT NOT NULL CHECK (integration_type IN ('payment', 'booking', 'esign')),
  provider_code TEXT NOT NULL CHECK (length(provider_code) BETWEEN 1 AND 40),
  role TEXT NOT NULL CHECK (role = 'primary' OR role = 'backup'),
  base_url TEXT NOT NULL CHECK (length(base_url) BETWEEN 8 AND 400),
  settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  rollout_percent INTEGER NOT NULL DEFAULT 100
    CHECK (rollout_percent BETWEEN 0 AND 100),
  UNIQUE (integration_type, provider_code)
);
INSERT INTO integration_provider_0008 (id, integration_type, provider_code, role, base_url,
  settings, enabled, created_at, updated_at)
  SELECT id, integration_type, provider_code, role, base_url, settings, enabled, created_at,
    updated_at FROM integration_provider;
DROP TABLE integration_provider;
ALTER TABLE integration_provider_0008 RENAME TO integration_provider;
CREATE UNIQUE INDEX integration_provider_one_primary
  ON integration_provider(integration_type) WHERE role = 'primary' AND enabled = 1;

ALTER TABLE integration_provider_his ADD COLUMN rollout_percent INTEGER;
CREATE TRIGGER integration_provider_his_ins AFTER INSERT ON integration_provider
BEGIN
  INSERT INTO integration_provider_his (id, integration_type, provider_code, role, base_url,
    settings, enabled, created_at, updated_at, rollout_percent, operator_id, operate_type,
    operate_at)
  VALUES (NEW.id, NEW.integration_type, NEW.provider_code, NEW.role, NEW.base_url,
    NEW.settings, NEW.enabled, NEW.created_at, NEW.updated_at, NEW.rollout_percent,
    fd_operator(), 1, fd_now());
END;
CREATE TRIGGER integration_provider_his_upd AFTER UPDATE ON integration_provider
BEGIN
  INSERT INTO integration_provider_his (id, integration_type, provider_code, role, base_url,
    settings, enabled, created_at, updated_at, rollout_percent, operator_id, operate_type,
    operate_at)
  VALUES (NEW.id, NEW.integration_type, NEW.provider_code, NEW.role, NEW.base_url,
    NEW.settings, NEW.enabled, NEW.created_at, NEW.updated_at, NEW.rollout_percent,
    fd_operator(), 3, fd_now());
END;
CREATE TRIGGER integration_provider_his_del AFTER DELETE ON integration_provider
BEGIN
  INSERT INTO integration_provider_his (id, integration_type, provider_code, role, base_url,
    settings, enabled, created_at, updated_at, rollout_percent, operator_id, operate_type,
    operate_at)
  VALUES (OLD.id, OLD.integration_type, OLD.provider_code, OLD.role, OLD.base_url,
    OLD.settings, OLD.enabled, OLD.created_at, OLD.updated_at, OLD.rollout_percent,
    fd_operator(), 2, fd_now());
END;

ALTER TABLE channel_state ADD COLUMN failing_since INTEGER;
