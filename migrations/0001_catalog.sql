CREATE TABLE `content_custom_fields` (
	`content_id` integer NOT NULL,
	`organization_id` integer NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `content_custom_fields_lookup_idx` ON `content_custom_fields` (`organization_id`,`name`,`value`,`content_id`);--> statement-breakpoint
CREATE INDEX `content_custom_fields_content_idx` ON `content_custom_fields` (`content_id`);--> statement-breakpoint
CREATE TABLE `cron_state` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `feeds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`feed_id` text NOT NULL,
	`organization_id` integer NOT NULL,
	`name` text NOT NULL,
	`categories` text DEFAULT '[]' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`events` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`dirty_since` text,
	`built_at` text,
	`files` text DEFAULT '{}' NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feeds_feed_id_unique` ON `feeds` (`feed_id`);--> statement-breakpoint
CREATE INDEX `feeds_org_idx` ON `feeds` (`organization_id`);--> statement-breakpoint
CREATE INDEX `feeds_dirty_idx` ON `feeds` (`dirty_since`);--> statement-breakpoint
CREATE TABLE `listing_counts` (
	`organization_id` integer NOT NULL,
	`sub_organization_id` integer NOT NULL,
	`videos` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`organization_id`, `sub_organization_id`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `syndications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`content_id` integer NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`start_time` text NOT NULL,
	`stop_time` text,
	`geos` text DEFAULT '[]' NOT NULL,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `syndications_content_idx` ON `syndications` (`content_id`);--> statement-breakpoint
CREATE INDEX `syndications_start_idx` ON `syndications` (`start_time`);--> statement-breakpoint
CREATE INDEX `syndications_stop_idx` ON `syndications` (`stop_time`);--> statement-breakpoint
DROP INDEX `contents_org_status_published_idx`;--> statement-breakpoint
DROP INDEX `contents_sub_org_idx`;--> statement-breakpoint
CREATE INDEX `contents_listable_org_idx` ON `contents` (`organization_id`,`published_at`,`id`) WHERE status = 'available' and removed = 0;--> statement-breakpoint
CREATE INDEX `contents_listable_sub_org_idx` ON `contents` (`sub_organization_id`,`published_at`,`id`) WHERE status = 'available' and removed = 0;--> statement-breakpoint
CREATE INDEX `contents_org_idx` ON `contents` (`organization_id`,`status`);