CREATE TABLE `ad_stats` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`content_key` text NOT NULL,
	`ad_country` text DEFAULT 'none' NOT NULL,
	`ad_creative` text DEFAULT 'none' NOT NULL,
	`ad_device_type` text DEFAULT 'none' NOT NULL,
	`ad_player_id` text DEFAULT 'none' NOT NULL,
	`ad_position` text DEFAULT 'none' NOT NULL,
	`ad_system` text DEFAULT 'none' NOT NULL,
	`ad_impression` integer DEFAULT 0 NOT NULL,
	`ad_25` integer DEFAULT 0 NOT NULL,
	`ad_50` integer DEFAULT 0 NOT NULL,
	`ad_75` integer DEFAULT 0 NOT NULL,
	`ad_100` integer DEFAULT 0 NOT NULL,
	`ad_done` integer DEFAULT 0 NOT NULL,
	`ad_skip` integer DEFAULT 0 NOT NULL,
	`ad_autoplayed` integer DEFAULT 0 NOT NULL,
	`ad_muted` integer DEFAULT 0 NOT NULL,
	`ad_unmuted` integer DEFAULT 0 NOT NULL,
	`ad_played_muted` integer DEFAULT 0 NOT NULL,
	`ad_played_unmuted` integer DEFAULT 0 NOT NULL,
	`ad_paused` integer DEFAULT 0 NOT NULL,
	`ad_resumed` integer DEFAULT 0 NOT NULL,
	`ad_clicked` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ad_stats_key_idx` ON `ad_stats` (`organization_id`,`date`,`content_key`,`ad_country`,`ad_creative`,`ad_device_type`,`ad_player_id`,`ad_position`,`ad_system`);--> statement-breakpoint
CREATE INDEX `ad_stats_content_idx` ON `ad_stats` (`organization_id`,`content_key`,`date`);--> statement-breakpoint
CREATE TABLE `ecommerce_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`ecommerce_key` text NOT NULL,
	`ecommerce_link` text NOT NULL,
	`ecommerce_name` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ecommerce_items_org_key_idx` ON `ecommerce_items` (`organization_id`,`ecommerce_key`);--> statement-breakpoint
CREATE TABLE `ecommerce_stats` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`content_key` text NOT NULL,
	`ecommerce_key` text DEFAULT 'none' NOT NULL,
	`device_type` text DEFAULT 'none' NOT NULL,
	`ecommerce_clicked` integer DEFAULT 0 NOT NULL,
	`ecommerce_hidden` integer DEFAULT 0 NOT NULL,
	`ecommerce_visible` integer DEFAULT 0 NOT NULL,
	`ecommerce_bar_hidden` integer DEFAULT 0 NOT NULL,
	`ecommerce_bar_shown` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ecommerce_stats_key_idx` ON `ecommerce_stats` (`organization_id`,`date`,`content_key`,`ecommerce_key`,`device_type`);--> statement-breakpoint
CREATE INDEX `ecommerce_stats_content_idx` ON `ecommerce_stats` (`organization_id`,`content_key`,`date`);--> statement-breakpoint
CREATE TABLE `video_stats` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`content_key` text NOT NULL,
	`country` text DEFAULT 'none' NOT NULL,
	`video_device_type` text DEFAULT 'none' NOT NULL,
	`video_player_id` text DEFAULT 'none' NOT NULL,
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
	`video_exited_fulscreen` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `video_stats_key_idx` ON `video_stats` (`organization_id`,`date`,`content_key`,`country`,`video_device_type`,`video_player_id`);--> statement-breakpoint
CREATE INDEX `video_stats_content_idx` ON `video_stats` (`organization_id`,`content_key`,`date`);--> statement-breakpoint
CREATE TABLE `viewer_stats` (
	`organization_id` integer NOT NULL,
	`date` text NOT NULL,
	`content_key` text NOT NULL,
	`country` text DEFAULT 'none' NOT NULL,
	`device_type` text DEFAULT 'none' NOT NULL,
	`ip` text DEFAULT 'none' NOT NULL,
	`fingerprint` text DEFAULT 'none' NOT NULL,
	`tput_hash` text DEFAULT 'none' NOT NULL,
	`ad_position` text DEFAULT 'none' NOT NULL,
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
	`video_paused` integer DEFAULT 0 NOT NULL,
	`video_resumed` integer DEFAULT 0 NOT NULL,
	`video_docked` integer DEFAULT 0 NOT NULL,
	`video_undocked` integer DEFAULT 0 NOT NULL,
	`video_entered_fullscreen` integer DEFAULT 0 NOT NULL,
	`video_exited_fulscreen` integer DEFAULT 0 NOT NULL,
	`ad_autoplayed` integer DEFAULT 0 NOT NULL,
	`ad_done` integer DEFAULT 0 NOT NULL,
	`ad_skip` integer DEFAULT 0 NOT NULL,
	`ad_50` integer DEFAULT 0 NOT NULL,
	`ad_clicked` integer DEFAULT 0 NOT NULL,
	`ad_muted` integer DEFAULT 0 NOT NULL,
	`ad_unmuted` integer DEFAULT 0 NOT NULL,
	`ad_played_muted` integer DEFAULT 0 NOT NULL,
	`ad_played_unmuted` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `viewer_stats_key_idx` ON `viewer_stats` (`organization_id`,`date`,`content_key`,`country`,`device_type`,`ip`,`fingerprint`,`tput_hash`,`ad_position`);--> statement-breakpoint
CREATE INDEX `viewer_stats_content_idx` ON `viewer_stats` (`organization_id`,`content_key`,`date`);--> statement-breakpoint
CREATE INDEX `viewer_stats_fingerprint_idx` ON `viewer_stats` (`organization_id`,`fingerprint`,`date`);--> statement-breakpoint
CREATE INDEX `viewer_stats_tput_idx` ON `viewer_stats` (`organization_id`,`tput_hash`,`date`);