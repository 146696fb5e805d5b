CREATE TABLE `player_configurations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`config_id` text NOT NULL,
	`organization_id` integer NOT NULL,
	`name` text NOT NULL,
	`autoplay` text DEFAULT 'off' NOT NULL,
	`ads_enabled` integer DEFAULT false NOT NULL,
	`ad_tag_url` text,
	`midrolls` text DEFAULT '[]' NOT NULL,
	`docking` integer DEFAULT false NOT NULL,
	`accent_color` text NOT NULL,
	`logo_url` text,
	`related_feed_id` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`related_feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `player_configurations_config_id_unique` ON `player_configurations` (`config_id`);--> statement-breakpoint
CREATE INDEX `player_configurations_org_idx` ON `player_configurations` (`organization_id`,`id`);--> statement-breakpoint
CREATE TABLE `player_items` (
	`organization_id` integer NOT NULL,
	`ecommerce_key` text NOT NULL,
	`name` text NOT NULL,
	`link` text NOT NULL,
	`image_url` text,
	`price_text` text,
	PRIMARY KEY(`organization_id`, `ecommerce_key`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `contents` ADD `ad_tag_url` text;--> statement-breakpoint
ALTER TABLE `contents` ADD `item_placements` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `ad_tag_url` text;--> statement-breakpoint
ALTER TABLE `organizations` ADD `player_version` integer DEFAULT 0 NOT NULL;