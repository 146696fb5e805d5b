-- Hand-written (docs/migrations.md): the worker's side of live streams. The stream key's hash
-- beside the content row lets ingest decide before it reads a body; streams created before it
-- get a row without one (their Durable Object still checks the key). The recording's remux state
-- lets the cron fail a remux job that died.
CREATE TABLE `live_streams` (
	`content_id` integer PRIMARY KEY NOT NULL,
	`key_hash` text,
	`recording_status` text,
	`recording_reason` text,
	`recording_updated_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
CREATE INDEX `live_streams_recording_pending_idx` ON `live_streams` (`recording_updated_at`) WHERE recording_status = 'pending';--> statement-breakpoint
INSERT INTO `live_streams` (`content_id`, `key_hash`, `created_at`)
  SELECT `id`, NULL, `created_at` FROM `contents` WHERE `live_state` IS NOT NULL;
