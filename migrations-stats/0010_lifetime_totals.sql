-- Lifetime totals for E9's top N (src/db/stats/schema.ts lifetimeTotals, lifetimeChanged), written
-- by hand: each content key's totals over all its days with a descending index per counter (keys
-- with a positive total only), and the keys counted since their row was written. Filled once here
-- from each key's last running totals row (its sums over all its days); the queue consumer marks
-- the keys it counts from here on, and the cron ranks them again once a day.
CREATE TABLE `video_lifetime_totals` (
	`organization_id` integer NOT NULL,
	`content_key` text NOT NULL,
	`thumbnail_view` integer DEFAULT 0 NOT NULL,
	`video_impression` integer DEFAULT 0 NOT NULL,
	`video_played` integer DEFAULT 0 NOT NULL,
	`played_1s` integer DEFAULT 0 NOT NULL,
	`played_3s` integer DEFAULT 0 NOT NULL,
	`played_15s` integer DEFAULT 0 NOT NULL,
	`played_30s` integer DEFAULT 0 NOT NULL,
	`played_25percent` integer DEFAULT 0 NOT NULL,
	`played_50percent` integer DEFAULT 0 NOT NULL,
	`played_75percent` integer DEFAULT 0 NOT NULL,
	`video_ended` integer DEFAULT 0 NOT NULL,
	`video_autoplay` integer DEFAULT 0 NOT NULL,
	`video_muted` integer DEFAULT 0 NOT NULL,
	`video_unmuted` integer DEFAULT 0 NOT NULL,
	`video_played_muted` integer DEFAULT 0 NOT NULL,
	`video_played_unmuted` integer DEFAULT 0 NOT NULL,
	`video_caption_enabled` integer DEFAULT 0 NOT NULL,
	`video_pause` integer DEFAULT 0 NOT NULL,
	`video_resume` integer DEFAULT 0 NOT NULL,
	`video_docked` integer DEFAULT 0 NOT NULL,
	`video_undocked` integer DEFAULT 0 NOT NULL,
	`video_entered_fullscreen` integer DEFAULT 0 NOT NULL,
	`video_exited_fulscreen` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`organization_id`, `content_key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_thumbnail_view_idx` ON `video_lifetime_totals` (`organization_id`, `thumbnail_view` desc, `content_key`) WHERE `thumbnail_view` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_impression_idx` ON `video_lifetime_totals` (`organization_id`, `video_impression` desc, `content_key`) WHERE `video_impression` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_played_idx` ON `video_lifetime_totals` (`organization_id`, `video_played` desc, `content_key`) WHERE `video_played` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_played_1s_idx` ON `video_lifetime_totals` (`organization_id`, `played_1s` desc, `content_key`) WHERE `played_1s` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_played_3s_idx` ON `video_lifetime_totals` (`organization_id`, `played_3s` desc, `content_key`) WHERE `played_3s` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_played_15s_idx` ON `video_lifetime_totals` (`organization_id`, `played_15s` desc, `content_key`) WHERE `played_15s` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_played_30s_idx` ON `video_lifetime_totals` (`organization_id`, `played_30s` desc, `content_key`) WHERE `played_30s` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_played_25percent_idx` ON `video_lifetime_totals` (`organization_id`, `played_25percent` desc, `content_key`) WHERE `played_25percent` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_played_50percent_idx` ON `video_lifetime_totals` (`organization_id`, `played_50percent` desc, `content_key`) WHERE `played_50percent` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_played_75percent_idx` ON `video_lifetime_totals` (`organization_id`, `played_75percent` desc, `content_key`) WHERE `played_75percent` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_ended_idx` ON `video_lifetime_totals` (`organization_id`, `video_ended` desc, `content_key`) WHERE `video_ended` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_autoplay_idx` ON `video_lifetime_totals` (`organization_id`, `video_autoplay` desc, `content_key`) WHERE `video_autoplay` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_muted_idx` ON `video_lifetime_totals` (`organization_id`, `video_muted` desc, `content_key`) WHERE `video_muted` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_unmuted_idx` ON `video_lifetime_totals` (`organization_id`, `video_unmuted` desc, `content_key`) WHERE `video_unmuted` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_played_muted_idx` ON `video_lifetime_totals` (`organization_id`, `video_played_muted` desc, `content_key`) WHERE `video_played_muted` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_played_unmuted_idx` ON `video_lifetime_totals` (`organization_id`, `video_played_unmuted` desc, `content_key`) WHERE `video_played_unmuted` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_caption_enabled_idx` ON `video_lifetime_totals` (`organization_id`, `video_caption_enabled` desc, `content_key`) WHERE `video_caption_enabled` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_pause_idx` ON `video_lifetime_totals` (`organization_id`, `video_pause` desc, `content_key`) WHERE `video_pause` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_resume_idx` ON `video_lifetime_totals` (`organization_id`, `video_resume` desc, `content_key`) WHERE `video_resume` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_docked_idx` ON `video_lifetime_totals` (`organization_id`, `video_docked` desc, `content_key`) WHERE `video_docked` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_undocked_idx` ON `video_lifetime_totals` (`organization_id`, `video_undocked` desc, `content_key`) WHERE `video_undocked` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_entered_fullscreen_idx` ON `video_lifetime_totals` (`organization_id`, `video_entered_fullscreen` desc, `content_key`) WHERE `video_entered_fullscreen` > 0;
--> statement-breakpoint
CREATE INDEX `video_lifetime_totals_video_exited_fulscreen_idx` ON `video_lifetime_totals` (`organization_id`, `video_exited_fulscreen` desc, `content_key`) WHERE `video_exited_fulscreen` > 0;
--> statement-breakpoint
CREATE TABLE `video_lifetime_changed` (
	`organization_id` integer NOT NULL,
	`content_key` text NOT NULL,
	`since` text NOT NULL,
	PRIMARY KEY(`organization_id`, `content_key`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `video_lifetime_changed_since_idx` ON `video_lifetime_changed` (`since`);
--> statement-breakpoint
INSERT INTO `video_lifetime_totals` (`organization_id`, `content_key`, `thumbnail_view`, `video_impression`, `video_played`, `played_1s`, `played_3s`, `played_15s`, `played_30s`, `played_25percent`, `played_50percent`, `played_75percent`, `video_ended`, `video_autoplay`, `video_muted`, `video_unmuted`, `video_played_muted`, `video_played_unmuted`, `video_caption_enabled`, `video_pause`, `video_resume`, `video_docked`, `video_undocked`, `video_entered_fullscreen`, `video_exited_fulscreen`)
SELECT r.`organization_id`, r.`content_key`, r.`thumbnail_view`, r.`video_impression`, r.`video_played`, r.`played_1s`, r.`played_3s`, r.`played_15s`, r.`played_30s`, r.`played_25percent`, r.`played_50percent`, r.`played_75percent`, r.`video_ended`, r.`video_autoplay`, r.`video_muted`, r.`video_unmuted`, r.`video_played_muted`, r.`video_played_unmuted`, r.`video_caption_enabled`, r.`video_pause`, r.`video_resume`, r.`video_docked`, r.`video_undocked`, r.`video_entered_fullscreen`, r.`video_exited_fulscreen`
FROM `video_totals_keys` k JOIN `video_running_totals` r
  ON r.`organization_id` = k.`organization_id` AND r.`content_key` = k.`content_key` AND r.`date` = k.`last_date`;
