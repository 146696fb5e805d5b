CREATE TABLE `network_listing_counts` (
	`network_id` integer NOT NULL,
	`organization_id` integer NOT NULL,
	`country` text NOT NULL,
	`videos` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`network_id`, `organization_id`, `country`)
);
--> statement-breakpoint
CREATE TABLE `network_listings` (
	`content_id` integer PRIMARY KEY NOT NULL,
	`network_id` integer NOT NULL,
	`organization_id` integer NOT NULL,
	`published_at` text NOT NULL,
	`geos` text NOT NULL,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`network_id`) REFERENCES `networks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `network_listings_walk_idx` ON `network_listings` (`network_id`,`published_at`,`content_id`);--> statement-breakpoint
DROP INDEX `content_custom_fields_content_idx`;--> statement-breakpoint
CREATE INDEX `content_custom_fields_content_idx` ON `content_custom_fields` (`content_id`,`name`,`value`);--> statement-breakpoint
ALTER TABLE `content_labels` ADD `listable` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `content_labels_listable_idx` ON `content_labels` (`label_id`,`content_id`) WHERE listable = 1;