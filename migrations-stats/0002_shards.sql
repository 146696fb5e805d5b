CREATE TABLE `closed_organizations` (
	`organization_id` integer PRIMARY KEY NOT NULL,
	`closed_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `ingested_messages` ADD `organization_id` integer;--> statement-breakpoint
ALTER TABLE `ingestion_days` ADD `last_counted_at` text;--> statement-breakpoint
ALTER TABLE `ingestion_days` ADD `max_lag_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `ingestion_days_day_idx` ON `ingestion_days` (`day`);--> statement-breakpoint
-- The fence of a move between shards (src/domain/stats/shard-moves.ts): once an organization is
-- closed here, a transaction that records one of its message ids fails as a whole.
CREATE TRIGGER `ingested_messages_closed_org` BEFORE INSERT ON `ingested_messages`
WHEN NEW.`organization_id` IS NOT NULL AND EXISTS (SELECT 1 FROM `closed_organizations` WHERE `organization_id` = NEW.`organization_id`)
BEGIN
  SELECT RAISE(ABORT, 'statistics of this organization are closed in this shard: it moved');
END;
