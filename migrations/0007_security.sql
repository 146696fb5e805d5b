CREATE TABLE `dimension_counts` (
	`organization_id` integer NOT NULL,
	`day` text NOT NULL,
	`dimension` text NOT NULL,
	`values` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`organization_id`, `day`, `dimension`)
);
--> statement-breakpoint
CREATE INDEX `dimension_counts_day_idx` ON `dimension_counts` (`day`);--> statement-breakpoint
CREATE TABLE `dimension_values` (
	`organization_id` integer NOT NULL,
	`day` text NOT NULL,
	`dimension` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`organization_id`, `day`, `dimension`, `value`)
);
--> statement-breakpoint
ALTER TABLE `contents` ADD `complete_requested_at` text;--> statement-breakpoint
CREATE INDEX `contents_open_uploads_idx` ON `contents` (`created_at`) WHERE status = 'uploading';--> statement-breakpoint
ALTER TABLE `feeds` ADD `building_until` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `player_token_key` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `player_tokens_required` integer DEFAULT false NOT NULL;