CREATE TABLE `rendition_ladders` (
	`organization_id` integer PRIMARY KEY NOT NULL,
	`rungs` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `renditions` (
	`content_id` integer NOT NULL,
	`name` text NOT NULL,
	`width` integer NOT NULL,
	`height` integer NOT NULL,
	`bitrate` integer NOT NULL,
	`chunks` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`reason` text,
	`peak_bitrate` integer,
	`average_bitrate` integer,
	`codecs` text,
	`ladder_notified` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`content_id`, `name`),
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `renditions_status_idx` ON `renditions` (`status`);