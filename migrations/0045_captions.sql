-- Hand-written (docs/migrations.md: contents is never rebuilt by drizzle-kit): the caption
-- tracks the service keeps (docs/captions.md), the requests for automatic ones, the
-- organization's caption settings, and on contents the tracks' list its readers show (records,
-- playlists, the player) without a join.
ALTER TABLE `contents` ADD `captions` text DEFAULT '[]' NOT NULL;
--> statement-breakpoint
CREATE TABLE `caption_tracks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`content_id` integer NOT NULL,
	`language` text NOT NULL,
	`label` text NOT NULL,
	`kind` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`automatic` integer DEFAULT false NOT NULL,
	`engine` text,
	`version` integer NOT NULL,
	`cues` integer NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `caption_tracks_content_language_idx` ON `caption_tracks` (`content_id`,`language`);
--> statement-breakpoint
CREATE TABLE `caption_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`content_id` integer NOT NULL,
	`language` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`reason` text,
	`chunks` integer NOT NULL,
	`chunk_seconds` integer NOT NULL,
	`engine` text NOT NULL,
	`trigger` text NOT NULL,
	`track_language` text,
	`audio_seconds` real,
	`requested_at` text NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `caption_jobs_content_idx` ON `caption_jobs` (`content_id`,`id`);
--> statement-breakpoint
CREATE TABLE `caption_settings` (
	`organization_id` integer PRIMARY KEY NOT NULL,
	`auto_captions` integer DEFAULT false NOT NULL,
	`auto_language` text,
	`transcript_search` integer DEFAULT false NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
