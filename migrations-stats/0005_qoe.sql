-- Hand-written in drizzle-kit's form (its snapshot is regenerated at merge): WITHOUT ROWID on the tables keyed
-- (a new row is one b-tree entry), and the trigger that fences a view's replays
-- (src/db/stats/schema.ts, qoe_views).
CREATE TABLE `qoe_events` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`session_id` text NOT NULL,
	`ts` integer NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`content_key` text DEFAULT 'none' NOT NULL,
	`state` text,
	`bitrate` integer,
	`video_height` integer,
	`player_height` integer,
	`error` text,
	`msd` integer,
	`latency` integer,
	`stream_type` text,
	PRIMARY KEY(`organization_id`, `date`, `session_id`, `ts`, `seq`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `qoe_views` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`session_id` text NOT NULL,
	`content_key` text NOT NULL,
	`country` text DEFAULT 'none' NOT NULL,
	`device_type` text DEFAULT 'none' NOT NULL,
	`player_id` text DEFAULT 'none' NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	`closed` integer DEFAULT 0 NOT NULL,
	`figures` text NOT NULL,
	`contribution` text NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`organization_id`, `date`, `session_id`, `content_key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `qoe_views_content_idx` ON `qoe_views` (`organization_id`,`content_key`,`first_at`);--> statement-breakpoint
CREATE INDEX `qoe_views_recent_idx` ON `qoe_views` (`organization_id`,`last_at`);--> statement-breakpoint
CREATE INDEX `qoe_views_pending_idx` ON `qoe_views` (`last_at`) WHERE pending = 1;--> statement-breakpoint
CREATE TRIGGER `qoe_views_revision` BEFORE UPDATE ON `qoe_views`
WHEN NEW.`revision` <> OLD.`revision` + 1
BEGIN
  SELECT RAISE(ABORT, 'qoe view replayed by another batch at the same time');
END;
--> statement-breakpoint
CREATE TABLE `qoe_daily` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`content_key` text NOT NULL,
	`country` text DEFAULT 'none' NOT NULL,
	`device_type` text DEFAULT 'none' NOT NULL,
	`player_id` text DEFAULT 'none' NOT NULL,
	`rendition` text DEFAULT 'none' NOT NULL,
	`views` integer DEFAULT 0 NOT NULL,
	`started` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`exits_before_start` integer DEFAULT 0 NOT NULL,
	`startup_ms` integer DEFAULT 0 NOT NULL,
	`rebuffers` integer DEFAULT 0 NOT NULL,
	`rebuffered_views` integer DEFAULT 0 NOT NULL,
	`rebuffer_ms` integer DEFAULT 0 NOT NULL,
	`played_ms` integer DEFAULT 0 NOT NULL,
	`kbps_ms` integer DEFAULT 0 NOT NULL,
	`kbps_known_ms` integer DEFAULT 0 NOT NULL,
	`height_ms` integer DEFAULT 0 NOT NULL,
	`sized_ms` integer DEFAULT 0 NOT NULL,
	`upscale_permille` integer DEFAULT 0 NOT NULL,
	`live_latency_ms` integer DEFAULT 0 NOT NULL,
	`live_views` integer DEFAULT 0 NOT NULL,
	`success_score` integer DEFAULT 0 NOT NULL,
	`success_scored` integer DEFAULT 0 NOT NULL,
	`startup_score` integer DEFAULT 0 NOT NULL,
	`smoothness_score` integer DEFAULT 0 NOT NULL,
	`quality_score` integer DEFAULT 0 NOT NULL,
	`quality_scored` integer DEFAULT 0 NOT NULL,
	`overall_score` integer DEFAULT 0 NOT NULL,
	`overall_scored` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `qoe_daily_key_idx` ON `qoe_daily` (`organization_id`,`date`,`content_key`,`country`,`device_type`,`player_id`,`rendition`);--> statement-breakpoint
CREATE INDEX `qoe_daily_content_idx` ON `qoe_daily` (`organization_id`,`content_key`,`date`);--> statement-breakpoint
CREATE TABLE `qoe_startups` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`content_key` text NOT NULL,
	`country` text DEFAULT 'none' NOT NULL,
	`device_type` text DEFAULT 'none' NOT NULL,
	`player_id` text DEFAULT 'none' NOT NULL,
	`rendition` text DEFAULT 'none' NOT NULL,
	`bucket` integer NOT NULL,
	`views` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `qoe_startups_key_idx` ON `qoe_startups` (`organization_id`,`date`,`content_key`,`country`,`device_type`,`player_id`,`rendition`,`bucket`);
